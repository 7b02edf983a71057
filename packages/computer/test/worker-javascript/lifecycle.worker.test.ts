/**
 * Executions over time: cancellation, restarts, concurrency and readers.
 * A number in a test name is a stable case id; `docs/worker-javascript.md` describes the behavior.
 */
import { abortAllDurableObjects } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { INTERRUPTED_MESSAGE } from "../../src/backends/worker-javascript/index.js";
import type { ExecEvent } from "../../src/runtime/types.js";
import { inJsWorkspace, JS, run } from "./harness.worker.js";

/** A module that says "started" and then appends to a file forever, one await at a time. */
const LOOP = `import { writeFile } from "node:fs/promises";
  export default async () => {
    await writeFile("ticks.txt", "-1");
    console.log("started");
    for (let i = 0; ; i++) {
      await new Promise((resolve) => setTimeout(resolve, 2));
      await writeFile("ticks.txt", String(i));
    }
  }`;

async function firstEvent(stream: ReadableStream<ExecEvent>): Promise<ExecEvent | undefined> {
  const reader = stream.getReader();
  const next = await reader.read();
  reader.releaseLock();
  return next.done ? undefined : next.value;
}

describe("cancellation", () => {
  it("(15) killExec during a long await loop: exit 130, cancelled, and getExec replays the same events", async () => {
    await inJsWorkspace(async ({ workspace }) => {
      const handle = await workspace.runtime.exec(LOOP, { ...JS, id: "loop" });
      expect(await firstEvent(handle)).toMatchObject({ name: "stdout", value: "started\n" });
      await workspace.runtime.killExec("loop", { backend: "worker-javascript" });
      const rest: ExecEvent[] = [];
      for await (const event of handle) rest.push(event);
      expect(rest.at(-1)).toMatchObject({ name: "exit", code: 130 });
      expect(rest.at(-2)).toMatchObject({ name: "stderr", value: "Execution cancelled.\n" });
      const replay = await (await workspace.runtime.getExec("loop", { encoding: "utf8" })).result();
      expect(replay).toMatchObject({
        status: "cancelled",
        exitCode: 130,
        stdout: "started\n",
        stderr: "Execution cancelled.\n",
      });
      // Nothing the module does after the kill reaches the workspace: a later run sees the same tick. That run's
      // 20 ms are a negative check's fixed window: ten of the loop's 2 ms ticks, had it survived.
      const ticks = await workspace.fs.readFile("/workspace/ticks.txt", "utf8");
      await run(workspace, "export default () => new Promise((resolve) => setTimeout(resolve, 20))");
      expect(await workspace.fs.readFile("/workspace/ticks.txt", "utf8")).toBe(ticks);
    });
  });

  it("closing the Workspace cancels what runs", async () => {
    await inJsWorkspace(async ({ workspace }) => {
      const handle = await workspace.runtime.exec(LOOP, JS);
      await firstEvent(handle);
      await workspace.close();
      const events: ExecEvent[] = [];
      for await (const event of handle) events.push(event);
      expect(events.at(-1)).toMatchObject({ name: "exit", code: 130 });
    });
  });
});

describe("restarts", () => {
  it("(16) a durable running row seen by a new backend becomes failed with the interrupted message", async () => {
    await inJsWorkspace(async ({ workspace, state, open }) => {
      await run(workspace, "export default 1", { id: "done" });
      state.storage.sql.exec(
        "INSERT INTO workspace_runtime_executions (backend, id, status, created_at) VALUES ('worker-javascript', 'ghost', 'running', 1)",
      );
      state.storage.sql.exec(
        "INSERT INTO workspace_runtime_events (backend, execution_id, seq, name, payload) VALUES ('worker-javascript', 'ghost', 1, 'stdout', 'half')",
      );
      const reopened = open().workspace;
      const result = await (await reopened.runtime.getExec("ghost", { encoding: "utf8" })).result();
      expect(result).toMatchObject({ status: "failed", exitCode: 1, stdout: "half", stderr: INTERRUPTED_MESSAGE });
      expect((await (await reopened.runtime.getExec("done")).result()).value).toBe(1);
    });
  });

  it("a Durable Object aborted during an execution shows it failed as interrupted on the next getExec", async () => {
    const id = env.JS_WORKSPACE.newUniqueId();
    const before = env.JS_WORKSPACE.get(id);
    const incarnation = await before.getIncarnation();
    expect(await before.startAndWaitForOutput("long", LOOP)).toBe("started\n");
    await abortAllDurableObjects();
    const after = env.JS_WORKSPACE.get(id);
    expect(await after.getIncarnation()).not.toBe(incarnation);
    const result = await after.result("long");
    expect(result).toMatchObject({ status: "failed", exitCode: 1, stdout: "started\n" });
    expect(result.stderr).toContain("interrupted when its Workspace runtime restarted");
  });
});

describe("concurrency", () => {
  it("(17) 24 executions run at once, the 25th is refused with EEXEC_BUSY, and an id in flight is busy", async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    await inJsWorkspace(
      async ({ workspace }) => {
        const source = 'import { wait } from "ws:gate"; export default async (n) => { await wait(); return n; }';
        const handles = [];
        for (let n = 0; n < 24; n++)
          handles.push(await workspace.runtime.exec(source, { ...JS, id: `c${n}`, input: n }));
        await expect(workspace.runtime.exec(source, { ...JS, id: "c24", input: 24 })).rejects.toMatchObject({
          code: "EEXEC_BUSY",
        });
        await expect(workspace.runtime.exec(source, { ...JS, id: "c0" })).rejects.toMatchObject({ code: "EEXEC_BUSY" });
        await expect(workspace.runtime.disposeExec("c0")).rejects.toMatchObject({ code: "EEXEC_BUSY" });
        release();
        const results = await Promise.all(handles.map((handle) => handle.result()));
        expect(results.map((result) => result.value)).toEqual([...Array(24).keys()]);
        expect(results.every((result) => result.status === "completed")).toBe(true);
        expect((await run(workspace, "export default 25", { id: "c24" })).value).toBe(25);
      },
      { trustedModules: { gate: { wait: () => gate } } },
    );
  });

  it("allows 8 readers of one execution; the 9th stream fails with EEXEC_BUSY", async () => {
    await inJsWorkspace(async ({ workspace }) => {
      const handle = await workspace.runtime.exec(LOOP, { ...JS, id: "watched" });
      await firstEvent(handle);
      const readers = [];
      for (let n = 0; n < 7; n++) readers.push(await workspace.runtime.getExec("watched", { encoding: "utf8" }));
      const ninth = await workspace.runtime.getExec("watched");
      await expect(firstEvent(ninth)).rejects.toMatchObject({ code: "EEXEC_BUSY" });
      for (const reader of readers) expect(await firstEvent(reader)).toMatchObject({ value: "started\n" });
      await workspace.runtime.killExec("watched");
      for (const reader of readers) await reader.cancel();
    });
  });
});
