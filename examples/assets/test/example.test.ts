/**
 * Drives `POST /prompt` end to end: the Worker (bundled the way wrangler
 * would) under Miniflare with a SQLite Durable Object and Miniflare's local
 * R2, the local image model and the local presigned-URL route switched on as
 * `npm run dev` does. The URL it returns must serve the PNG (decoded here
 * with node:zlib) and the same bytes must be in the workspace at `path`.
 */

import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { inflateSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { startExampleWorker, useExampleWorker } from "../../test-support/worker.js";

const example = join(dirname(fileURLToPath(import.meta.url)), "..");
const BUCKET = "computer-assets-images";
const LOCAL = {
  LOCAL_STAND_INS: "1",
  IMAGES_BUCKET_NAME: BUCKET,
  // The test requests go to http://example.test, so that is the host the URLs are signed for.
  R2_ENDPOINT: "http://example.test/local-r2",
  R2_ACCESS_KEY_ID: "local-test",
  R2_SECRET_ACCESS_KEY: "local-test-secret",
};
const { request } = useExampleWorker(example, { bindings: LOCAL, r2Buckets: { IMAGES: BUCKET } });

function prompt(body: unknown): Promise<Response> {
  return request("/prompt", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
}

/** The presigned URL, requested from the Worker that serves it locally. */
function open(url: string): Promise<Response> {
  const parsed = new URL(url);
  return request(`${parsed.pathname}${parsed.search}`);
}

const SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];

/** Width, height and the inflated scanlines of an RGB PNG, checking its structure on the way. */
function decodePng(bytes: Uint8Array): { width: number; height: number; pixels: Buffer } {
  expect([...bytes.subarray(0, 8)]).toEqual(SIGNATURE);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const chunks: { type: string; data: Uint8Array }[] = [];
  for (let at = 8; at < bytes.length; ) {
    const length = view.getUint32(at);
    chunks.push({
      type: Buffer.from(bytes.subarray(at + 4, at + 8)).toString("latin1"),
      data: bytes.subarray(at + 8, at + 8 + length),
    });
    at += 12 + length;
  }
  expect(chunks.map((chunk) => chunk.type)).toEqual(["IHDR", "IDAT", "IEND"]);
  const header = new DataView((chunks[0] as { data: Uint8Array }).data.slice().buffer);
  return {
    width: header.getUint32(0),
    height: header.getUint32(4),
    pixels: inflateSync((chunks[1] as { data: Uint8Array }).data),
  };
}

describe("examples/assets", () => {
  it("draws the prompt into the workspace and shares it for an hour with a URL that serves the PNG", async () => {
    const response = await prompt({ prompt: "a lighthouse at dusk" });
    const reply = (await response.json()) as { path: string; url: string };
    expect(response.status, JSON.stringify(reply)).toBe(200);
    expect(reply.path).toMatch(/^\/workspace\/images\/[0-9a-f-]{36}\.png$/);
    const url = new URL(reply.url);
    const basename = reply.path.slice(reply.path.lastIndexOf("/") + 1);
    expect(url.pathname).toMatch(new RegExp(`^/local-r2/${BUCKET}/[0-9a-z]{26}/${basename}$`));
    expect(url.searchParams.get("X-Amz-Expires")).toBe("3600");
    expect(url.searchParams.get("X-Amz-Credential")).toMatch(/^local-test\/\d{8}\/auto\/s3\/aws4_request$/);

    const shared = await open(reply.url);
    expect(shared.status).toBe(200);
    expect(shared.headers.get("content-type")).toBe("image/png");
    const bytes = new Uint8Array(await shared.arrayBuffer());
    const { width, height, pixels } = decodePng(bytes);
    expect([width, height]).toEqual([256, 256]);
    expect(pixels.length).toBe((1 + width * 3) * height);

    // The file is in the workspace, byte for byte what the URL serves.
    const file = await request(reply.path);
    expect(file.status).toBe(200);
    expect(new Uint8Array(await file.arrayBuffer())).toEqual(bytes);
  });

  it("gives every prompt its own file and URL; the local model draws the same prompt the same way", async () => {
    const [a, b, c] = await Promise.all(
      ["the same prompt", "the same prompt", "another prompt"].map(async (text) => {
        const reply = (await (await prompt({ prompt: text })).json()) as { path: string; url: string };
        return { ...reply, bytes: new Uint8Array(await (await open(reply.url)).arrayBuffer()) };
      }),
    );
    expect(new Set([a?.path, b?.path, c?.path]).size).toBe(3);
    expect(new Set([a?.url, b?.url, c?.url]).size).toBe(3);
    expect(a?.bytes).toEqual(b?.bytes);
    expect(a?.bytes).not.toEqual(c?.bytes);
  });

  it("serves a shared URL only with its signature intact", async () => {
    const { url } = (await (await prompt({ prompt: "signed" })).json()) as { url: string };
    const tampered = new URL(url);
    const signature = tampered.searchParams.get("X-Amz-Signature") as string;
    tampered.searchParams.set("X-Amz-Signature", `${signature.slice(0, -1)}${signature.endsWith("0") ? "1" : "0"}`);
    const refused = await open(tampered.toString());
    expect(refused.status).toBe(403);
    expect(await refused.text()).toMatch(/^SignatureDoesNotMatch/);
    const longer = new URL(url);
    longer.searchParams.set("X-Amz-Expires", "604800");
    expect((await open(longer.toString())).status).toBe(403);
    const unsigned = new URL(url);
    unsigned.search = "";
    expect((await open(unsigned.toString())).status).toBe(403);
  });

  it("refuses bad prompts with 400 and paths outside /workspace", async () => {
    for (const body of [{}, { prompt: "" }, { prompt: "   " }, { prompt: 5 }, { prompt: "x".repeat(2049) }, null]) {
      expect((await prompt(body)).status, JSON.stringify(body)).toBe(400);
    }
    expect((await prompt("{")).status).toBe(400);
    expect((await request("/prompt")).status).toBe(405);
    expect((await request("/workspace/images/missing.png")).status).toBe(404);
    expect((await request("/workspace/images%2f..%2f..%2fetc%2fpasswd")).status).toBe(400);
    expect((await request("/elsewhere")).status).toBe(404);
  });

  it("says which credential is missing when presigning is not configured", async () => {
    const { R2_ACCESS_KEY_ID: _id, ...withoutKey } = LOCAL;
    const worker = await startExampleWorker(example, { bindings: withoutKey, r2Buckets: { IMAGES: BUCKET } });
    try {
      const response = await worker.request("/prompt", { method: "POST", body: JSON.stringify({ prompt: "x" }) });
      expect(response.status).toBe(500);
      expect(await response.json()).toMatchObject({
        code: "ENOTCONFIGURED",
        error: expect.stringContaining("R2_ACCESS_KEY_ID"),
      });
    } finally {
      await worker.dispose();
    }
  });
});
