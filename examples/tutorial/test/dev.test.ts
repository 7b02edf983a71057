/**
 * `npm run dev` as a user runs it: scripts/dev.mjs starts the local container
 * host and `wrangler dev --local` on $PORT with the local R2 stand-in; a
 * prompt becomes a PDF whose URL serves it; SIGTERM stops wrangler, the host
 * and every container process it started.
 */
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { allGone, type DevRun, startDev } from "../../test-support/dev-script.js";

const example = join(dirname(fileURLToPath(import.meta.url)), "..");
let dev: DevRun | undefined;

afterAll(async () => {
  await dev?.stop();
});

describe("examples/tutorial npm run dev", () => {
  it("turns a prompt into a served PDF on $PORT, and cleans everything up on SIGTERM", async () => {
    dev = await startDev(example);
    const response = await fetch(`${dev.base}/prompt`, {
      method: "POST",
      body: JSON.stringify({ prompt: "Folding paper cranes" }),
    });
    const reply = (await response.json()) as { url: string; summary: string };
    expect(response.status, JSON.stringify(reply)).toBe(200);
    expect(reply.url.startsWith(`${dev.base}/_r2/tutorial-assets/`)).toBe(true);
    const pdf = await fetch(reply.url);
    expect(pdf.headers.get("content-type")).toBe("application/pdf");
    expect(
      Buffer.from(await pdf.arrayBuffer())
        .subarray(0, 5)
        .toString("latin1"),
    ).toBe("%PDF-");
    expect(dev.output()).toContain("POST /prompt uses the demo model");

    const processes = dev.descendants();
    expect(processes.length).toBeGreaterThan(2);
    expect(await dev.stop()).toBe(143);
    await allGone(processes);
  });
});
