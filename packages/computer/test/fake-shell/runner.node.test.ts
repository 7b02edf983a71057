import { isRpcError } from "@cloudflare/computer-rpc";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { WireExecEvent } from "../../src/runtime/backend.js";
import { collect, exitCode, openPeer, output, type Peer, sh } from "./harness.node.js";

let peer: Peer;
beforeEach(async () => {
  peer = await openPeer();
});
afterEach(() => {
  peer.runner.dispose();
  peer.db.close();
});

async function rejectsWith(promise: Promise<unknown>, code: string): Promise<void> {
  const error = await promise.then(
    () => undefined,
    (reason: unknown) => reason,
  );
  expect(isRpcError(error), String(error)).toBe(true);
  expect((error as { code: string }).code).toBe(code);
}

/** Reads until `predicate` holds, leaving the stream open. */
async function readUntil(
  reader: ReadableStreamDefaultReader<WireExecEvent>,
  predicate: (event: WireExecEvent) => boolean,
): Promise<WireExecEvent[]> {
  const seen: WireExecEvent[] = [];
  for (;;) {
    const next = await reader.read();
    if (next.done) throw new Error("stream ended early");
    seen.push(next.value);
    if (predicate(next.value)) return seen;
  }
}

describe("TestRunner", () => {
  it("numbers events from 1 under the exec id and ends with exit", async () => {
    const exec = await peer.runner.exec({ source: "echo a; echo b >&2; exit 4", id: "e1" });
    expect(exec.id).toBe("e1");
    const events = await collect(exec.events);
    expect(events.map((event) => [event.seq, event.name, event.id])).toEqual([
      [1, "stdout", "e1"],
      [2, "stderr", "e1"],
      [3, "exit", "e1"],
    ]);
    expect(exitCode(events)).toBe(4);
  });

  it("mints an id when none is given and feeds stdin", async () => {
    const exec = await peer.runner.exec({ source: "cat", id: "", stdin: new Uint8Array([104, 105]) });
    expect(exec.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(output(await collect(exec.events), "stdout")).toBe("hi");
  });

  it("refuses a live id and replaces a finished one", async () => {
    const live = await peer.runner.exec({ source: "sleep 5", id: "same" });
    await rejectsWith(peer.runner.exec({ source: "true", id: "same" }), "EEXEC_BUSY");
    await peer.runner.killExec({ id: "same" });
    expect(exitCode(await collect(live.events))).toBe(143);
    const again = await peer.runner.exec({ source: "echo new", id: "same" });
    expect(output(await collect(again.events), "stdout")).toBe("new\n");
    const replay = await collect((await peer.runner.getExec({ id: "same" })).events);
    expect(output(replay, "stdout")).toBe("new\n");
  });

  it("allows one live subscriber; canceling detaches without stopping the exec", async () => {
    const exec = await peer.runner.exec({ source: "echo one; sleep 0.05; echo two", id: "s" });
    await rejectsWith(peer.runner.getExec({ id: "s" }), "EEXEC_BUSY");
    const reader = exec.events.getReader();
    await readUntil(reader, (event) => event.name === "stdout");
    await reader.cancel();
    const resumed = await collect((await peer.runner.getExec({ id: "s", after: 1 })).events);
    expect(resumed.map((event) => [event.seq, event.name])).toEqual([
      [2, "stdout"],
      [3, "exit"],
    ]);
    expect(output(resumed, "stdout")).toBe("two\n");
  });

  it("replays a finished exec from after, and tail on it is empty", async () => {
    const exec = await peer.runner.exec({ source: "echo 1; echo 2; echo 3", id: "r" });
    await collect(exec.events);
    expect((await collect((await peer.runner.getExec({ id: "r" })).events)).length).toBe(4);
    expect((await collect((await peer.runner.getExec({ id: "r", after: 2 })).events)).map((e) => e.seq)).toEqual([
      3, 4,
    ]);
    expect(await collect((await peer.runner.getExec({ id: "r", after: "tail" })).events)).toEqual([]);
    // Replays of a finished exec need no subscriber slot.
    const a = await peer.runner.getExec({ id: "r" });
    const b = await peer.runner.getExec({ id: "r" });
    expect((await collect(a.events)).length).toBe(4);
    expect((await collect(b.events)).length).toBe(4);
  });

  it("tail on a running exec gives only what comes next", async () => {
    const exec = await peer.runner.exec({ source: "echo early; sleep 0.05; echo late", id: "t" });
    const reader = exec.events.getReader();
    await readUntil(reader, (event) => event.name === "stdout");
    await reader.cancel();
    const tail = await collect((await peer.runner.getExec({ id: "t", after: "tail" })).events);
    expect(output(tail, "stdout")).toBe("late\n");
    expect(tail[0]?.seq).toBe(2);
  });

  it("answers ENOENT for unknown ids, except dispose which is silent", async () => {
    await rejectsWith(peer.runner.getExec({ id: "nope" }), "ENOENT");
    await rejectsWith(peer.runner.killExec({ id: "nope" }), "ENOENT");
    await expect(peer.runner.disposeExec({ id: "nope" })).resolves.toBeUndefined();
  });

  it.each([
    ["SIGTERM", 143],
    ["SIGKILL", 137],
    ["SIGINT", 130],
    ["SIGHUP", 129],
    ["SIGUSR1", -1],
  ])("kill with %s exits %i and interrupts sleep", async (signal, code) => {
    const started = Date.now();
    const exec = await peer.runner.exec({ source: "sleep 10; echo never > f", id: "k" });
    await peer.runner.killExec({ id: "k", signal });
    expect(exitCode(await collect(exec.events))).toBe(code);
    await peer.runner.settled();
    expect(Date.now() - started).toBeLessThan(2000);
    await expect(peer.fs.stat("/workspace/f")).rejects.toThrow(/ENOENT/);
    // Killing a finished exec does nothing.
    await peer.runner.killExec({ id: "k", signal: "SIGKILL" });
    expect(exitCode(await collect((await peer.runner.getExec({ id: "k" })).events))).toBe(code);
  });

  it("times out with SIGTERM", async () => {
    const result = await sh(peer.runner, "echo before; sleep 10", { timeoutMs: 20 });
    expect(result.stdout).toBe("before\n");
    expect(result.code).toBe(143);
  });

  it("dispose kills a running exec and forgets it", async () => {
    const exec = await peer.runner.exec({ source: "sleep 10", id: "d" });
    await peer.runner.disposeExec({ id: "d" });
    expect(exitCode(await collect(exec.events))).toBe(137);
    await rejectsWith(peer.runner.getExec({ id: "d" }), "ENOENT");
    expect(peer.runner.running).toEqual([]);
  });

  it("fails like a spawn on a missing cwd and drops the log", async () => {
    const result = await sh(peer.runner, "echo hi", { cwd: "/workspace/missing" });
    expect(result.stderr).toBe("spawn failed: ENOENT: no such file or directory, cwd '/workspace/missing'\n");
    expect(result.code).toBe(-1);
    expect(result.stdout).toBe("");
    const id = result.events[0]?.id as string;
    await rejectsWith(peer.runner.getExec({ id }), "ENOENT");
  });

  it("fails the same way when /workspace was never pushed", async () => {
    await peer.fs.rm("/workspace", { recursive: true });
    const result = await sh(peer.runner, "pwd");
    expect(result.code).toBe(-1);
    expect(result.stderr).toContain("cwd '/workspace'");
  });

  it("runs in the given cwd", async () => {
    await peer.fs.mkdir("/workspace/sub");
    expect((await sh(peer.runner, "pwd; echo $PWD", { cwd: "/workspace/sub" })).stdout).toBe(
      "/workspace/sub\n/workspace/sub\n",
    );
  });

  it("keeps output before anyone reads, for the first read", async () => {
    const exec = await peer.runner.exec({ source: "echo a; echo b", id: "late-reader" });
    // A head start, not a wait for a condition: the runner shows no "finished" but through the stream read
    // below. Too short a start only lets this read live output, and the check still holds.
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(output(await collect(exec.events), "stdout")).toBe("a\nb\n");
  });

  it("evicts a log past its cap: the live stream goes on, replays are ELOG_TRUNCATED", async () => {
    const small = await openPeer({ logMaxBytes: 8 });
    try {
      const exec = await small.runner.exec({ source: "echo 12345; echo 67890", id: "big" });
      expect(output(await collect(exec.events), "stdout")).toBe("12345\n67890\n");
      await rejectsWith(small.runner.getExec({ id: "big" }), "ELOG_TRUNCATED");
      expect(await collect((await small.runner.getExec({ id: "big", after: "tail" })).events)).toEqual([]);
    } finally {
      small.db.close();
    }
  });
});
