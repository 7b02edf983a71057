import { describe, expect, it } from "vitest";
import { bytes, err, exit, out, readAll, sourceOf } from "../../test/events.js";
import { decodeExecEventLine, decodeExecEvents, encodeExecEventLine, encodeExecEvents } from "./exec-wire.js";
import type { ExecEvent, WorkspaceExecEvent } from "./types.js";
import {
  decodeRuntimeEventLine,
  decodeRuntimeEvents,
  encodeRuntimeEvent,
  encodeRuntimeEventLine,
  encodeRuntimeEvents,
} from "./wire.js";

/** A byte stream delivering `chunks` one per pull. */
function chunked(chunks: Uint8Array[]): ReadableStream<Uint8Array> {
  let index = 0;
  return new ReadableStream<Uint8Array>(
    {
      pull(controller) {
        const chunk = chunks[index++];
        if (chunk === undefined) controller.close();
        else controller.enqueue(chunk);
      },
    },
    { highWaterMark: 0 },
  );
}

const text = (lines: string): ReadableStream<Uint8Array> => chunked([bytes(lines)]);

describe("the runtime wire (runtime events as NDJSON)", () => {
  it("writes strings as utf8, bytes as base64, and exit with code and result", () => {
    expect(encodeRuntimeEventLine(out(1, "hé"))).toBe('{"id":"x","seq":1,"name":"stdout","enc":"utf8","value":"hé"}\n');
    expect(encodeRuntimeEventLine(err(2, Uint8Array.of(0, 255, 0xc3)))).toBe(
      '{"id":"x","seq":2,"name":"stderr","enc":"b64","value":"AP/D"}\n',
    );
    expect(encodeRuntimeEventLine(exit(3, 0))).toBe('{"id":"x","seq":3,"name":"exit","code":0}\n');
    expect(encodeRuntimeEventLine(exit(3, 0, { n: 42 }))).toBe(
      '{"id":"x","seq":3,"name":"exit","code":0,"result":{"n":42}}\n',
    );
  });

  it("encodeRuntimeEvent is the line as UTF-8 bytes", () => {
    expect(new TextDecoder().decode(encodeRuntimeEvent(exit(3, 0, "ok")))).toBe(
      encodeRuntimeEventLine(exit(3, 0, "ok")),
    );
  });

  it("round-trips every event shape, fractional seqs, raw bytes and a null result", async () => {
    const events: ExecEvent[] = [
      out(1, "plain"),
      out(2, Uint8Array.of(0xe2, 0x82)),
      err(3, "é😀"),
      out(4.5, "\ufffd"),
      err(4.75, Uint8Array.of()),
      exit(5, 130, null),
    ];
    const decoded: ExecEvent[] = await readAll(decodeRuntimeEvents(encodeRuntimeEvents(sourceOf(events).stream)));
    expect(decoded).toEqual(events);
    expect(decoded[1]?.name === "stdout" && decoded[1].value).toBeInstanceOf(Uint8Array);
  });

  it("round-trips a chunk larger than one base64 slice byte for byte", async () => {
    const large = new Uint8Array(100_000).map((_, i) => (i * 7) % 256);
    const [event]: ExecEvent[] = await readAll(
      decodeRuntimeEvents(encodeRuntimeEvents(sourceOf([out(1, large)]).stream)),
    );
    const value = event?.name === "stdout" ? event.value : undefined;
    expect(value).toBeInstanceOf(Uint8Array);
    // One comparison instead of toEqual's per-element diff, which takes seconds at this size.
    expect((value as Uint8Array).every((byte, i) => byte === large[i]) && (value as Uint8Array).length).toBe(
      large.length,
    );
  });

  it("reassembles lines split anywhere, inside a line or inside a character", async () => {
    const events = [out(1, "ab😀"), err(2, Uint8Array.of(1, 2, 3)), exit(3, 0, "done")];
    const all = bytes(events.map(encodeRuntimeEventLine).join(""));
    const oneByteChunks = [...all].map((byte) => Uint8Array.of(byte));
    expect(await readAll(decodeRuntimeEvents(chunked(oneByteChunks)))).toEqual(events);
  });

  it("accepts a last line without its newline and skips blank lines", async () => {
    const lines = `\n${encodeRuntimeEventLine(out(1, "a"))}\n  \n${encodeRuntimeEventLine(exit(2, 0)).trimEnd()}`;
    expect(await readAll(decodeRuntimeEvents(text(lines)))).toEqual([out(1, "a"), exit(2, 0)]);
  });

  it("reads nothing from the source before the consumer asks", async () => {
    const source = sourceOf([out(1, "a"), exit(2, 0)]);
    const reader = encodeRuntimeEvents(source.stream).getReader();
    expect(source.pulled()).toBe(0);
    await reader.read();
    expect(source.pulled()).toBe(1);
  });

  it("errors the stream on a malformed line, naming the line and the problem", async () => {
    const cases: Array<[string, RegExp]> = [
      ["{not json", /line 2: not JSON: \{not json/],
      ["[1,2]", /line 2: not an object/],
      ['{"id":1,"seq":1,"name":"stdout","enc":"utf8","value":""}', /line 2: id must be a string/],
      ['{"id":"x","seq":"1","name":"stdout","enc":"utf8","value":""}', /line 2: seq must be a number/],
      ['{"id":"x","seq":1,"name":"stdin","enc":"utf8","value":""}', /line 2: name must be/],
      ['{"id":"x","seq":1,"name":"stdout","enc":"hex","value":"00"}', /line 2: enc must be "utf8" or "b64"/],
      ['{"id":"x","seq":1,"name":"stdout","enc":"b64","value":"%%%"}', /line 2: value is not base64/],
      ['{"id":"x","seq":1,"name":"stdout","enc":"utf8"}', /line 2: value must be a string/],
      ['{"id":"x","seq":1,"name":"exit","code":1.5}', /line 2: exit code must be an integer/],
    ];
    for (const [line, message] of cases) {
      const reader = decodeRuntimeEvents(text(`${encodeRuntimeEventLine(out(1, "ok"))}${line}\n`)).getReader();
      expect(await reader.read()).toEqual({ done: false, value: out(1, "ok") });
      await expect(reader.read()).rejects.toThrow(message);
    }
    expect(() => decodeRuntimeEventLine("")).toThrow(/Malformed exec event on NDJSON line 1: not JSON/);
  });

  it("cancels the byte source when the event stream is canceled", async () => {
    let canceled: unknown = "no";
    const source = new ReadableStream<Uint8Array>({
      pull(controller) {
        controller.enqueue(bytes(encodeRuntimeEventLine(out(1, "a"))));
      },
      cancel(reason) {
        canceled = reason;
      },
    });
    const reader = decodeRuntimeEvents(source).getReader();
    await reader.read();
    await reader.cancel("stop");
    expect(canceled).toBe("stop");
  });
});

/** The original's exec wire: the exit status travels as the exit event's `value`. */
describe("the exec wire (WorkspaceExecEvent as NDJSON)", () => {
  const execEvents: WorkspaceExecEvent<"utf8" | undefined>[] = [
    { id: "x", seq: 1, name: "stdout", value: "hé" },
    { id: "x", seq: 2, name: "stderr", value: Uint8Array.of(0, 255, 0xc3) },
    { id: "x", seq: 3, name: "exit", value: 7 },
  ];

  function streamOf<T>(items: T[]): ReadableStream<T> {
    return new ReadableStream<T>({
      start(controller) {
        for (const item of items) controller.enqueue(item);
        controller.close();
      },
    });
  }

  it("writes the exit status as value, output as in the runtime wire", () => {
    expect(execEvents.map(encodeExecEventLine).join("")).toBe(
      '{"id":"x","seq":1,"name":"stdout","enc":"utf8","value":"hé"}\n' +
        '{"id":"x","seq":2,"name":"stderr","enc":"b64","value":"AP/D"}\n' +
        '{"id":"x","seq":3,"name":"exit","value":7}\n',
    );
  });

  it("round-trips an exit status, zero included", async () => {
    const events = [...execEvents, { id: "y", seq: 1, name: "exit", value: 0 } as const];
    expect(await readAll(decodeExecEvents(encodeExecEvents(streamOf(events))))).toEqual(events);
  });

  it("rejects an exit frame without an integer value, after the events before it", async () => {
    const reader = decodeExecEvents(
      text(
        `${encodeExecEventLine(execEvents[0] as WorkspaceExecEvent<"utf8">)}{"id":"x","seq":2,"name":"exit","code":0}\n`,
      ),
    ).getReader();
    expect((await reader.read()).value).toEqual(execEvents[0]);
    await expect(reader.read()).rejects.toThrow(/line 2: exit value must be an integer/);
    expect(() => decodeExecEventLine('{"id":"x","seq":1,"name":"exit","value":"0"}')).toThrow(
      /exit value must be an integer/,
    );
  });
});
