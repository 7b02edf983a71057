/**
 * `read`: a page of a text file (2000 lines or 256 KiB at most), or an image
 * or PDF handed to the model as a media part. One ranged stream per call: a
 * continuation passes back `nextOffset` and `nextByteOffset`, and the read
 * starts at that byte instead of re-scanning the file from the top. At most
 * `maxBytes + 1` bytes of any one line are held, so a huge single-line file
 * costs a page, not the file.
 */
import type { Tool } from "ai";
import { z } from "zod";
import { utf8Length } from "../backends/worker-javascript/protocol/stdio.js";
import { tool } from "./define.js";
import { guarded, isToolError } from "./errors.js";
import {
  capOption,
  type FileStore,
  type FileToolTarget,
  noSuchFile,
  resolveToolPath,
  toolStore,
} from "./file-store.js";
import { BINARY_MEDIA_TYPE, type Classification, classifyByName, type MediaKind, sniff, toBase64 } from "./media.js";
import type { ToolError } from "./types.js";

export const READ_MAX_LINES = 2000;
export const READ_MAX_BYTES = 256 * 1024;
export const READ_MAX_MODEL_BYTES = 3.5 * 1024 * 1024;
export const READ_MEDIA_SNIFF_BYTES = 512;
/** Appended to a line cut by `lineTruncation`. */
export const LINE_TRUNCATION_MARKER = "... (truncated)";

/** How `lineTruncation` cuts a long line: by UTF-8 bytes or by code points. */
export type LineTruncation = { bytes: number } | { chars: number };

export interface ReadToolOptions {
  /** Default: the workspace's files (`workspace` instead of `store` is ours in addition). */
  store?: FileStore;
  /** Lines per page at most. Default 2000. */
  maxLines?: number;
  /** UTF-8 bytes per page at most (newlines between lines and line numbers count). Default 256 KiB. */
  maxBytes?: number;
  /** Prefix each line with `N\t` (1-based). Default false. */
  includeLineNumbers?: boolean;
  /** Cut lines longer than this, with `... (truncated)`, before the page budget applies. */
  lineTruncation?: LineTruncation;
  /** Largest image or PDF sent to the model. Default 3.5 MiB. */
  maxModelBytes?: number;
  /** Bytes sniffed for a file whose name says nothing. Default 512. */
  mediaSniffBytes?: number;
}

const readInput = z
  .object({
    path: z.string().describe("The file to read (absolute, or relative to /workspace)."),
    offset: z.number().int().min(1).optional().describe("First line to return, counting from 1."),
    byteOffset: z
      .number()
      .int()
      .min(0)
      .optional()
      .describe("The nextByteOffset of the previous page; pass it together with that page's nextOffset."),
    limit: z.number().int().min(1).optional().describe("Most lines to return."),
  })
  .refine((input) => input.byteOffset === undefined || input.byteOffset === 0 || input.offset !== undefined, {
    message: "byteOffset needs offset: pass a previous read's nextOffset and nextByteOffset together",
    path: ["byteOffset"],
  });

export type ReadInput = z.infer<typeof readInput>;

export interface ReadTextResult {
  path: string;
  content: string;
  startLine: number;
  endLine: number;
  /** Null when the page stopped before the end of the file (the rest was not read). */
  totalLines: number | null;
  truncated: boolean;
  nextOffset?: number;
  nextByteOffset?: number;
}

export interface ReadMediaResult {
  kind: MediaKind;
  path: string;
  /** The file name, which the model sees as the attachment's name. */
  name: string;
  mediaType: string;
  sizeBytes: number;
  /** Base64 of the bytes as they were when the tool ran; absent when the file is over `maxModelBytes`. */
  data?: string;
}

export interface ReadBinaryResult {
  kind: "binary";
  path: string;
  name: string;
  mediaType: string;
  sizeBytes: number;
  unsupported: true;
}

export type ReadResult = ReadTextResult | ReadMediaResult | ReadBinaryResult;
export type ReadOutput = ReadResult | ToolError;

/** A limit that must be a positive integer that leaves room for `+ 1`. */
function boundedLimit(value: number, name: string): number {
  if (!Number.isSafeInteger(value) || value < 1 || value === Number.MAX_SAFE_INTEGER) {
    throw new TypeError(`read ${name} must be a positive integer below Number.MAX_SAFE_INTEGER; got ${value}`);
  }
  return value;
}

