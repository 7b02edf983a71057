/**
 * `npm run dev` as a user runs it: scripts/dev.mjs starts the local Artifacts
 * host and `wrangler dev --local` on $PORT, `POST /create` makes a repository
 * from the host's starter, real git clones the shared URL, and SIGTERM stops
 * wrangler, workerd and the host.
 */
import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";
import { allGone, type DevRun, startDev } from "../../test-support/dev-script.js";

const example = join(dirname(fileURLToPath(import.meta.url)), "..");
const scratch = mkdtempSync(join(tmpdir(), "artifacts-dev-"));
let dev: DevRun | undefined;

afterAll(async () => {
  await dev?.stop();
  rmSync(scratch, { recursive: true, force: true });
});

describe("examples/artifacts npm run dev", () => {
  it("creates a clonable repository through the local stand-in, then cleans everything up on SIGTERM", async () => {
    dev = await startDev(example);
    const response = await fetch(`${dev.base}/create`, { method: "POST", body: JSON.stringify({ name: "from-dev" }) });
    const reply = (await response.json()) as { remote: string; shareUrl: string };
    expect(response.status, JSON.stringify(reply)).toBe(200);
    const hostUrl = /local Artifacts stand-in on (http:\/\/127\.0\.0\.1:\d+)/.exec(dev.output())?.[1];
    expect(reply.remote).toBe(`${hostUrl}/repos/from-dev.git`);
    await promisify(execFile)("git", ["clone", "--quiet", reply.shareUrl, "from-dev"], { cwd: scratch });
    expect(readFileSync(join(scratch, "from-dev", "README.md"), "utf8")).toMatch(/^# from-dev\n/);

    // wrangler and the workerd it runs hang off the dev script; the host is the script itself.
    const processes = dev.descendants();
    expect(processes.length).toBeGreaterThan(1);
    const code = await dev.stop();
    expect(code).toBe(143);
    await allGone(processes);
    await expect(fetch(`${hostUrl}/api/list`, { method: "POST", body: "{}" })).rejects.toThrow();
    expect(dev.output()).toContain(`127.0.0.1:${dev.port}`);
  });
});
