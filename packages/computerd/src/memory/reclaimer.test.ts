/**
 * The idle reclaimer over a real store: one reclaim per quiet spell, none
 * while the store moves, another once it moved again, and a mount that
 * cannot commit is logged once per spell, not on every poll. Waits are for
 * outcomes (a run count); only the checks that nothing more happens wait a
 * fixed window.
 */
import { WorkspaceFilesystem } from "@cloudflare/dofs";
import { openNodeDatabase } from "@cloudflare/dofs/node";
import { afterEach, describe, expect, test } from "vitest";
import { absenceWindow, waitFor } from "../../test/wait.js";
import { Reclaimer } from "./reclaimer.js";

const running: Reclaimer[] = [];
afterEach(() => {
  for (const reclaimer of running.splice(0)) reclaimer.stop();
});

/** Long enough for several reclaim polls (idle 40 ms), so an extra run would show. */
const NO_MORE_RUNS_MS = 200;

async function setup(releaseIdle: () => void = () => {}, idleMs = 40) {
  const db = openNodeDatabase("");
  const fs = new WorkspaceFilesystem(db);
  await fs.mkdir("/w", { recursive: true });
  const errors: string[] = [];
  let releases = 0;
  const reclaimer = new Reclaimer(db, {
    releaseIdle: () => {
      releases++;
      releaseIdle();
    },
    rss: () => 50_000_000,
    pollMs: 5,
    idleMs,
    log: (message) => errors.push(message),
  });
  running.push(reclaimer);
  return { db, fs, reclaimer, errors, releases: () => releases };
}

describe("Reclaimer", () => {
  test("one reclaim per quiet spell; a change to the store earns another", async () => {
    const { fs, reclaimer, releases } = await setup();
    reclaimer.start();
    await waitFor(() => reclaimer.stats().reclaim_runs === 1, "the first reclaim");
    expect(releases()).toBe(1);
    // Quiet and nothing new: no more runs, however many polls pass.
    await absenceWindow(NO_MORE_RUNS_MS);
    expect(reclaimer.stats().reclaim_runs).toBe(1);
    await fs.writeFile("/w/a", new TextEncoder().encode("x"));
    await waitFor(() => reclaimer.stats().reclaim_runs === 2, "a reclaim after the write");
    expect(reclaimer.stats()).toMatchObject({ reclaim_gc: 1, reclaim_malloc_trim: 1 });
  });

  test("no reclaim while the store keeps moving", async () => {
    // Quiet means 300 ms here: far more than one write and a 10 ms pause take, even on a loaded machine.
    const { fs, reclaimer } = await setup(undefined, 300);
    reclaimer.start();
    await waitFor(() => reclaimer.stats().reclaim_runs === 1, "the first reclaim");
    for (let i = 0; i < 20; i++) {
      await fs.writeFile(`/busy-${i}`, new TextEncoder().encode(String(i)));
      // The loop is the window in which no reclaim may run: writes 10 ms apart, never 300 ms quiet.
      await absenceWindow(10);
    }
    expect(reclaimer.stats().reclaim_runs).toBe(1);
    await waitFor(() => reclaimer.stats().reclaim_runs === 2, "a reclaim once quiet");
  });

  test("a mount that cannot commit is logged once per quiet spell, and the rest is still reclaimed", async () => {
    const { reclaimer, errors, releases } = await setup(() => {
      throw new Error("read-only");
    });
    reclaimer.start();
    await waitFor(() => reclaimer.stats().reclaim_runs === 1, "a reclaim despite the failure");
    await absenceWindow(NO_MORE_RUNS_MS);
    expect(releases()).toBe(1);
    expect(errors).toEqual(["committing idle files failed"]);
  });
});
