/**
 * `read`: a page of a text file (2000 lines or 256 KiB at most), or an image
 * or PDF handed to the model as a media part. One ranged stream per call: a
 * continuation passes back `nextOffset` and `nextByteOffset`, and the read
 * starts at that byte instead of re-scanning the file from the top.
 */
import { fsError } from "@cloudflare/dofs";
import { type Tool, tool } from "ai";
import { z } from "zod";
import { utf8Length, utf8Prefix } from "../backends/worker-javascript/protocol/stdio.js";
import { guarded, isToolError } from "./errors.js";
import {
  capOption,
  type FileStore,
  type FileToolTarget,
  readAllOrThrow,
  resolveToolPath,
  toolStore,
} from "./file-store.js";
import { classifyByName, type MediaKind, sniff, toBase64 } from "./media.js";
import type { ToolError } from "./types.js";

export const READ_MAX_LINES = 2000;
export const READ_MAX_BYTES = 256 * 1024;
export const READ_MAX_MODEL_BYTES = 3.5 * 1024 * 1024;
export const READ_MEDIA_SNIFF_BYTES = 512;

/** How `lineTruncation` cuts a long line: by UTF-8 bytes or by UTF-16 chars. */
export type LineTruncation = { bytes: number } | { chars: number };

export interface ReadToolOptions {
  /** Lines per page at most. Default 2000. */
  maxLines?: number;
  /** UTF-8 bytes per page at most. Default 256 KiB. */
  maxBytes?: number;
  /** Prefix each line with `N\t` (1-based). Default false. */
  includeLineNumbers?: boolean;
  /** Cut lines longer than this (UTF-8 bytes or UTF-16 chars); the cut says how much was dropped. */
  lineTruncation?: LineTruncation;
  /** Largest image or PDF sent to the model. Default 3.5 MiB. */
  maxModelBytes?: number;
  /** Bytes sniffed for a file whose extension says nothing. Default 512. */
  mediaSniffBytes?: number;
  /** Default: the workspace's files. */
  store?: FileStore;
}

const readInput = z.object({
  path: z.string().describe("File to read: absolute, or relative to /workspace."),
  offset: z.number().int().min(1).optional().describe("1-based line to start at (default 1)."),
  byteOffset: z
    .number()
    .int()
    .min(0)
    .optional()
    .describe("Byte position of line `offset`, from a previous read's nextByteOffset; only together with offset."),
  limit: z
    .number()
    .int()
    .min(1)
    .optional()
    .describe(`Lines to read (at most one page: ${READ_MAX_LINES} lines unless the tool is configured otherwise).`),
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
  path: string;
  kind: MediaKind;
  mediaType: string;
  size: number;
  /** Base64 of the bytes as they were when the tool ran. */
  data: string;
}

export interface ReadBinaryResult {
  path: string;
  kind: "binary";
  unsupported: true;
  size: number;
}

export type ReadResult = ReadTextResult | ReadMediaResult | ReadBinaryResult;
export type ReadOutput = ReadResult | ToolError;

export function createReadTool(options: FileToolTarget & ReadToolOptions): Tool<ReadInput, ReadOutput> {
  const store = toolStore(options, "createReadTool");
  const maxLines = capOption(options.maxLines, "read maxLines", READ_MAX_LINES);
  const maxBytes = capOption(options.maxBytes, "read maxBytes", READ_MAX_BYTES);
  const caps = { ...options, maxLines, maxBytes };
  const maxModelBytes = options.maxModelBytes ?? READ_MAX_MODEL_BYTES;
  const sniffBytes = options.mediaSniffBytes ?? READ_MEDIA_SNIFF_BYTES;
  return tool({
    description:
      `Read a file. Text comes back one page at a time (at most ${maxLines} lines or ${Math.floor(maxBytes / 1024)} KiB); ` +
      "when `truncated` is true, call again with offset = nextOffset and byteOffset = nextByteOffset. " +
      "Images (png, jpg, gif, webp) and PDFs are shown to you as attachments.",
    inputSchema: readInput,
    execute: (input) =>
      guarded(async (): Promise<ReadResult> => {
        const path = resolveToolPath(input.path);
        if ((input.byteOffset ?? 0) > 0 && input.offset === undefined) {
          throw new Error("byteOffset needs offset: pass a previous read's nextOffset and nextByteOffset together");
        }
        const info = await store.stat(path);
        if (!info) throw fsError("ENOENT", "open", path);
        if (info.isDirectory) throw fsError("EISDIR", "read", path);
        let kind = classifyByName(path);
        if (kind.kind === "unknown") {
          const head = await collectChunks(store.readChunks(path, 0, Math.min(sniffBytes, info.size)));
          kind = sniff(head, info.size <= sniffBytes);
        }
        if (kind.kind === "binary") return { path, kind: "binary", unsupported: true, size: info.size };
        if (kind.kind === "image" || kind.kind === "file") {
          if (info.size > maxModelBytes) {
            throw new Error(
              `${path} is ${info.size} bytes; at most ${maxModelBytes} bytes of media can be sent to the model`,
            );
          }
          const bytes = await readAllOrThrow(store, path);
          return { path, kind: kind.kind, mediaType: kind.mediaType, size: bytes.byteLength, data: toBase64(bytes) };
        }
        return readText(store, path, input, caps);
      }),
    toModelOutput: ({ output }) => modelOutput(output),
  });
}

function modelOutput(output: ReadOutput) {
  if (isToolError(output)) return { type: "json" as const, value: { ...output } };
  if ("data" in output) {
    const caption = { type: "text" as const, text: `${output.path} (${output.mediaType}, ${output.size} bytes)` };
    return output.kind === "image"
      ? {
          type: "content" as const,
          value: [caption, { type: "image-data" as const, data: output.data, mediaType: output.mediaType }],
        }
      : {
          type: "content" as const,
          value: [
            caption,
            {
              type: "file-data" as const,
              data: output.data,
              mediaType: output.mediaType,
              filename: output.path.slice(output.path.lastIndexOf("/") + 1),
            },
          ],
        };
  }
  if ("unsupported" in output) return { type: "json" as const, value: { ...output } };
  // A whole file from its first line reads best as itself; anything partial needs the positions.
  const plain = output.startLine === 1 && !output.truncated && output.content !== "";
  return plain ? { type: "text" as const, value: output.content } : { type: "json" as const, value: { ...output } };
}

async function collectChunks(chunks: AsyncIterable<Uint8Array>): Promise<Uint8Array> {
  const parts: Uint8Array[] = [];
  for await (const chunk of chunks) parts.push(chunk);
  return concat(parts);
}

function concat(parts: readonly Uint8Array[]): Uint8Array {
  if (parts.length === 1) return parts[0] as Uint8Array;
  const out = new Uint8Array(parts.reduce((n, part) => n + part.byteLength, 0));
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.byteLength;
  }
  return out;
}

