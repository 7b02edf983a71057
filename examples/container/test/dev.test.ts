/**
 * `npm run dev` as a user runs it: scripts/dev.mjs starts the local container
 * host and `wrangler dev` on $PORT, a command runs in a container, and
 * SIGTERM stops wrangler, the host and every container process it started.
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

describe("examples/container npm run dev", () => {
  it("serves the routes on $PORT and cleans everything up on SIGTERM", async () => {
    dev = await startDev(example);
    const put = await fetch(`${dev.base}/c/dev/file/workspace/in.txt`, { method: "PUT", body: "ping" });
    expect(put.status).toBe(204);
    const exec = await fetch(`${dev.base}/c/dev/exec`, {
      method: "POST",
      body: JSON.stringify({ command: "cat in.txt > out.txt && cat out.txt" }),
    });
    expect(await exec.json()).toMatchObject({ status: "completed", exitCode: 0, stdout: "ping" });
    expect(await (await fetch(`${dev.base}/c/dev/file/workspace/out.txt`)).text()).toBe("ping");
    expect(dev.output()).toMatch(/computerd host listening url=http:\/\/127\.0\.0\.1:\d+/);

    // wrangler, workerd, and the container (unshare + computerd) all hang off the dev script.
    const processes = dev.descendants();
    expect(processes.length).toBeGreaterThan(2);
    const code = await dev.stop();
    expect(code).toBe(143);
    // Everything it started goes away, some of it a moment after the script.
    await allGone(processes);
    expect(dev.output()).toMatch(/\] exited /);
  });
});
