import { describe, expect, it } from "vitest";
import { byteByByte, bytes, err, exit, out, readAll, sourceOf } from "../../test/events.js";
import { decodeUtf8Events, Utf8EventDecoder } from "./decode.js";
import type { ExecEvent } from "./types.js";

const decodeAll = (events: ExecEvent[]): Promise<ExecEvent[]> => readAll(decodeUtf8Events(sourceOf(events).stream));

describe("utf8 decoding", () => {
  it("never splits a character across events, with stdout and stderr independent", async () => {
    // "é" (2 bytes) on stdout and "😀" (4 bytes) on stderr, byte by byte, interleaved.
    const e = byteByByte("é");
    const g = byteByByte("😀");
    const events = await decodeAll([
      out(1, bytes("a")),
      out(2, e[0] as Uint8Array),
      err(3, g[0] as Uint8Array),
      err(4, g[1] as Uint8Array),
      out(5, e[1] as Uint8Array),
      err(6, g[2] as Uint8Array),
      err(7, g[3] as Uint8Array),
      out(8, bytes("b")),
      exit(9, 0),
    ]);
    expect(events).toEqual([out(1, "a"), out(5, "é"), err(7, "😀"), out(8, "b"), exit(9, 0)]);
  });

  it("keeps a character whole when a chunk boundary falls inside it alongside other text", async () => {
    const all = bytes("xé😀y");
    const events = await decodeAll([
      out(1, all.slice(0, 2)),
      out(2, all.slice(2, 5)),
      out(3, all.slice(5)),
      exit(4, 0),
    ]);
    expect(events).toEqual([out(1, "x"), out(2, "é"), out(3, "😀y"), exit(4, 0)]);
  });

  it("flushes partial tails before exit at exit.seq − 0.5 (stdout) and − 0.25 (stderr)", async () => {
    const e = bytes("é");
    const g = bytes("😀");
    const events = await decodeAll([out(1, e.slice(0, 1)), err(2, g.slice(0, 3)), exit(3, 1)]);
    expect(events).toEqual([out(2.5, "\uFFFD"), err(2.75, "\uFFFD"), exit(3, 1)]);
  });

  it("flushes tails after the last event when there is no exit", async () => {
    const events = await decodeAll([out(1, bytes("ok")), err(2, bytes("é").slice(0, 1))]);
    expect(events).toEqual([out(1, "ok"), err(2.5, "\uFFFD")]);
  });

  it("drops events that decode to an empty string, and passes string values through", async () => {
    const events = await decodeAll([out(1, new Uint8Array()), err(2, ""), out(3, "already text"), exit(4, 0)]);
    expect(events).toEqual([out(3, "already text"), exit(4, 0)]);
  });

  it("keeps the exit event's result", () => {
    const decoder = new Utf8EventDecoder();
    expect(decoder.push(exit(1, 0, { answer: 42 }))).toEqual([exit(1, 0, { answer: 42 })]);
    expect(decoder.end()).toEqual([]);
  });

  it("cancels the source when the decoded stream is canceled", async () => {
    const source = sourceOf([out(1, bytes("a")), exit(2, 0)]);
    await decodeUtf8Events(source.stream).cancel("done");
    expect(source.canceled()).toBe("done");
  });
});
