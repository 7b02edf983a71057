/**
 * The Node-like shapes SQLiteWorkspaceProvider speaks (provider.ts): open
 * flags, encodings and Buffers, stats' type predicates. Kept apart so the
 * provider reads as its verbs.
 */
import { fsError } from "./errors.js";

export type Bytes = Buffer;
export type Encoding = string;
export type EncodingOption = Encoding | { encoding?: Encoding | null } | null;
export type WriteOptions = { encoding?: Encoding; mode?: number } | Encoding;

export function later<T>(body: () => T): Promise<T> {
  try {
    return Promise.resolve(body());
  } catch (error) {
    return Promise.reject(error);
  }
}

export function predicates(s: { isFile: boolean; isDirectory: boolean; isSymbolicLink: boolean }) {
  return {
    isFile: () => s.isFile,
    isDirectory: () => s.isDirectory,
    isSymbolicLink: () => s.isSymbolicLink,
    isBlockDevice: () => false,
    isCharacterDevice: () => false,
    isFIFO: () => false,
    isSocket: () => false,
  };
}

export function parseFlags(flags: string): {
  readable: boolean;
  writable: boolean;
  append: boolean;
  create: boolean;
  exclusive: boolean;
  truncate: boolean;
} {
  const base = flags.replace(/[sx]/g, "");
  const exclusive = flags.includes("x");
  switch (base) {
    case "r":
      return { readable: true, writable: false, append: false, create: false, exclusive, truncate: false };
    case "r+":
      return { readable: true, writable: true, append: false, create: false, exclusive, truncate: false };
    case "w":
      return { readable: false, writable: true, append: false, create: true, exclusive, truncate: true };
    case "w+":
      return { readable: true, writable: true, append: false, create: true, exclusive, truncate: true };
    case "a":
      return { readable: false, writable: true, append: true, create: true, exclusive, truncate: false };
    case "a+":
      return { readable: true, writable: true, append: true, create: true, exclusive, truncate: false };
    default:
      throw fsError("EINVAL", "open", undefined, `unknown open flags ${JSON.stringify(flags)}`);
  }
}

export function modeOf(options: WriteOptions | undefined): number | undefined {
  return typeof options === "object" ? options.mode : undefined;
}

export function encode(data: string | Uint8Array, options: WriteOptions | undefined): Uint8Array {
  if (typeof data !== "string") return data;
  const encoding = typeof options === "string" ? options : options?.encoding;
  const NodeBuffer = nodeBuffer();
  if (encoding && encoding !== "utf8" && encoding !== "utf-8" && NodeBuffer) return NodeBuffer.from(data, encoding);
  return new TextEncoder().encode(data);
}

export function decode(bytes: Uint8Array, encoding: Encoding): string {
  const NodeBuffer = nodeBuffer();
  if (NodeBuffer) return NodeBuffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString(encoding);
  return new TextDecoder(encoding).decode(bytes);
}

export function asBuffer(bytes: Uint8Array): Bytes {
  const NodeBuffer = nodeBuffer();
  // Without a Buffer on the platform the bytes stay a Uint8Array, which `Buffer` is then declared as
  // too unless the program loaded @types/node for a runtime that lacks it (the original's types say
  // `Buffer` there as well).
  return (NodeBuffer ? NodeBuffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength) : bytes) as Bytes;
}

interface BufferConstructorLike {
  from(data: string, encoding: string): Uint8Array;
  from(buffer: ArrayBufferLike, offset: number, length: number): Uint8Array & { toString(encoding?: string): string };
}

/** Node's Buffer when the platform has one (workerd only with nodejs_compat). */
export function nodeBuffer(): BufferConstructorLike | undefined {
  return (globalThis as { Buffer?: BufferConstructorLike }).Buffer;
}
