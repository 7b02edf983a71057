/**
 * Differential test of the module-backend protocol (`protocol: "module"`):
 * one backend, written once in the original's shape, registered on the
 * published `@cloudflare/computer@0.2.1` (`computer-reference`) and on ours,
 * each in a fresh Durable Object; the same calls through `workspace.runtime`
 * must give the same results. What the backend is sent is recorded too, and
 * where ours sends more (an id it minted, the runtime id it remembered) the
 * test says so.
 */
import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { Workspace as ReferenceWorkspace } from "computer-reference";
import { describe, expect, it } from "vitest";
import { Workspace } from "../../src/workspace/workspace.worker.js";
import { referenceStorage } from "./main.worker.js";

type Event =
  | { id: string; seq: number; name: "stdout" | "stderr"; value: Uint8Array }
  | { id: string; seq: number; name: "exit"; code: number; result?: unknown };

interface Host {
  fs: { readFile(path: string, encoding: "utf8"): Promise<string> };
  git: { status(): Promise<unknown> };
}

/** `cat <path>`, `wait` (until killed), `fail`; keeps every execution's events for replay. */
function catBackend(calls: unknown[], sync?: { pushed: number; applied: number }) {
  const logs = new Map<string, Event[]>();
  const waiting = new Map<string, (code: number) => void>();
  const stream = (events: Event[]) =>
    new ReadableStream<Event>({
      start(controller) {
        for (const event of events) controller.enqueue(event);
        controller.close();
      },
    });
  return {
    protocol: "module" as const,
    id: "cat",
    type: "cat",
    callable: true,
    async connect(host: Host) {
      calls.push("connect");
      return {
        async exec(input: { id?: string; source: string; cwd?: string; input?: unknown }) {
          calls.push({ exec: { id: input.id === undefined ? "(none)" : "(given)", source: input.source } });
          const id = input.id ?? "minted-by-backend";
          const log: Event[] = [];
          logs.set(id, log);
          const [command, path = ""] = input.source.split(" ");
          const envelope = (events: ReadableStream<Event>) => ({
            id,
            runtimeId: "r1",
            events,
            ...(sync
              ? {
                  sync: {
                    pushed: sync.pushed,
                    outcome: Promise.resolve({
                      applied: sync.applied,
                      skipped: [],
                      sync: { status: "complete" as const, applied: sync.applied, skipped: [] },
                    }),
                  },
                }
              : {}),
          });
          if (command === "wait") {
            const done = new Promise<number>((resolve) => waiting.set(id, resolve));
            return envelope(
              new ReadableStream<Event>({
                async pull(controller) {
                  const event: Event = { id, seq: 1, name: "exit", code: await done };
                  log.push(event);
                  controller.enqueue(event);
                  controller.close();
                },
              }),
            );
          }
          if (command === "git") {
            // Git is not configured on either side: the host's client rejects each call.
            const outcome = await host.git.status().then(
              () => "resolved",
              () => "rejected",
            );
            log.push({ id, seq: 1, name: "stdout", value: new TextEncoder().encode(`${outcome}\n`) });
            log.push({ id, seq: 2, name: "exit", code: 0 });
            return envelope(stream(log));
          }
          if (command === "fail") {
            log.push({ id, seq: 1, name: "stderr", value: new TextEncoder().encode("failing\n") });
            log.push({ id, seq: 2, name: "exit", code: 2 });
            return envelope(stream(log));
          }
          const bytes = new TextEncoder().encode(await host.fs.readFile(path, "utf8"));
          const cut = Math.max(1, bytes.byteLength - 1);
          log.push({ id, seq: 1, name: "stdout", value: bytes.slice(0, cut) });
          log.push({ id, seq: 2, name: "stdout", value: bytes.slice(cut) });
          log.push({
            id,
            seq: 3,
            name: "exit",
            code: 0,
            ...(input.input === undefined ? {} : { result: { input: input.input, bytes: bytes.byteLength } }),
          });
          return envelope(stream(log));
        },
        async getExec(input: { id: string; after?: number | "tail" }) {
          calls.push({ getExec: { id: input.id, after: input.after ?? "(none)" } });
          const log = logs.get(input.id);
          if (!log) throw new Error(`no such execution: ${input.id}`);
          const after = input.after === "tail" ? log.length - 1 : (input.after ?? 0);
          return { id: input.id, runtimeId: "r1", events: stream(log.filter((event) => event.seq > after)) };
        },
        async killExec(input: { id: string; signal?: string }) {
          calls.push({ killExec: { id: input.id, signal: input.signal } });
          waiting.get(input.id)?.(143);
        },
        async disposeExec(input: { id: string }) {
          calls.push({ disposeExec: input.id });
          logs.delete(input.id);
        },
      };
    },
  };
}

interface RuntimeLike {
  exec(source: string, options?: Record<string, unknown>): Promise<RuntimeHandle>;
  getExec(id: string, options?: Record<string, unknown>): Promise<RuntimeHandle>;
  killExec(id: string, options?: Record<string, unknown>): Promise<void>;
  disposeExec(id: string, options?: Record<string, unknown>): Promise<void>;
}
interface RuntimeHandle extends ReadableStream<{ seq: number; name: string }> {
  readonly id: string;
  result(): Promise<Record<string, unknown>>;
}