function lineTruncationOption(value: LineTruncation | undefined): LineTruncation | undefined {
  if (value === undefined) return undefined;
  const amount = "bytes" in value ? value.bytes : value.chars;
  if (!Number.isSafeInteger(amount) || amount < 1) {
    throw new TypeError(`read lineTruncation must be a positive integer; got ${String(amount)}`);
  }
  return value;
}

interface ReadSettings {
  maxLines: number;
  maxBytes: number;
  includeLineNumbers: boolean;
  lineTruncation: LineTruncation | undefined;
  maxModelBytes: number;
  mediaSniffBytes: number;
}

export function createReadTool(options: FileToolTarget & ReadToolOptions): Tool<ReadInput, ReadOutput> {
  const store = toolStore(options, "createReadTool");
  const settings: ReadSettings = {
    maxLines: capOption(options.maxLines, "read maxLines", READ_MAX_LINES),
    maxBytes: capOption(options.maxBytes, "read maxBytes", READ_MAX_BYTES),
    includeLineNumbers: options.includeLineNumbers === true,
    lineTruncation: lineTruncationOption(options.lineTruncation),
    maxModelBytes: boundedLimit(options.maxModelBytes ?? READ_MAX_MODEL_BYTES, "maxModelBytes"),
    mediaSniffBytes: boundedLimit(options.mediaSniffBytes ?? READ_MEDIA_SNIFF_BYTES, "mediaSniffBytes"),
  };
  return tool({
    description:
      `Read a file. Text comes back one page at a time (at most ${settings.maxLines} lines or ` +
      `${Math.round(settings.maxBytes / 1024)} KiB); when \`truncated\` is true, call again with ` +
      "offset = nextOffset and byteOffset = nextByteOffset. Images (png, jpg, gif, webp) and PDFs are shown to " +
      "you as attachments.",
    inputSchema: readInput,
    execute: (input) => guarded(() => read(store, input, settings)),
    toModelOutput: ({ input, output }) => modelOutput(input, output, settings.maxModelBytes),
  });
}

async function read(store: FileStore, input: ReadInput, settings: ReadSettings): Promise<ReadResult> {
  const startByte = input.byteOffset ?? 0;
  // The schema refuses this too; a direct `execute` call does not go through it.
  if (startByte > 0 && input.offset === undefined) {
    throw new Error("byteOffset needs offset: pass a previous read's nextOffset and nextByteOffset together");
  }
  const path = resolveToolPath(input.path);
  const info = await store.stat(path);
  if (!info) throw noSuchFile(path);
  // A continuation starts inside a text file: sniffing happened on its first page.
  const kind: Classification =
    startByte > 0
      ? { kind: "text" }
      : (classifyByName(path) ?? sniff(await collect(store.readChunks(path, 0, settings.mediaSniffBytes))));
  if (kind.kind === "text") return readText(store, path, input, info.size, settings);
  const name = path.slice(path.lastIndexOf("/") + 1);
  if (kind.kind === "binary") {
    return { kind: "binary", path, name, mediaType: BINARY_MEDIA_TYPE, sizeBytes: info.size, unsupported: true };
  }
  const media: ReadMediaResult = { kind: kind.kind, path, name, mediaType: kind.mediaType, sizeBytes: info.size };
  // Too big to attach: the model is told so (toModelOutput), and nothing is read.
  if (info.size > settings.maxModelBytes) return media;
  // One byte over the cap tells a file that grew since `stat` from one that fits.
  const bytes = await collect(store.readChunks(path, 0, settings.maxModelBytes + 1), settings.maxModelBytes + 1);
  if (bytes.byteLength === 0) throw new Error(`${path} is empty: there is nothing to attach`);
  media.sizeBytes = bytes.byteLength;
  if (bytes.byteLength <= settings.maxModelBytes) media.data = toBase64(bytes);
  return media;
}

