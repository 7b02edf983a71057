/**
 * Differential tests of the exec event wires (issue 19 row 16): the bytes
 * the published `@cloudflare/computer@0.2.1` (`computer-reference`) writes
 * and the bytes ours writes, for the same events, must be identical, and
 * each side must decode what the other encoded to the same events. Then the
 * stdin a command backend receives: the same original-shaped backend under
 * both Workspaces must be handed the same bytes.
 */
import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import {
  Workspace as ReferenceWorkspace,
  decodeExecEvents as referenceDecodeExecEvents,
  decodeRuntimeEvents as referenceDecodeRuntimeEvents,
  encodeExecEvents as referenceEncodeExecEvents,
  encodeRuntimeEvent as referenceEncodeRuntimeEvent,
} from "computer-reference";
import { describe, expect, it } from "vitest";
import { decodeExecEvents, encodeExecEvents } from "../../src/runtime/exec-wire.js";
import type { ExecEvent, WorkspaceExecEvent } from "../../src/runtime/types.js";
import { decodeRuntimeEvents, encodeRuntimeEvent } from "../../src/runtime/wire.js";
import { Workspace } from "../../src/workspace/workspace.worker.js";
import { referenceStorage } from "./main.worker.js";

const large = new Uint8Array(70_000).map((_, i) => (i * 31) % 256);

/** Every runtime event shape: utf8 and byte output, empty output, fractional seqs, exits with and without a result. */
const runtimeEvents: ExecEvent[] = [
  { id: "run-1", seq: 1, name: "stdout", value: "héllo 😀\n" },
  { id: "run-1", seq: 2, name: "stderr", value: Uint8Array.of(0, 255, 0xe2, 0x82) },
  { id: "run-1", seq: 3, name: "stdout", value: large },
  { id: "run-1", seq: 4, name: "stderr", value: "" },
  { id: "run-1", seq: 4.5, name: "stdout", value: "\ufffd" },
  { id: "run-1", seq: 5, name: "exit", code: 3 },
  { id: "run-2", seq: 1, name: "exit", code: 0, result: { answer: 42, list: [null, true, "x"] } },
  { id: "run-3", seq: 9, name: "exit", code: 1, result: null },
];

/** Every exec event shape, the exit status as `value` (zero and non-zero). */
const execEvents: WorkspaceExecEvent<"utf8" | undefined>[] = [
  { id: "e", seq: 1, name: "stdout", value: "out\n" },
  { id: "e", seq: 2, name: "stderr", value: Uint8Array.of(1, 2, 3, 250) },
  { id: "e", seq: 3, name: "stdout", value: large },
  { id: "e", seq: 4, name: "exit", value: 2 },
  { id: "f", seq: 1, name: "exit", value: 0 },
];

function streamOf<T>(items: readonly T[]): ReadableStream<T> {
  return new ReadableStream<T>({
    start(controller) {
      for (const item of items) controller.enqueue(item);
      controller.close();
    },
  });
}

async function readAll<T>(stream: ReadableStream<T>): Promise<T[]> {
  const all: T[] = [];
  for await (const item of stream as unknown as AsyncIterable<T>) all.push(item);
  return all;
}

async function concat(stream: ReadableStream<Uint8Array>): Promise<Uint8Array> {
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

/** The same bytes delivered in chunks of `size`, so lines and characters split across reads. */
function rechunk(bytes: Uint8Array, size: number): ReadableStream<Uint8Array> {
  const chunks: Uint8Array[] = [];
  for (let i = 0; i < bytes.length; i += size) chunks.push(bytes.slice(i, i + size));
  return streamOf(chunks);
}

/** One comparison instead of toEqual's per-element diff, which takes seconds at 70 KB. */
function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && a.every((byte, i) => byte === b[i]);
}

describe("the runtime wire against the original's", () => {
  it("encodes every event to the same bytes as encodeRuntimeEvent of the original", () => {
    for (const event of runtimeEvents) {
      // The reference's parameter type is its own event union; the values are the same objects.
      const theirs = referenceEncodeRuntimeEvent(event as Parameters<typeof referenceEncodeRuntimeEvent>[0]);
      expect(sameBytes(encodeRuntimeEvent(event), theirs), `${event.id} seq ${event.seq}`).toBe(true);
    }
  });

  it("decodes what the original encoded, and the original decodes what ours encoded", async () => {
    const theirBytes = runtimeEvents.map((event) =>
      referenceEncodeRuntimeEvent(event as Parameters<typeof referenceEncodeRuntimeEvent>[0]),
    );
    const ourBytes = runtimeEvents.map(encodeRuntimeEvent);
    const joined = (parts: Uint8Array[]) => concat(streamOf(parts));
    for (const size of [13, 4096]) {
      const oursOfTheirs = await readAll(decodeRuntimeEvents(rechunk(await joined(theirBytes), size)));
      const theirsOfOurs = await readAll(referenceDecodeRuntimeEvents(rechunk(await joined(ourBytes), size)));
      expect(oursOfTheirs).toEqual(runtimeEvents);
      expect(theirsOfOurs).toEqual(runtimeEvents);
    }
  });
});