async function readText(
  store: FileStore,
  path: string,
  input: ReadInput,
  options: ReadToolOptions & { maxLines: number; maxBytes: number },
): Promise<ReadTextResult> {
  const { maxLines, maxBytes } = options;
  const startLine = input.offset ?? 1;
  const limit = Math.min(input.limit ?? maxLines, maxLines);
  const seek = input.offset !== undefined && input.byteOffset !== undefined;
  const decoder = new TextDecoder();
  const lines: string[] = [];
  let lineNo = seek ? startLine : 1; // number of the line that starts at `pos`
  let pos = seek ? (input.byteOffset as number) : 0;
  let outBytes = 0;
  let stopped = false;
  let truncated = false;

  const take = (raw: Uint8Array, length: number): void => {
    if (lineNo < startLine) {
      lineNo++;
      pos += length;
      return;
    }
    let text = decoder.decode(raw);
    if (text.endsWith("\r")) text = text.slice(0, -1);
    text = cutLine(text, options.lineTruncation);
    const cost = utf8Length(text) + 1;
    if (lines.length > 0 && outBytes + cost > maxBytes) {
      stopped = truncated = true;
      return;
    }
    if (cost > maxBytes) {
      const kept = utf8Prefix(text, Math.max(0, maxBytes - 64));
      text = `${kept} [line truncated, ${cost - 1 - utf8Length(kept)} more bytes]`;
    }
    lines.push(text);
    outBytes += cost;
    lineNo++;
    pos += length;
    if (lines.length === limit) stopped = true;
  };

  let pending: Uint8Array[] = [];
  for await (const chunk of store.readChunks(path, pos)) {
    if (stopped) {
      truncated = true;
      break;
    }
    let from = 0;
    for (;;) {
      const newline = chunk.indexOf(10, from);
      if (newline < 0) {
        if (from < chunk.byteLength) pending.push(chunk.subarray(from));
        break;
      }
      const raw = concat([...pending, chunk.subarray(from, newline)]);
      pending = [];
      take(raw, raw.byteLength + 1);
      from = newline + 1;
      if (stopped) {
        if (from < chunk.byteLength) truncated = true;
        break;
      }
    }
    if (truncated) break;
  }
  if (!stopped && pending.length > 0) {
    const raw = concat(pending);
    take(raw, raw.byteLength);
  }
  if (lines.length === 0 && startLine > lineNo && !truncated) {
    throw new Error(`offset ${startLine} is past the end of ${path} (${lineNo - 1} lines)`);
  }
  const prefix = options.includeLineNumbers === true;
  const content = lines.map((line, i) => (prefix ? `${startLine + i}\t${line}` : line)).join("\n");
  const endLine = startLine + lines.length - 1;
  return {
    path,
    content,
    startLine,
    endLine,
    totalLines: truncated ? null : lineNo - 1,
    truncated,
    ...(truncated ? { nextOffset: endLine + 1, nextByteOffset: pos } : {}),
  };
}

function cutLine(text: string, limit: ReadToolOptions["lineTruncation"]): string {
  if (!limit) return text;
  if ("chars" in limit) {
    return text.length <= limit.chars
      ? text
      : `${text.slice(0, limit.chars)} [line truncated, ${text.length - limit.chars} more chars]`;
  }
  const size = utf8Length(text);
  if (size <= limit.bytes) return text;
  const kept = utf8Prefix(text, limit.bytes);
  return `${kept} [line truncated, ${size - utf8Length(kept)} more bytes]`;
}