function modelOutput(input: unknown, output: ReadOutput, maxModelBytes: number) {
  if (isToolError(output)) return { type: "error-text" as const, value: output.error };
  if ("content" in output) {
    const positioned =
      typeof input === "object" &&
      input !== null &&
      ((input as ReadInput).offset !== undefined || (input as ReadInput).byteOffset !== undefined);
    // A whole file read from the top reads best as itself; anything partial needs the positions.
    return output.truncated || output.content === "" || positioned
      ? { type: "json" as const, value: { ...output } }
      : { type: "text" as const, value: output.content };
  }
  if (output.kind === "binary") return { type: "json" as const, value: { ...output } };
  const label = `${output.path} (${output.mediaType}, ${output.sizeBytes} bytes)`;
  if (output.sizeBytes > maxModelBytes) {
    return {
      type: "error-text" as const,
      value: `${label} is over the ${maxModelBytes}-byte limit for media sent to the model`,
    };
  }
  if (output.data === undefined || output.data === "") {
    return { type: "error-text" as const, value: `${label}: no bytes were captured to attach` };
  }
  // The AI SDK 6 part types: an image as image-data, anything else (a PDF) as file-data.
  return {
    type: "content" as const,
    value: [
      { type: "text" as const, text: `Attached: ${label}.` },
      output.kind === "image"
        ? { type: "image-data" as const, data: output.data, mediaType: output.mediaType }
        : { type: "file-data" as const, data: output.data, mediaType: output.mediaType, filename: output.name },
    ],
  };
}

/** The chunks joined, at most `limit` bytes of them. */
async function collect(chunks: AsyncIterable<Uint8Array>, limit = Number.POSITIVE_INFINITY): Promise<Uint8Array> {
  const parts: Uint8Array[] = [];
  let total = 0;
  for await (const chunk of chunks) {
    const part = total + chunk.byteLength <= limit ? chunk : chunk.subarray(0, limit - total);
    if (part.byteLength > 0) parts.push(part);
    total += part.byteLength;
    if (total >= limit) break;
  }
  return concat(parts, total);
}

function concat(parts: readonly Uint8Array[], total: number): Uint8Array {
  if (parts.length === 1) return parts[0] as Uint8Array;
  const out = new Uint8Array(total);
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.byteLength;
  }
  return out;
}

// The default decoder, once per line: a stray byte becomes U+FFFD rather than an error.
const decoder = new TextDecoder();