/** Runs `steps` on one side; each step's value, or its error message, is recorded. */
async function runOn(
  side: "reference" | "ours",
  steps: (runtime: RuntimeLike) => Record<string, () => Promise<unknown>>,
  sync?: { pushed: number; applied: number },
): Promise<{ trace: Record<string, unknown>; calls: unknown[] }> {
  const stub = env.COMPAT_SCRATCH.get(env.COMPAT_SCRATCH.newUniqueId());
  return runInDurableObject(stub, async (_instance, state) => {
    const calls: unknown[] = [];
    const backend = catBackend(calls, sync);
    const workspace =
      side === "reference"
        ? new ReferenceWorkspace({ storage: referenceStorage(state.storage), backends: [backend as never] })
        : new Workspace({ storage: state.storage, backends: [backend as never] });
    await workspace.fs.writeFile("/a.txt", "héllo ✓");
    const trace: Record<string, unknown> = {};
    for (const [name, step] of Object.entries(steps(workspace.runtime as unknown as RuntimeLike))) {
      try {
        trace[name] = await step();
      } catch (error) {
        trace[name] = { error: (error as Error).message };
      }
    }
    await workspace.close();
    return { trace, calls };
  });
}

const decoded = (result: Record<string, unknown>) => ({
  ...result,
  stdout: result.stdout instanceof Uint8Array ? new TextDecoder().decode(result.stdout) : result.stdout,
});

const seqs = async (handle: RuntimeHandle) => {
  const out: number[] = [];
  for await (const event of handle) out.push(event.seq);
  return out;
};

describe("differential: a module backend on both packages", () => {
  it("exec, results by encoding, input and value, failures", async () => {
    const steps = (runtime: RuntimeLike) => ({
      utf8: async () => (await runtime.exec("cat /a.txt", { id: "e1", encoding: "utf8" })).result(),
      bytes: async () => decoded(await (await runtime.exec("cat /a.txt", { id: "e2" })).result()),
      value: async () => (await runtime.exec("cat /a.txt", { id: "e3", encoding: "utf8", input: { n: 1 } })).result(),
      failed: async () => (await runtime.exec("fail", { id: "e4", encoding: "utf8" })).result(),
      "unset git": async () => (await runtime.exec("git", { id: "e7", encoding: "utf8" })).result(),
      streamed: async () => seqs(await runtime.exec("cat /a.txt", { id: "e5", encoding: "utf8" })),
      // The code is the same; the message is the fs's, Node-shaped in ours (docs/migration.md).
      "a missing file": async () =>
        runtime.exec("cat /missing.txt", { id: "e6" }).then(
          () => "ran",
          (error: { code?: string }) => ({ code: error.code }),
        ),
    });
    const reference = await runOn("reference", steps);
    const ours = await runOn("ours", steps);
    expect(reference.trace.utf8).toMatchObject({ status: "completed", stdout: "héllo ✓" });
    expect(reference.trace["unset git"]).toMatchObject({ stdout: "rejected\n" });
    expect(ours.trace).toEqual(reference.trace);
    expect(ours.calls).toEqual(reference.calls);
  });

  it("getExec replays and resumes, killExec cancels, disposeExec forgets", async () => {
    const steps = (runtime: RuntimeLike) => ({
      run: async () => (await runtime.exec("cat /a.txt", { id: "g1", encoding: "utf8" })).result(),
      replay: async () => (await runtime.getExec("g1", { encoding: "utf8" })).result(),
      resumed: async () => seqs(await runtime.getExec("g1", { resume: 1 })),
      killed: async () => {
        const waiting = await runtime.exec("wait", { id: "g2" });
        await runtime.killExec("g2", { signal: "SIGINT" });
        return waiting.result();
      },
      disposed: async () => {
        await runtime.disposeExec("g1");
        return runtime.getExec("g1");
      },
    });
    const reference = await runOn("reference", steps);
    const ours = await runOn("ours", steps);
    expect(reference.trace.killed).toMatchObject({ status: "cancelled", exitCode: 143 });
    expect(ours.trace).toEqual(reference.trace);
    expect(ours.calls).toEqual(reference.calls);
  });

  it("an envelope's sync is reported in the result", async () => {
    const steps = (runtime: RuntimeLike) => ({
      synced: async () => (await runtime.exec("cat /a.txt", { id: "s1", encoding: "utf8" })).result(),
    });
    const reference = await runOn("reference", steps, { pushed: 3, applied: 2 });
    const ours = await runOn("ours", steps, { pushed: 3, applied: 2 });
    expect(reference.trace.synced).toMatchObject({ pushed: 3, pulled: 2 });
    expect(ours.trace).toEqual(reference.trace);
  });

  it("deliberate difference: without an id, ours sends the one it minted (the original sends none)", async () => {
    const steps = (runtime: RuntimeLike) => ({
      id: async () => {
        const handle = await runtime.exec("cat /a.txt");
        await handle.result();
        return handle.id === "minted-by-backend" ? "the backend's" : "the runtime's";
      },
    });
    const reference = await runOn("reference", steps);
    const ours = await runOn("ours", steps);
    expect(reference.calls).toContainEqual({ exec: { id: "(none)", source: "cat /a.txt" } });
    expect(reference.trace.id).toBe("the backend's");
    expect(ours.calls).toContainEqual({ exec: { id: "(given)", source: "cat /a.txt" } });
    expect(ours.trace.id).toBe("the runtime's");
  });
});
