/**
 * `npm run dev` as a user runs it: scripts/dev.mjs starts `wrangler dev
 * --local` on $PORT with the local stand-ins, `POST /prompt` returns a URL
 * on that port that serves the PNG, and SIGTERM stops wrangler and workerd.
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

describe("examples/assets npm run dev", () => {
  it("serves a prompt's image through a presigned URL on $PORT and cleans everything up on SIGTERM", async () => {
    dev = await startDev(example);
    const response = await fetch(`${dev.base}/prompt`, { method: "POST", body: JSON.stringify({ prompt: "dev" }) });
    const reply = (await response.json()) as { path: string; url: string };
    expect(response.status, JSON.stringify(reply)).toBe(200);
    expect(reply.url.startsWith(`${dev.base}/local-r2/computer-assets-images/`)).toBe(true);
    const image = await fetch(reply.url);
    expect(image.status).toBe(200);
    const bytes = new Uint8Array(await image.arrayBuffer());
    expect([...bytes.subarray(0, 8)]).toEqual([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
    const file = await fetch(`${dev.base}${reply.path}`);
    expect(new Uint8Array(await file.arrayBuffer())).toEqual(bytes);

    const processes = dev.descendants();
    expect(processes.length).toBeGreaterThan(1);
    // wrangler handles SIGTERM itself (stops workerd, then exits 0); dev.mjs passes its code on.
    expect(await dev.stop()).toBe(143);
    await allGone(processes);
  });
});
