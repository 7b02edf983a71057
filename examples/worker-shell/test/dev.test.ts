/**
 * `npm run dev` as a user runs it: scripts/dev.mjs starts `wrangler dev` on
 * $PORT, a file goes in and a command runs on it through the Worker Loader,
 * and SIGTERM stops wrangler and every process it started (workerd).
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

describe("examples/worker-shell npm run dev", () => {
  it("serves the routes on $PORT and cleans everything up on SIGTERM", async () => {
    dev = await startDev(example);
    const put = await fetch(`${dev.base}/c/dev/file/workspace/in.json`, { method: "PUT", body: '{"n":[1,2,3]}' });
    expect(put.status).toBe(204);
    const exec = await fetch(`${dev.base}/c/dev/exec`, {
      method: "POST",
      body: JSON.stringify({ command: "jq '.n | add' in.json > sum.txt && cat sum.txt" }),
    });
    expect(await exec.json()).toMatchObject({ status: "completed", exitCode: 0, stdout: "6\n" });
    expect(await (await fetch(`${dev.base}/c/dev/file/workspace/sum.txt`)).text()).toBe("6\n");

    // wrangler and the workerd it runs hang off the dev script.
    const processes = dev.descendants();
    expect(processes.length).toBeGreaterThan(1);
    const code = await dev.stop();
    // wrangler stops workerd and exits 0 on SIGTERM; the dev script then exits with the signal's code.
    expect(code).toBe(143);
    // Everything it started goes away, some of it a moment after the script.
    await allGone(processes);
    expect(dev.output()).toContain(`127.0.0.1:${dev.port}`);
  });
});
