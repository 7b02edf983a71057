/**
 * The session's wire encoding. The transport runs capnweb at encoding level
 * "jsonCompatibleWithBytes", so messages arrive here as JSON-compatible value
 * trees in which byte arrays are still `Uint8Array`s.
 *
 * - A message with no `Uint8Array` is one text frame: `JSON.stringify` of the
 *   tree, byte for byte what capnweb's default "string" level sends.
 * - A message with bytes is one binary frame (integers little-endian):
 *
 *       offset 0        u8   format version, 1
 *              1        u8   nonce length N, 1–255 (we send 32)
 *              2        u16  reserved, 0
 *              4        u32  JSON length J, in UTF-8 bytes
 *              8        u32  segment count K
 *              12       u32  × K  segment lengths, in bytes
 *              12+4K    N bytes  nonce, ASCII
 *              …        J bytes  JSON, UTF-8
 *              …        the K segments back to back; the frame ends with the last
 *
 *   In the JSON, the i-th `Uint8Array` met in a depth-first walk is replaced by
 *   the marker `[nonce, i]`.
 *
 * Why markers cannot collide with user data: the nonce is 128 random bits,
 * and, not relying on chance, the encoder also walks every string in the
 * message and picks a fresh nonce if any string equals it. So in a frame, the
 * nonce string occurs only as the first element of markers, whatever capnweb's
 * own escaping does (it wraps user arrays as `[[…]]` today; this does not
 * depend on that). The decoder enforces the same: a two-element array starting
 * with the nonce must be a marker for an unused segment, the nonce anywhere
 * else is malformed, and every segment must be used exactly once.
 */
import { rpcError } from "./errors.js";

const VERSION = 1;
const FIXED_HEADER = 12;
const NONCE_BYTES = 16;
const utf8 = new TextEncoder();
/** A frame with invalid UTF-8, or a BOM, is malformed rather than silently repaired. */
const strictUtf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

/** Encodes capnweb messages; owns the nonce, which changes only when a message contains it. */
export class FrameEncoder {
  #nonce = randomNonce();