describe("the exec wire against the original's", () => {
  it("encodes an exec event stream to the same bytes, exit status included", async () => {
    const theirs = await concat(
      referenceEncodeExecEvents(streamOf(execEvents) as Parameters<typeof referenceEncodeExecEvents>[0]),
    );
    const ours = await concat(encodeExecEvents(streamOf(execEvents)));
    expect(sameBytes(ours, theirs)).toBe(true);
    expect(new TextDecoder().decode(ours)).toContain('{"id":"e","seq":4,"name":"exit","value":2}\n');
  });

  it("decodes what the other side encoded to the same events", async () => {
    const theirBytes = await concat(
      referenceEncodeExecEvents(streamOf(execEvents) as Parameters<typeof referenceEncodeExecEvents>[0]),
    );
    const ourBytes = await concat(encodeExecEvents(streamOf(execEvents)));
    for (const size of [5, 4096]) {
      expect(await readAll(decodeExecEvents(rechunk(theirBytes, size)))).toEqual(execEvents);
      expect(await readAll(referenceDecodeExecEvents(rechunk(ourBytes, size)))).toEqual(execEvents);
    }
  });
});

/**
 * An original-shaped command backend (`{ id, type, connect }`, no `kind`)
 * that works on the workspace's storage (`sync: "none"`), records the stdin
 * each execution was handed and exits 0.
 */
function recordingBackend(seen: unknown[]) {
  const shell = {
    async exec(input: { id?: string; stdin?: unknown }) {
      seen.push(input.stdin);
      const id = input.id ?? "generated";
      return { id, events: streamOf([{ id, seq: 1, name: "exit" as const, code: 0 }]) };
    },
    getExec: async () => {
      throw new Error("not used");
    },
    killExec: async () => {},
    disposeExec: async () => {},
  };
  const unused = new Proxy({}, { get: () => () => Promise.reject(new Error("sync is not used")) });
  return {
    id: "recording",
    type: "recording",
    async connect() {
      return { rpc: { sync: unused, shell }, sync: "none" as const, close: async () => {} };
    },
  };
}

async function stdinSeen(side: "reference" | "ours", stdin: string | Uint8Array): Promise<unknown> {
  const stub = env.COMPAT_SCRATCH.get(env.COMPAT_SCRATCH.newUniqueId());
  return runInDurableObject(stub, async (_instance, state) => {
    const seen: unknown[] = [];
    // Cast: the shell is typed loosely here, a backend of either package at run time.
    const backend = recordingBackend(seen);
    const workspace =
      side === "reference"
        ? new ReferenceWorkspace({ storage: referenceStorage(state.storage), backends: [backend as never] })
        : new Workspace({ storage: state.storage, backends: [backend as never] });
    const handle = await workspace.runtime.exec("cat", { stdin, backend: "recording" });
    expect((await handle.result()).exitCode).toBe(0);
    return seen[0];
  });
}

describe("stdin reaching a command backend", () => {
  it("is UTF-8 bytes for a string, on both sides", async () => {
    const theirs = await stdinSeen("reference", "piped é");
    const ours = await stdinSeen("ours", "piped é");
    expect(theirs).toBeInstanceOf(Uint8Array);
    expect(ours).toBeInstanceOf(Uint8Array);
    expect(new TextDecoder().decode(ours as Uint8Array)).toBe("piped é");
    expect(sameBytes(ours as Uint8Array, theirs as Uint8Array)).toBe(true);
  });

  it("is the same bytes when given bytes", async () => {
    const given = Uint8Array.of(0, 0xff, 10);
    const theirs = await stdinSeen("reference", given);
    const ours = await stdinSeen("ours", given);
    expect(sameBytes(ours as Uint8Array, given)).toBe(true);
    expect(sameBytes(theirs as Uint8Array, given)).toBe(true);
  });
});
