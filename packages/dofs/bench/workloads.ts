/**
 * The benchmark bodies, shared by both runtimes: `run.node.ts` calls them on
 * better-sqlite3 and `bench-object.worker.ts` calls the same functions on a
 * Durable Object's SQLite. Every timing is taken inside the runtime that did
 * the work, with `performance.now()` (milliseconds). Setup (writing the trees
 * that grep and find walk) is not timed.
 */
import { readBlob, stageBlob } from "../src/blobs.js";
import { cutChunks } from "../src/chunker.js";
import { CHUNK_SIZE } from "../src/constants.js";
import type { Database } from "../src/database.js";
import type { WorkspaceFilesystem } from "../src/filesystem.js";
import { sha256Hex } from "../src/hash.js";
import { patternBytes } from "../test/bytes.js";

/** Decimal megabytes: throughput is reported in MB/s (10^6 bytes per second). */
export const MB = 1e6;
export const MiB = 1 << 20;
/** Bytes per piece of a generated stream, like a socket or file read would hand them over. */
export const PIECE = 64 * 1024;

export const SIZES = {
  smallFiles: 5_000,
  smallDirs: 50,
  smallBytes: 1024,
  streamBytes: 64 * MiB,
  grepFiles: 1_000,
  grepFileBytes: 10 * 1024,
  findDirs: 100,
  findFilesPerDir: 100,
  memoryBytes: [64 * MiB, 256 * MiB],
} as const;

export interface SmallFilesResult {
  pairs: number;
  ms: number;
  pairsPerSecond: number;
  writeUsEach: number;
  readUsEach: number;
}

export interface StreamResult {
  bytes: number;
  writeMs: number;
  readMs: number;
  writeMBps: number;
  readMBps: number;
}

export interface GrepResult {
  bytes: number;
  files: number;
  literal: { ms: number; MBps: number; matches: number };
  regexIgnoreCase: { ms: number; MBps: number; matches: number };
}

export interface FindResult {
  entries: number;
  all: { ms: number; entriesPerSecond: number; found: number };
  glob: { ms: number; entriesPerSecond: number; found: number };
}

/** Where a streaming write's time goes, each part measured alone over the same 64 MiB. */
export interface ComponentsResult {
  chunks: number;
  cutStreamMs: number;
  sha256ChunksMs: number;
  stageBlobMs: number;
  readBlobMs: number;
  /** One `crypto.subtle.digest` of 1 KiB, awaited: a small write does two (blob and manifest). */
  sha256SmallUs: number;
}

/**
 * `bytes` of generated content, produced piece by piece on demand: one base
 * buffer is copied per piece and the piece number stamped into the copy, so
 * no two chunks are equal (dedup would otherwise store one chunk and flatter
 * the write). `onPiece` sees each piece before it is handed over.
 */
export function generatedStream(bytes: number, onPiece?: (piece: Uint8Array) => void): ReadableStream<Uint8Array> {
  const base = patternBytes(PIECE);
  let sent = 0;
  let n = 0;
  return new ReadableStream<Uint8Array>(
    {
      pull(controller) {
        if (sent >= bytes) {
          controller.close();
          return;
        }
        const piece = base.slice(0, Math.min(PIECE, bytes - sent));
        new DataView(piece.buffer).setUint32(0, n++);
        sent += piece.byteLength;
        onPiece?.(piece);
        controller.enqueue(piece);
      },
    },
    { highWaterMark: 0 },
  );
}

/** Reads a stream to its end; returns the byte count. */
export async function drain(
  stream: ReadableStream<Uint8Array>,
  onPiece?: (piece: Uint8Array) => void,
): Promise<number> {
  const reader = stream.getReader();
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return total;
    total += value.byteLength;
    onPiece?.(value);
  }
}

/** Writes `bytes` of generated content as a stream; returns the milliseconds taken. */
export async function writeGenerated(
  fs: WorkspaceFilesystem,
  path: string,
  bytes: number,
  onPiece?: (piece: Uint8Array) => void,
): Promise<number> {
  const start = performance.now();
  await fs.writeFile(path, generatedStream(bytes, onPiece));
  return performance.now() - start;
}

/**
 * Each 1 KiB file written, then read back through the stream API, before the
 * next. A first untimed round in another tree warms the JIT and the statement
 * caches: cold, the first thousand pairs cost about twice the later ones.
 */
export async function smallFiles(fs: WorkspaceFilesystem): Promise<SmallFilesResult> {
  await smallFilePairs(fs, "/warmup", SIZES.smallFiles / 10);
  return smallFilePairs(fs, "/small", SIZES.smallFiles);
}

async function smallFilePairs(fs: WorkspaceFilesystem, root: string, count: number): Promise<SmallFilesResult> {
  const { smallDirs, smallBytes } = SIZES;
  for (let d = 0; d < smallDirs; d++) await fs.mkdir(`${root}/d${d}`, { recursive: true });
  const base = patternBytes(smallBytes, 7);
  let writeMs = 0;
  let readMs = 0;
  for (let i = 0; i < count; i++) {
    const path = `${root}/d${i % smallDirs}/f${i}.bin`;
    const bytes = base.slice();
    new DataView(bytes.buffer).setUint32(0, i);
    const t0 = performance.now();
    await fs.writeFile(path, bytes);
    const t1 = performance.now();
    const read = await drain(await fs.readFile(path));
    const t2 = performance.now();
    if (read !== smallBytes) throw new Error(`read ${read} bytes of ${path}, wrote ${smallBytes}`);
    writeMs += t1 - t0;
    readMs += t2 - t1;
  }
  const ms = writeMs + readMs;
  return {
    pairs: count,
    ms,
    pairsPerSecond: (count / ms) * 1000,
    writeUsEach: (writeMs / count) * 1000,
    readUsEach: (readMs / count) * 1000,
  };
}

