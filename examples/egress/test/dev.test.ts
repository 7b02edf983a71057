/**
 * `npm run dev` as a user runs it, with `EGRESS_MODE=all` in its environment:
 * scripts/dev.mjs starts the local container host and `wrangler dev` on
 * $PORT with the mode passed on, one URL is fetched from all three backends,
 * and SIGTERM stops wrangler, the host and every container process it started.
 */
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { allGone, type DevRun, startDev } from "../../test-support/dev-script.js";
import type { FetchReport } from "../src/index.js";
import { type LocalServer, startLocalServer } from "./local-server.js";

const example = join(dirname(fileURLToPath(import.meta.url)), "..");
let dev: DevRun | undefined;
let server: LocalServer | undefined;

afterAll(async () => {
  await dev?.stop();
  await server?.close();
  delete process.env.EGRESS_MODE;
  delete process.env.EGRESS_ALLOWED_URL;
});

describe("examples/egress npm run dev", () => {
  it("passes EGRESS_MODE on, fetches through every backend, and cleans everything up on SIGTERM", async () => {
    server = await startLocalServer();
    // startDev hands the script this process's environment, as a shell would.
    process.env.EGRESS_MODE = "all";
    process.env.EGRESS_ALLOWED_URL = `${server.origin}/allowed`;
    dev = await startDev(example);
    expect(await (await fetch(dev.base)).json()).toMatchObject({ mode: "all", allowed: `${server.origin}/allowed` });
    const response = await fetch(`${dev.base}/fetch`, { method: "POST" });
    const report = (await response.json()) as FetchReport;
    expect(report.results).toEqual({
      "container-shell": { status: 200, body: "local server saw GET /allowed\n" },
      "worker-shell": { status: 200, body: "local server saw GET /allowed\n" },
      "worker-javascript": { status: 200, body: "local server saw GET /allowed\n" },
    });
    expect(dev.output()).toMatch(/computerd host listening url=http:\/\/127\.0\.0\.1:\d+/);

    // wrangler, workerd, and the container (unshare + computerd) all hang off the dev script.
    const processes = dev.descendants();
    expect(processes.length).toBeGreaterThan(2);
    expect(await dev.stop()).toBe(143);
    await allGone(processes);
  });
});
