/**
 * `npm run dev` as a user runs it: scripts/dev.mjs starts the local container
 * host and `wrangler dev --local` on $PORT; the page is served, a run on both
 * runtimes streams to the end, and SIGTERM stops wrangler, the host and every
 * container process it started.
 */
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { allGone, type DevRun, startDev } from "../../test-support/dev-script.js";
import { readEvents } from "./events.js";

const example = join(dirname(fileURLToPath(import.meta.url)), "..");
let dev: DevRun | undefined;

afterAll(async () => {
  await dev?.stop();
});

describe("examples/think-compare-runtimes npm run dev", () => {
  it("serves the page and a run on $PORT, and cleans everything up on SIGTERM", async () => {
    dev = await startDev(example);
    expect(await (await fetch(`${dev.base}/`)).text()).toContain("Same task, two runtimes");
    const created = await fetch(`${dev.base}/api/runs`, { method: "POST", body: JSON.stringify({ task: "ticks: 1" }) });
    const run = (await created.json()) as { runtimes: string[]; events: Record<string, string> };
    for (const runtime of run.runtimes) {
      const { events } = await readEvents(await fetch(`${dev.base}${run.events[runtime]}`));
      expect(events.at(-1)).toMatchObject({ type: "finish", status: "completed" });
    }
    expect(dev.output()).toContain("both runs use the demo model");

    const processes = dev.descendants();
    expect(processes.length).toBeGreaterThan(2);
    expect(await dev.stop()).toBe(143);
    await allGone(processes);
  });
});
