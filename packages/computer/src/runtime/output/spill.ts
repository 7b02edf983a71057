/**
 * Saving a stream's full output to a Workspace file once it passed its
 * limits. Writes go out in whole storage chunks (dofs stores files in fixed
 * 512 KiB chunks), so an append never rewrites a chunk already stored and
 * at most one chunk of output waits in memory. Every write is awaited before
 * the next event is read: a fast producer waits for storage.
 */
import { CHUNK_SIZE, concatBytes } from "@cloudflare/dofs";

/** The filesystem calls saving needs; the Workspace's SQLite provider in production. */
export interface OutputStore {
  /** Creates the directory (and its parents) if missing. */
  mkdirp(dir: string): void;
  /** Creates the file empty, replacing one left by an earlier save of the same run. */
  create(path: string): void;
  append(path: string, bytes: Uint8Array): void;
  /** Names and modification times of the entries of `dir`. */
  list(dir: string): { name: string; mtimeMs: number }[];
  remove(path: string): void;
}

const SAVED_LOG = /\.(stdout|stderr)\.log$/;

/** A file name part: URI-encoded with dots escaped too, so the name splits back unambiguously. */
function namePart(text: string): string {
  return encodeURIComponent(text).replaceAll(".", "%2E");
}

export function outputFileName(backend: string, id: string, stream: "stdout" | "stderr"): string {
  return `${namePart(backend)}.${namePart(id)}.${stream}.log`;
}

export class OutputSpill {
  readonly path: string;
  readonly #store: OutputStore;
  #pending: Uint8Array[] = [];
  #pendingBytes = 0;
  #written = 0;
  #failure: string | undefined;
  #active: Set<string>;

  /** `active` is shared by every run of a Workspace: files still being written are never pruned. */
  constructor(store: OutputStore, path: string, active: Set<string>) {
    this.#store = store;
    this.path = path;
    this.#active = active;
  }

  /** Why saving failed, once it has. */
  get failure(): string | undefined {
    return this.#failure;
  }

  /** Creates the file with what came before the cut, then prunes old files beyond `keep`. */
  start(dir: string, keep: number, head: Uint8Array[]): void {
    this.#attempt(() => {
      this.#store.mkdirp(dir);
      this.#store.create(this.path);
      this.#active.add(this.path);
      prune(this.#store, dir, keep, this.#active);
    });
    for (const part of head) this.write(part);
  }

  write(chunk: Uint8Array): void {
    if (this.#failure !== undefined || chunk.byteLength === 0) return;
    this.#pending.push(chunk);
    this.#pendingBytes += chunk.byteLength;
    // Flush up to the last whole chunk boundary of the file; the rest waits for more output.
    const boundary = Math.floor((this.#written + this.#pendingBytes) / CHUNK_SIZE) * CHUNK_SIZE;
    if (boundary > this.#written) this.#flush(boundary - this.#written);
  }

  /** Writes what is left; the file is complete afterwards (or `failure` says why not). */
  close(): void {
    if (this.#pendingBytes > 0 && this.#failure === undefined) this.#flush(this.#pendingBytes);
    this.#pending = [];
    this.#pendingBytes = 0;
    this.#active.delete(this.path);
  }

  #flush(count: number): void {
    const all = this.#pending.length === 1 ? (this.#pending[0] as Uint8Array) : concatBytes(this.#pending);
    const out = all.subarray(0, count);
    const rest = all.subarray(count);
    this.#pending = rest.byteLength > 0 ? [rest] : [];
    this.#pendingBytes = rest.byteLength;
    this.#attempt(() => this.#store.append(this.path, out));
    this.#written += count;
  }

  #attempt(step: () => void): void {
    if (this.#failure !== undefined) return;
    try {
      step();
    } catch (error) {
      this.#failure = error instanceof Error ? error.message : String(error);
      this.#pending = [];
      this.#pendingBytes = 0;
      this.#active.delete(this.path);
    }
  }
}

/** Deletes the oldest saved output files beyond `keep` (files, not runs), never one still being written. */
function prune(store: OutputStore, dir: string, keep: number, active: Set<string>): void {
  const saved = store
    .list(dir)
    .filter((entry) => SAVED_LOG.test(entry.name))
    .sort((a, b) => b.mtimeMs - a.mtimeMs || (a.name < b.name ? 1 : -1));
  for (const entry of saved.slice(keep)) {
    const path = `${dir === "/" ? "" : dir}/${entry.name}`;
    if (!active.has(path)) store.remove(path);
  }
}
