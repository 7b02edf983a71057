import { describe, expect, it } from "vitest";
import { byteByByte, bytes, err, exit, out, readAll, sourceOf } from "../../test/events.js";
import { ExecHandle, type ExecHandleOptions } from "./handle.js";
import type { ExecEvent, ExecExitEvent, KillSignal } from "./types.js";

function handleOf(events: ExecEvent[], options: Partial<ExecHandleOptions> = {}) {
  const source = sourceOf(events);
  const handle = new ExecHandle(source.stream, {
    id: "x",
    backend: "test-backend",
    kill: async () => {},
    ...options,
  });
  return { handle, source };
}

describe("ExecHandle", () => {
  it("is a ReadableStream of the events, with id and backend", async () => {
    const { handle } = handleOf([out(1, "hi"), exit(2, 0)]);
    expect(handle).toBeInstanceOf(ReadableStream);
    expect(handle.id).toBe("x");
    expect(handle.backend).toBe("test-backend");
    expect(await readAll(handle)).toEqual([out(1, "hi"), exit(2, 0)]);
  });

  it("reads nothing from the source until asked (highWaterMark 0)", async () => {
    const { handle, source } = handleOf([out(1, "a"), out(2, "b"), exit(3, 0)]);
    await Promise.resolve();
    expect(source.pulled()).toBe(0);
    const reader = handle.getReader();
    await reader.read();
    expect(source.pulled()).toBe(1);
  });

  it("collects utf8 output as strings, split characters intact, stdout and stderr apart", async () => {
    const { handle } = handleOf(
      [
        ...byteByByte("é").flatMap((chunk, i) => [
          out(2 * i + 1, chunk),
          err(2 * i + 2, byteByByte("😀")[i] as Uint8Array),
        ]),
        err(5, byteByByte("😀")[2] as Uint8Array),
        err(6, byteByByte("😀")[3] as Uint8Array),
        out(20, bytes("é")),
        err(21, bytes("😀")),
        exit(22, 0),
      ],
      { encoding: "utf8" },
    );
    const result = await handle.result();
    expect(result.stdout).toBe("éé");
    expect(result.stderr).toBe("😀😀");
    expect(result).toMatchObject({ status: "completed", exitCode: 0 });
  });

  it("concatenates bytes when no encoding is given", async () => {
    const { handle } = handleOf([out(1, bytes("ab")), err(2, bytes("e")), out(3, bytes("c")), exit(4, 1)]);
    const result = await handle.result();
    expect(result.stdout).toEqual(bytes("abc"));
    expect(result.stderr).toEqual(bytes("e"));
    expect(result).toMatchObject({ status: "failed", exitCode: 1 });
  });

  it("reports exitCode −1 and failed when the stream ends without an exit event", async () => {
    const { handle } = handleOf([out(1, "partial")], { encoding: "utf8" });
    expect(await handle.result()).toMatchObject({ status: "failed", exitCode: -1, stdout: "partial" });
  });

  it("reads a kill signal exit as cancelled, and takes value from the exit event's result", async () => {
    expect(await handleOf([exit(1, 143)]).handle.result()).toMatchObject({ status: "cancelled", exitCode: 143 });
    const callable = await handleOf([exit(1, 0, { answer: 42 })]).handle.result();
    expect(callable.value).toEqual({ answer: 42 });
    const command = await handleOf([exit(1, 0)]).handle.result();
    expect("value" in command).toBe(false);
  });

  it("takes the sync fields from finish, called once with the exit event", async () => {
    const seen: Array<ExecExitEvent | undefined> = [];
    const { handle } = handleOf([out(1, "a"), exit(2, 0)], {
      finish: async (exitEvent) => {
        seen.push(exitEvent);
        return { pushed: 3, pulled: 2, skipped: [], sync: { status: "pending", applied: 0, skipped: [], error: "x" } };
      },
    });
    const result = await handle.result();
    expect(seen).toEqual([exit(2, 0)]);
    expect(result).toMatchObject({ pushed: 3, pulled: 2, sync: { status: "pending", error: "x" } });
    await handle.result();
    expect(seen).toHaveLength(1);
  });

  it("defaults the sync fields to an empty, complete sync", async () => {
    const result = await handleOf([exit(1, 0)]).handle.result();
    expect(result).toMatchObject({
      pushed: 0,
      pulled: 0,
      skipped: [],
      sync: { status: "complete", applied: 0, skipped: [] },
    });
  });

  it("memoizes result()", async () => {
    const { handle, source } = handleOf([out(1, "a"), exit(2, 0)]);
    const first = handle.result();
    expect(handle.result()).toBe(first);
    await first;
    expect(handle.result()).toBe(first);
    expect(source.pulled()).toBe(3);
  });

  it("throws from result() once reading the stream started", async () => {
    const { handle } = handleOf([out(1, "a"), exit(2, 0)]);
    await handle.getReader().read();
    expect(() => handle.result()).toThrow(/result\(\) cannot be called after reading the stream started/);
  });

  it("errors the stream when it is read after result()", async () => {
    const { handle } = handleOf([out(1, "a"), exit(2, 0)]);
    const result = handle.result();
    await expect(handle.getReader().read()).rejects.toThrow(/cannot be read after result\(\) was called/);
    expect((await result).stdout).toEqual(bytes("a"));
  });

  it("forwards kill with its signal", async () => {
    const signals: Array<KillSignal | undefined> = [];
    const { handle } = handleOf([], { kill: async (signal) => void signals.push(signal) });
    await handle.kill("SIGINT");
    await handle.kill();
    expect(signals).toEqual(["SIGINT", undefined]);
  });

  it("cancels the source on dispose, whether or not the stream is locked", async () => {
    const idle = handleOf([out(1, "a"), exit(2, 0)]);
    idle.handle[Symbol.dispose]();
    await Promise.resolve();
    expect(idle.source.canceled()).toBeUndefined();

    const reading = handleOf([out(1, "a"), exit(2, 0)], { encoding: "utf8" });
    const reader = reading.handle.getReader();
    await reader.read();
    reading.handle[Symbol.dispose]();
    await Promise.resolve();
    expect(reading.source.canceled()).toBeUndefined();
    expect(await reader.read()).toEqual({ done: true, value: undefined });
  });

  it("runs finish once the stream drained, before it closes", async () => {
    const order: string[] = [];
    const { handle } = handleOf([out(1, "a"), exit(2, 0)], {
      finish: async () => {
        order.push("finish");
        return {
          pushed: 0,
          pulled: 1,
          skipped: [],
          sync: { status: "complete", applied: 1, skipped: [] },
        };
      },
    });
    const reader = handle.getReader();
    for (;;) {
      const next = await reader.read();
      order.push(next.done ? "closed" : next.value.name);
      if (next.done) break;
    }
    expect(order).toEqual(["stdout", "exit", "finish", "closed"]);
  });

  it("hands a stream reader the sync summary once the events drained", async () => {
    const summary = {
      pushed: 2,
      pulled: 1,
      skipped: [],
      sync: { status: "complete" as const, applied: 1, skipped: [] },
    };
    const { handle } = handleOf([out(1, "a"), exit(2, 0)], { finish: async () => summary });
    let settled = false;
    const pending = handle.summary().then((value) => {
      settled = true;
      return value;
    });
    const reader = handle.getReader();
    await reader.read();
    await Promise.resolve();
    expect(settled).toBe(false);
    let next = await reader.read();
    while (!next.done) next = await reader.read();
    expect(await pending).toEqual(summary);
    // After result() it is the result's sync fields.
    const other = handleOf([exit(1, 0)], { finish: async () => summary }).handle;
    await other.result();
    expect(await other.summary()).toEqual(summary);
  });

  it("rejects the summary when the stream is canceled before the execution settled", async () => {
    const { handle } = handleOf([out(1, "a"), exit(2, 0)]);
    const reader = handle.getReader();
    await reader.read();
    await reader.cancel();
    await expect(handle.summary()).rejects.toThrow(/canceled before the execution settled/);
  });

  it("keeps draining after a cancel when asked to, so finish still sees the exit", async () => {
    let seen: ExecExitEvent | undefined;
    let finished!: () => void;
    const done = new Promise<void>((resolve) => {
      finished = resolve;
    });
    const { handle, source } = handleOf([out(1, "a"), out(2, "b"), exit(3, 7)], {
      onCancel: "drain",
      finish: async (exitEvent) => {
        seen = exitEvent;
        finished();
        return { pushed: 0, pulled: 0, skipped: [], sync: { status: "complete", applied: 0, skipped: [] } };
      },
    });
    const reader = handle.getReader();
    await reader.read();
    await reader.cancel();
    await done;
    expect(seen).toEqual(exit(3, 7));
    expect(source.canceled()).toBe("not canceled");
  });

  it("detaches on cancel by default and reports it", async () => {
    let canceled = 0;
    const { handle, source } = handleOf([out(1, "a"), exit(2, 0)], { canceled: () => void canceled++ });
    const reader = handle.getReader();
    await reader.read();
    await reader.cancel("bye");
    expect(source.canceled()).toBe("bye");
    expect(canceled).toBe(1);
  });

  it("collects a full replay for result() when the stream was resumed mid-way", async () => {
    const full = sourceOf([out(1, "a"), out(2, "b"), exit(3, 0)]);
    const { handle, source } = handleOf([out(2, "b"), exit(3, 0)], {
      encoding: "utf8",
      replay: async () => full.stream,
    });
    const result = await handle.result();
    expect(result.stdout).toBe("ab");
    expect(source.canceled()).toBeUndefined();
  });
});