  /** A text frame, or a binary frame whose `ArrayBuffer` is exactly the frame (nothing else shares it). */
  encode(message: unknown): string | ArrayBuffer {
    for (;;) {
      const walk: EncodeWalk = { nonce: this.#nonce, segments: [], collided: false };
      const tree = replaceBytes(message, walk);
      if (walk.segments.length === 0) return JSON.stringify(message);
      if (walk.collided) {
        this.#nonce = randomNonce();
        continue;
      }
      return buildFrame(walk.nonce, utf8.encode(JSON.stringify(tree)), walk.segments);
    }
  }
}

/**
 * Decodes one binary frame. `frame` must be memory this message owns alone:
 * the `Uint8Array`s returned inside the value are views into it, not copies.
 * Throws EPROTOCOL on anything malformed.
 */
export function decodeFrame(frame: Uint8Array): unknown {
  if (frame.byteLength < FIXED_HEADER) throw malformed(`${frame.byteLength} bytes is shorter than a header`);
  const view = new DataView(frame.buffer, frame.byteOffset, frame.byteLength);
  const version = view.getUint8(0);
  if (version !== VERSION) throw malformed(`unknown version ${version}`);
  const nonceLength = view.getUint8(1);
  if (nonceLength === 0 || view.getUint16(2, true) !== 0) throw malformed("bad nonce length or reserved bits");
  const jsonLength = view.getUint32(4, true);
  const count = view.getUint32(8, true);
  const nonceStart = FIXED_HEADER + 4 * count;
  if (nonceStart + nonceLength + jsonLength > frame.byteLength) throw malformed("header overruns the frame");
  let offset = nonceStart + nonceLength + jsonLength;
  const segments: Uint8Array[] = [];
  for (let i = 0; i < count; i++) {
    const length = view.getUint32(FIXED_HEADER + 4 * i, true);
    if (offset + length > frame.byteLength) throw malformed("segments overrun the frame");
    segments.push(new Uint8Array(frame.buffer, frame.byteOffset + offset, length));
    offset += length;
  }
  if (offset !== frame.byteLength) throw malformed(`${frame.byteLength - offset} trailing bytes`);
  const nonce = String.fromCharCode(...frame.subarray(nonceStart, nonceStart + nonceLength));
  let tree: unknown;
  try {
    tree = JSON.parse(
      strictUtf8.decode(frame.subarray(nonceStart + nonceLength, nonceStart + nonceLength + jsonLength)),
    );
  } catch (error) {
    throw malformed(`bad JSON (${String(error)})`);
  }
  const walk: DecodeWalk = { nonce, segments, used: new Array<boolean>(count).fill(false), unused: count };
  const value = restoreBytes(tree, walk);
  if (walk.unused !== 0) throw malformed(`${walk.unused} segments without a marker`);
  return value;
}

interface EncodeWalk {
  nonce: string;
  segments: Uint8Array[];
  collided: boolean;
}

/** Copy-on-write: capnweb's message is left untouched, and subtrees without bytes are shared, not copied. */
function replaceBytes(value: unknown, walk: EncodeWalk): unknown {
  if (typeof value === "string") {
    if (value === walk.nonce) walk.collided = true;
    return value;
  }
  if (value === null || typeof value !== "object") return value;
  if (value instanceof Uint8Array) {
    walk.segments.push(value);
    return [walk.nonce, walk.segments.length - 1];
  }
  if (Array.isArray(value)) {
    let copy: unknown[] | undefined;
    for (let i = 0; i < value.length; i++) {
      const item: unknown = value[i];
      const replaced = replaceBytes(item, walk);
      if (replaced === item) continue;
      copy ??= value.slice();
      copy[i] = replaced;
    }
    return copy ?? value;
  }
  let copy: Record<string, unknown> | undefined;
  for (const [key, item] of Object.entries(value)) {
    const replaced = replaceBytes(item, walk);
    if (replaced === item) continue;
    copy ??= { ...value };
    setOwn(copy, key, replaced);
  }
  return copy ?? value;
}

/** One allocation for the whole frame; the segments are copied into it once. */
function buildFrame(nonce: string, json: Uint8Array, segments: Uint8Array[]): ArrayBuffer {
  const nonceStart = FIXED_HEADER + 4 * segments.length;
  let total = nonceStart + nonce.length + json.byteLength;
  for (const segment of segments) total += segment.byteLength;
  const frame = new Uint8Array(total);
  const view = new DataView(frame.buffer);
  view.setUint8(0, VERSION);
  view.setUint8(1, nonce.length);
  view.setUint32(4, json.byteLength, true);
  view.setUint32(8, segments.length, true);
  segments.forEach((segment, i) => {
    view.setUint32(FIXED_HEADER + 4 * i, segment.byteLength, true);
  });
  for (let i = 0; i < nonce.length; i++) frame[nonceStart + i] = nonce.charCodeAt(i);
  let offset = nonceStart + nonce.length;
  frame.set(json, offset);
  offset += json.byteLength;
  for (const segment of segments) {
    frame.set(segment, offset);
    offset += segment.byteLength;
  }
  return frame.buffer;
}

interface DecodeWalk {
  nonce: string;
  segments: Uint8Array[];
  used: boolean[];
  unused: number;
}

/** In place: the tree is our own `JSON.parse` result. */
function restoreBytes(value: unknown, walk: DecodeWalk): unknown {
  if (typeof value === "string") {
    if (value === walk.nonce) throw malformed("the nonce outside a marker");
    return value;
  }
  if (value === null || typeof value !== "object") return value;
  if (Array.isArray(value)) {
    if (value.length === 2 && value[0] === walk.nonce) return segmentFor(value[1], walk);
    for (let i = 0; i < value.length; i++) value[i] = restoreBytes(value[i], walk);
    return value;
  }
  const record = value as Record<string, unknown>;
  for (const key of Object.keys(record)) {
    const item = record[key];
    const restored = restoreBytes(item, walk);
    if (restored !== item) setOwn(record, key, restored);
  }
  return record;
}

function segmentFor(index: unknown, walk: DecodeWalk): Uint8Array {
  if (typeof index !== "number" || !Number.isInteger(index) || index < 0 || index >= walk.segments.length) {
    throw malformed(`marker for segment ${String(index)} of ${walk.segments.length}`);
  }
  if (walk.used[index]) throw malformed(`segment ${index} marked twice`);
  walk.used[index] = true;
  walk.unused--;
  return walk.segments[index] as Uint8Array;
}

/** Plain assignment to `__proto__` would set the prototype instead of an own property. */
function setOwn(target: Record<string, unknown>, key: string, value: unknown): void {
  if (key === "__proto__")
    Object.defineProperty(target, key, { value, writable: true, enumerable: true, configurable: true });
  else target[key] = value;
}

function randomNonce(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(NONCE_BYTES));
  let hex = "";
  for (const byte of bytes) hex += byte.toString(16).padStart(2, "0");
  return hex;
}

function malformed(detail: string) {
  return rpcError("EPROTOCOL", "session", undefined, `malformed binary frame: ${detail}`);
}
