/**
 * The binary frame codec on its own: round trips, marker collisions and every
 * way a frame can be malformed. The same frames over a real socket are in
 * session.binary.node.test.ts.
 */
import { describe, expect, test } from "vitest";
import { decodeFrame, FrameEncoder } from "./frames.js";

function binary(frame: string | ArrayBuffer): Uint8Array {
  if (typeof frame === "string") throw new Error("expected a binary frame");
  return new Uint8Array(frame);
}

function nonceOf(frame: Uint8Array): string {
  const view = new DataView(frame.buffer, frame.byteOffset);
  const start = 12 + 4 * view.getUint32(8, true);
  return String.fromCharCode(...frame.subarray(start, start + (frame[1] as number)));
}

/** A frame written by hand: `json` is the text after marker substitution. */
function handFrame(nonce: string, json: string, segments: Uint8Array[], patch?: (view: DataView) => void): Uint8Array {
  const text = new TextEncoder().encode(json);
  const start = 12 + 4 * segments.length;
  const total = start + nonce.length + text.length + segments.reduce((sum, segment) => sum + segment.length, 0);
  const frame = new Uint8Array(total);
  const view = new DataView(frame.buffer);
  view.setUint8(0, 1);
  view.setUint8(1, nonce.length);
  view.setUint32(4, text.length, true);
  view.setUint32(8, segments.length, true);
  segments.forEach((segment, i) => {
    view.setUint32(12 + 4 * i, segment.length, true);
  });
  frame.set(new TextEncoder().encode(nonce), start);
  let offset = start + nonce.length;
  frame.set(text, offset);
  offset += text.length;
  for (const segment of segments) {
    frame.set(segment, offset);
    offset += segment.length;
  }
  patch?.(view);
  return frame;
}

describe("FrameEncoder", () => {
  test("a message without bytes is the JSON text capnweb's string level sends", () => {
    const message = ["push", ["pipeline", 0, ["sync", "watermarks"], [[{ a: "x", b: [[1, 2]] }]]]];
    expect(new FrameEncoder().encode(message)).toBe(JSON.stringify(message));
  });

  test("bytes round-trip in place, nested, without touching the message", () => {
    const small = new Uint8Array([1, 2, 3]);
    const large = new Uint8Array(4096).map((_, i) => i % 251);
    const message = [
      "push",
      { list: [["bytes", small], { deep: ["bytes", new Uint8Array(0)] }], big: ["bytes", large] },
    ];
    const before = structuredClone(message);
    const frame = binary(new FrameEncoder().encode(message));
    expect(message).toEqual(before);
    expect(message[1]).toMatchObject({ big: ["bytes", large] });
    expect(decodeFrame(frame)).toEqual(message);
  });

  test("a string equal to the nonce makes the encoder pick another one", () => {
    const encoder = new FrameEncoder();
    const first = nonceOf(binary(encoder.encode([new Uint8Array(1)])));
    const forged = { s: first, marker: [first, 0], wrapped: [[first, 0]], bytes: new Uint8Array([7]) };
    const frame = binary(encoder.encode(forged));
    expect(nonceOf(frame)).not.toBe(first);
    expect(decodeFrame(frame)).toEqual(forged);
  });

  test("a key named __proto__ stays an own property", () => {
    const value = {};
    Object.defineProperty(value, "__proto__", { value: new Uint8Array([1]), enumerable: true, writable: true });
    const decoded = decodeFrame(binary(new FrameEncoder().encode(value))) as Record<string, unknown>;
    expect(Object.getPrototypeOf(decoded)).toBe(Object.prototype);
    expect(Object.getOwnPropertyDescriptor(decoded, "__proto__")?.value).toEqual(new Uint8Array([1]));
  });
});

describe("decodeFrame refuses malformed frames with EPROTOCOL", () => {
  const nonce = "n".repeat(32);
  const one = [new Uint8Array([1, 2])];
  const cases: [name: string, reason: string, frame: Uint8Array][] = [
    ["shorter than a header", "shorter than a header", new Uint8Array(5)],
    ["an unknown version", "unknown version 2", handFrame(nonce, `["${nonce}",0]`, one, (view) => view.setUint8(0, 2))],
    ["an empty nonce", "bad nonce length", handFrame("", "[1]", one, (view) => view.setUint8(1, 0))],
    [
      "a JSON length past the end",
      "header overruns",
      handFrame(nonce, `["${nonce}",0]`, one, (view) => view.setUint32(4, 1e6, true)),
    ],
    [
      "a segment past the end",
      "segments overrun",
      handFrame(nonce, `["${nonce}",0]`, one, (view) => view.setUint32(12, 3, true)),
    ],
    [
      "trailing bytes",
      "1 trailing bytes",
      handFrame(nonce, `["${nonce}",0]`, one, (view) => view.setUint32(12, 1, true)),
    ],
    [
      "a segment count past the end",
      "header overruns",
      handFrame(nonce, `["${nonce}",0]`, one, (view) => view.setUint32(8, 2 ** 30, true)),
    ],
    ["bad JSON", "bad JSON (SyntaxError", handFrame(nonce, `["${nonce}",0`, one)],
    // The "x" (JSON offset 41, after the 12 + 4 header bytes and the nonce) becomes 0xff.
    [
      "invalid UTF-8",
      "bad JSON (TypeError",
      handFrame(nonce, `[["${nonce}",0],"x"]`, one, (view) => view.setUint8(16 + 32 + 41, 0xff)),
    ],
    ["a marker past the segments", "marker for segment 1 of 1", handFrame(nonce, `["${nonce}",1]`, one)],
    ["a fractional marker", "marker for segment 0.5", handFrame(nonce, `["${nonce}",0.5]`, one)],
    ["a segment marked twice", "segment 0 marked twice", handFrame(nonce, `[["${nonce}",0],["${nonce}",0]]`, one)],
    ["a segment never marked", "1 segments without a marker", handFrame(nonce, "[1]", one)],
    ["the nonce outside a marker", "the nonce outside a marker", handFrame(nonce, `[["${nonce}",0],"${nonce}"]`, one)],
  ];
  test.each(cases)("%s", (_name, reason, frame) => {
    expect(() => decodeFrame(frame)).toThrow(
      expect.objectContaining({ code: "EPROTOCOL", message: expect.stringContaining(reason) }),
    );
  });
});