export async function streaming(fs: WorkspaceFilesystem): Promise<StreamResult> {
  const bytes = SIZES.streamBytes;
  await fs.mkdir("/stream", { recursive: true });
  const writeMs = await writeGenerated(fs, "/stream/64m.bin", bytes);
  const start = performance.now();
  const read = await drain(await fs.readFile("/stream/64m.bin"));
  const readMs = performance.now() - start;
  if (read !== bytes) throw new Error(`read back ${read} bytes, wrote ${bytes}`);
  return { bytes, writeMs, readMs, writeMBps: perSecond(bytes / MB, writeMs), readMBps: perSecond(bytes / MB, readMs) };
}

/** ~10 KiB of prose-like lines; every tenth file holds one `needle-<n>` line. */
function grepText(file: number): string {
  const words = ["alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel", "india", "juliet"];
  const lines: string[] = [];
  let size = 0;
  for (let line = 0; size < SIZES.grepFileBytes; line++) {
    const text =
      file % 10 === 0 && line === 40
        ? `  const found = needle-${file}; // the one line grep should find`
        : `${line}: ${words[(file + line) % 10]} ${words[(file * 7 + line * 3) % 10]} ${"lorem ipsum dolor sit amet ".repeat(1 + (line % 3))}`;
    lines.push(text);
    size += text.length + 1;
  }
  return `${lines.join("\n")}\n`.slice(0, SIZES.grepFileBytes);
}

export async function grep(fs: WorkspaceFilesystem): Promise<GrepResult> {
  let bytes = 0;
  for (let f = 0; f < SIZES.grepFiles; f++) {
    if (f % 100 === 0) await fs.mkdir(`/grep/d${f / 100}`, { recursive: true });
    const text = grepText(f);
    bytes += text.length;
    await fs.writeFile(`/grep/d${Math.floor(f / 100)}/f${f}.txt`, text);
  }
  const time = async (pattern: string, options: { regex?: boolean; ignoreCase?: boolean }) => {
    const start = performance.now();
    const matches = (await fs.grep(pattern, "/grep", options)).length;
    const ms = performance.now() - start;
    return { ms, MBps: perSecond(bytes / MB, ms), matches };
  };
  return {
    bytes,
    files: SIZES.grepFiles,
    literal: await time("needle-", {}),
    regexIgnoreCase: await time("NEEDLE-\\d+;", { regex: true, ignoreCase: true }),
  };
}

export async function find(fs: WorkspaceFilesystem): Promise<FindResult> {
  const { findDirs, findFilesPerDir } = SIZES;
  for (let d = 0; d < findDirs; d++) {
    await fs.mkdir(`/find/d${d}`, { recursive: true });
    for (let f = 0; f < findFilesPerDir; f++) await fs.writeFile(`/find/d${d}/f${f}.txt`, "");
  }
  const entries = findDirs * (findFilesPerDir + 1);
  const time = async (pattern: string) => {
    const start = performance.now();
    const found = (await fs.find("/find", pattern)).length;
    const ms = performance.now() - start;
    return { ms, entriesPerSecond: perSecond(entries, ms), found };
  };
  return { entries, all: await time(""), glob: await time("**/f*7.txt") };
}

/**
 * The parts of a 64 MiB streaming write, timed alone: cutting the stream
 * into chunk windows, hashing the chunks, staging them (one SQLite
 * transaction each) and reading them back. Staged rows use made-up hashes
 * and are deleted afterwards.
 */
export async function components(db: Database): Promise<ComponentsResult> {
  const bytes = SIZES.streamBytes;
  const chunks = bytes / CHUNK_SIZE;
  let start = performance.now();
  for await (const _ of cutChunks(generatedStream(bytes)));
  const cutStreamMs = performance.now() - start;

  const window = patternBytes(CHUNK_SIZE, 3);
  start = performance.now();
  for (let i = 0; i < chunks; i++) await sha256Hex(window);
  const sha256ChunksMs = performance.now() - start;

  start = performance.now();
  for (let i = 0; i < chunks; i++) {
    new DataView(window.buffer).setUint32(0, i);
    stageBlob(db, `bench-${i}`, window, 0);
  }
  const stageBlobMs = performance.now() - start;

  start = performance.now();
  for (let i = 0; i < chunks; i++) readBlob(db, `bench-${i}`, CHUNK_SIZE, "read", "/bench");
  const readBlobMs = performance.now() - start;
  db.run("DELETE FROM vfs_blob_bytes WHERE hash LIKE 'bench-%'");
  db.run("DELETE FROM vfs_blobs WHERE hash LIKE 'bench-%'");

  const small = patternBytes(1024, 5);
  const rounds = 2_000;
  start = performance.now();
  for (let i = 0; i < rounds; i++) await sha256Hex(small);
  const sha256SmallUs = ((performance.now() - start) / rounds) * 1000;

  return { chunks, cutStreamMs, sha256ChunksMs, stageBlobMs, readBlobMs, sha256SmallUs };
}

function perSecond(amount: number, ms: number): number {
  return (amount / ms) * 1000;
}
