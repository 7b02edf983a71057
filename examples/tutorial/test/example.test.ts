/**
 * `POST /prompt` end to end with the demo model: the Worker under Miniflare
 * (a SQLite Durable Object, local R2), its container a real computerd under a
 * local container host started here, running this machine's pandoc and
 * groff. The reply's URL is presigned for the Worker's local stand-in of
 * R2's S3 endpoint, fetched over a real socket, and must serve a real PDF.
 * Needs root, the packages built (dist/), pandoc and groff (scripts/setup).
 */
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { type RunningHost, startHost } from "@cloudflare/computerd/host";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort } from "../../test-support/dev-script.js";
import { useExampleWorker } from "../../test-support/worker.js";

const example = join(dirname(fileURLToPath(import.meta.url)), "..");
let host: RunningHost;
beforeAll(async () => {
  host = await startHost({ port: 0, log: () => {} });
});
afterAll(async () => {
  await host?.close();
});

const { request } = useExampleWorker(example, async () => {
  // The presigned URLs name the Worker's own address, so it listens on a port chosen first.
  const port = await freePort();
  return {
    host: "127.0.0.1",
    port,
    durableObjects: { TUTOR: { className: "Tutor", useSQLite: true } },
    r2Buckets: { ASSETS: "tutorial-assets" },
    bindings: {
      ASSETS_BUCKET_NAME: "tutorial-assets",
      LOCAL_R2_ENDPOINT: `http://127.0.0.1:${port}/_r2`,
      COMPUTER_CONTAINER_HOST: host.url,
    },
  };
});

async function prompt(body: unknown): Promise<Response> {
  return request("/prompt", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
}

describe("examples/tutorial", () => {
  it("turns a prompt into a PDF published behind a 24 h presigned URL", async () => {
    const response = await prompt({ prompt: "Brewing green tea" });
    const reply = (await response.json()) as {
      summary: string;
      url: string;
      demo: boolean;
      model: string;
      note?: string;
    };
    expect(response.status, JSON.stringify(reply)).toBe(200);
    expect(reply).toMatchObject({ demo: true, model: "demo model — scripted, not an LLM" });
    expect(reply.note).toMatch(/No model is configured/);
    expect(reply.summary).toMatch(
      /^\(demo model — scripted, not an LLM\) Writing a short tutorial about "Brewing green tea"\.\nWrote tutorial\/brewing-green-tea\.md, rendered it to a \d+-byte PDF with pandoc and groff in the container, and published it for 24 hours\.$/,
    );

    const url = new URL(reply.url);
    expect(url.pathname).toMatch(/^\/_r2\/tutorial-assets\/[0-9a-z]{26}\/brewing-green-tea\.pdf$/);
    expect(url.searchParams.get("X-Amz-Expires")).toBe("86400");
    expect(url.searchParams.get("X-Amz-Credential")).toMatch(/^local-dev\/\d{8}\/auto\/s3\/aws4_request$/);

    const pdf = await fetch(url);
    expect(pdf.status).toBe(200);
    expect(pdf.headers.get("content-type")).toBe("application/pdf");
    const bytes = Buffer.from(await pdf.arrayBuffer());
    expect(bytes.subarray(0, 5).toString("latin1")).toBe("%PDF-");
    expect(bytes.subarray(-8).toString("latin1")).toContain("%%EOF");
    const size = Number(/a (\d+)-byte PDF/.exec(reply.summary)?.[1]);
    expect(bytes.length).toBe(size);
  });

  it("refuses a URL whose signature or expiry was changed", async () => {
    const response = await prompt({ prompt: "Knots for sailors", name: "sailing" });
    const { url } = (await response.json()) as { url: string };
    const tampered = new URL(url);
    const signature = tampered.searchParams.get("X-Amz-Signature") as string;
    tampered.searchParams.set("X-Amz-Signature", `${signature.slice(0, -1)}${signature.endsWith("0") ? "1" : "0"}`);
    const bad = await fetch(tampered);
    expect(bad.status).toBe(403);
    expect(await bad.text()).toMatch(/^SignatureDoesNotMatch/);
    const longer = new URL(url);
    longer.searchParams.set("X-Amz-Expires", "604800");
    expect((await fetch(longer)).status).toBe(403);
    const otherKey = new URL(url);
    otherKey.pathname = otherKey.pathname.replace(/[^/]+\.pdf$/, "other.pdf");
    expect((await fetch(otherKey)).status).toBe(403);
    expect((await fetch(url)).status).toBe(200);
  });

  it("answers 400 to bad bodies and 404/405 elsewhere", async () => {
    expect((await prompt({})).status).toBe(400);
    expect((await prompt({ prompt: " " })).status).toBe(400);
    expect((await prompt({ prompt: "x", name: 3 })).status).toBe(400);
    expect((await request("/prompt", { method: "POST", body: "{" })).status).toBe(400);
    expect((await request("/prompt")).status).toBe(405);
    expect((await request("/elsewhere")).status).toBe(404);
  });
});