/** The page of lines from `input.offset`, reading the file from `input.byteOffset` (or its start). */
async function readText(
  store: FileStore,
  path: string,
  input: ReadInput,
  size: number,
  settings: ReadSettings,
): Promise<ReadTextResult> {
  const { maxBytes, lineTruncation } = settings;
  const startLine = input.offset ?? 1;
  const startByte = input.byteOffset ?? 0;
  const lineCap = Math.min(input.limit ?? settings.maxLines, settings.maxLines);
  const retain = retainedBytes(lineTruncation, maxBytes);

  const lines: string[] = [];
  let pageBytes = 0;
  // The number of the line being assembled: counted from 1, or from `offset` when seeking to a byte.
  let lineNo = startByte > 0 ? startLine : 1;
  let firstLine: number | undefined;
  let overflow = false;
  let nextByteOffset: number | undefined;

  // The line being assembled: its first `retain` bytes, and how long it really is.
  let held: Uint8Array[] = [];
  let heldBytes = 0;
  let lineBytes = 0;
  const hold = (part: Uint8Array): void => {
    lineBytes += part.byteLength;
    const room = retain - heldBytes;
    if (room <= 0 || part.byteLength === 0) return;
    const kept = part.byteLength <= room ? part : part.subarray(0, room);
    // A copy: the chunk's buffer may be reused by the stream.
    held.push(kept.slice());
    heldBytes += kept.byteLength;
  };

  /** Ends the line that started at `lineStart`; false when the page is done. */
  const endLine = (lineStart: number): boolean => {
    const bytes = concat(held, heldBytes);
    const actual = lineBytes;
    held = [];
    heldBytes = 0;
    lineBytes = 0;
    if (lineNo < startLine) {
      lineNo++;
      return true;
    }
    if (lines.length >= lineCap) {
      nextByteOffset = lineStart;
      return false;
    }
    const cut = cutLine(bytes, actual, lineTruncation);
    const text = settings.includeLineNumbers ? `${lineNo}\t${cut}` : cut;
    const cost = utf8Length(text) + (lines.length > 0 ? 1 : 0);
    if (lines.length === 0 && cost > maxBytes) {
      overflow = true;
      return false;
    }
    if (pageBytes + cost > maxBytes) {
      nextByteOffset = lineStart;
      return false;
    }
    firstLine ??= lineNo;
    lines.push(text);
    pageBytes += cost;
    lineNo++;
    return true;
  };

  let chunkStart = startByte;
  let lineStart = startByte;
  let reading = true;
  for await (const chunk of store.readChunks(path, startByte)) {
    let from = 0;
    while (from < chunk.byteLength) {
      const newline = chunk.indexOf(10, from);
      if (newline < 0) {
        hold(chunk.subarray(from));
        break;
      }
      hold(chunk.subarray(from, newline));
      const next = chunkStart + newline + 1;
      if (!endLine(lineStart)) {
        reading = false;
        break;
      }
      lineStart = next;
      from = newline + 1;
      // The page is full: stop here rather than read one more line to find out whether there is one.
      if (lines.length >= lineCap && next < size) {
        nextByteOffset = next;
        reading = false;
        break;
      }
    }
    chunkStart += chunk.byteLength;
    if (!reading) break;
  }
  // A last line without a newline.
  if (reading && lineBytes > 0) endLine(lineStart);

  if (overflow) {
    throw new Error(
      `Line ${lineNo} of ${path} is longer than the ${maxBytes}-byte page: the host can raise read.maxBytes or set read.lineTruncation`,
    );
  }
  if (firstLine === undefined) {
    const seen = lineNo - 1;
    if (size === 0) return { path, content: "", startLine: 1, endLine: 0, totalLines: 0, truncated: false };
    if (startByte > 0) {
      throw new Error(
        `byteOffset ${startByte} is past the end of ${path} (${size} bytes): the file changed since that page; read it again from offset 1`,
      );
    }
    if (input.offset !== undefined && startLine > Math.max(1, seen)) {
      throw new Error(`offset ${startLine} is past the end of ${path} (${seen} lines)`);
    }
  }
  const truncated = nextByteOffset !== undefined;
  const first = firstLine ?? startLine;
  const last = first + lines.length - 1;
  return {
    path,
    content: lines.join("\n"),
    startLine: first,
    endLine: last,
    totalLines: truncated ? null : lineNo - 1,
    truncated,
    ...(truncated ? { nextOffset: last + 1, nextByteOffset } : {}),
  };
}

/** How many bytes of a line to hold: enough to cut it, and one more than a page to know it overflows. */
function retainedBytes(truncation: LineTruncation | undefined, maxBytes: number): number {
  if (truncation === undefined) return maxBytes + 1;
  // A code point is at most 4 bytes of UTF-8.
  return Math.min("bytes" in truncation ? truncation.bytes : truncation.chars * 4, maxBytes + 1);
}

/** The line as text, cut by `lineTruncation` when it is longer (`actual` is its full length in bytes). */
function cutLine(bytes: Uint8Array, actual: number, truncation: LineTruncation | undefined): string {
  if (truncation === undefined) return decoder.decode(bytes);
  if ("bytes" in truncation) {
    if (actual <= truncation.bytes) return decoder.decode(bytes);
    return `${decodeWhole(bytes.subarray(0, truncation.bytes))}${LINE_TRUNCATION_MARKER}`;
  }
  const chars = Array.from(decoder.decode(bytes));
  if (chars.length <= truncation.chars && actual === bytes.byteLength) return chars.join("");
  return `${chars.slice(0, truncation.chars).join("")}${LINE_TRUNCATION_MARKER}`;
}

/** `bytes` decoded without the partial code point a byte cut may leave at the end. */
function decodeWhole(bytes: Uint8Array): string {
  let end = bytes.byteLength;
  // Back up over continuation bytes (at most 3) to the lead byte of the last sequence.
  let lead = end - 1;
  while (lead >= 0 && lead > end - 4 && ((bytes[lead] as number) & 0xc0) === 0x80) lead--;
  if (lead >= 0) {
    const b = bytes[lead] as number;
    const length = b < 0x80 ? 1 : b >= 0xf0 ? 4 : b >= 0xe0 ? 3 : b >= 0xc0 ? 2 : 1;
    if (lead + length > end) end = lead;
  }
  return decoder.decode(bytes.subarray(0, end));
}
