/**
 * `npm run dev` as a user runs it: scripts/dev.mjs starts `wrangler dev` on
 * $PORT, a file goes in and a module runs on it in a Dynamic Worker, and
 * SIGTERM stops wrangler and every process it started (workerd).
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

describe("examples/worker-javascript npm run dev", () => {
  it("serves the routes on $PORT and cleans everything up on SIGTERM", async () => {
    dev = await startDev(example);
    const put = await fetch(`${dev.base}/c/dev/file/workspace/n.json`, { method: "PUT", body: "[1,2,3]" });
    expect(put.status).toBe(204);
    const source = `import { readFile, writeFile } from "node:fs/promises";
      export default async () => {
        const sum = JSON.parse(await readFile("n.json", "utf8")).reduce((a, b) => a + b, 0);
        await writeFile("sum.txt", String(sum));
        return sum;
      }`;
    const exec = await fetch(`${dev.base}/c/dev/exec`, { method: "POST", body: JSON.stringify({ source }) });
    expect(await exec.json()).toMatchObject({ status: "completed", exitCode: 0, value: 6 });
    expect(await (await fetch(`${dev.base}/c/dev/file/workspace/sum.txt`)).text()).toBe("6");

    const processes = dev.descendants();
    expect(processes.length).toBeGreaterThan(1);
    // wrangler stops workerd and exits 0 on SIGTERM; the dev script then exits with the signal's code.
    expect(await dev.stop()).toBe(143);
    await allGone(processes);
    expect(dev.output()).toContain(`127.0.0.1:${dev.port}`);
  });
});
