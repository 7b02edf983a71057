/**
 * Every error code of every package, each as the error its package throws,
 * with seeded random fields (syscall, path, dest, detail) drawn from text that
 * would trip a message parser: quotes, commas, ` -> `, `: `, newlines,
 * non-ASCII. The error round-trip tests (node and workerd) send each one
 * across a boundary and compare every field of dofs' error shape.
 * Runtime-neutral: the workerd test's Durable Object builds the same list
 * from the same seed and throws from it.
 */
import { WIRE_ERROR_CODES, type WireErrorCode, WorkspaceRpcError } from "@cloudflare/computer-rpc";
import { FS_ERROR_CODES, type FsErrorCode, WorkspaceFsError } from "@cloudflare/dofs";
import { ArtifactError, type ArtifactErrorCode } from "../../src/artifacts/errors.js";
import { CapabilityLimitError } from "../../src/backends/worker-javascript/host/limits.js";
import { GIT_ERROR_CODES, GitError, type GitErrorCode } from "../../src/git/errors.js";
import { WORKSPACE_ERROR_CODES, WorkspaceError, type WorkspaceErrorCode } from "../../src/runtime/errors.js";

/** The seeds the tests run by default; ERROR_SHAPE_SEED (node) adds one. */
export const DEFAULT_SEEDS = [1, 29, 4242] as const;

/** mulberry32: a small seeded generator, so a failure names a seed that reproduces it. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 2 ** 32;
  };
}

const PIECES = ["a", "/", "dir", "'", ",", " ", " -> ", ": ", "ENOENT", "\n", "é", "😀", "x.txt", "''", "\\", "%s"];

function text(random: () => number, min = 0): string {
  const length = min + Math.floor(random() * 6);
  let out = "";
  for (let i = 0; i < length; i++) out += PIECES[Math.floor(random() * PIECES.length)];
  return out;
}

function maybe<T>(random: () => number, value: T): T | undefined {
  return random() < 0.8 ? value : undefined;
}

/** The capability limits' codes (worker-javascript host/limits.ts). */
const CAPABILITY_CODES = ["ECANCELED", "EBUSY", "ELIMIT", "E2BIG", "ETIMEDOUT"] as const;
const ARTIFACT_CODES: readonly ArtifactErrorCode[] = ["EINVALIDSESSION", "EINVALIDNAME", "ENOTFOUND", "ENOCONFIG"];

export interface CataloguedError {
  /** `<package> <code>`, for the test's name. */
  readonly label: string;
  readonly error: Error;
  /** The class a receiver gets back: dofs' and rpc's are rebuilt, any other arrives as a standard error. */
  readonly rebuilt: "WorkspaceFsError" | "WorkspaceRpcError" | "standard";
}

export function errorCatalogue(seed: number): CataloguedError[] {
  const random = seededRandom(seed);
  const out: CataloguedError[] = [];
  for (const code of Object.keys(FS_ERROR_CODES) as FsErrorCode[]) {
    const dest = random() < 0.3 ? text(random, 1) : undefined;
    const detail = random() < 0.3 ? text(random, 1) : undefined;
    const options = detail === undefined && dest === undefined ? undefined : { detail, dest };
    const error = new WorkspaceFsError(code, maybe(random, text(random, 1)), maybe(random, text(random)), options);
    out.push({ label: `dofs ${code}`, error, rebuilt: "WorkspaceFsError" });
  }
  for (const code of Object.keys(WIRE_ERROR_CODES) as WireErrorCode[]) {
    const detail = random() < 0.3 ? { detail: text(random, 1) } : undefined;
    const error = new WorkspaceRpcError(code, maybe(random, text(random, 1)), maybe(random, text(random)), detail);
    out.push({ label: `rpc ${code}`, error, rebuilt: "WorkspaceRpcError" });
  }
  for (const code of Object.keys(WORKSPACE_ERROR_CODES) as WorkspaceErrorCode[]) {
    const backend = maybe(random, text(random, 1));
    const error = new WorkspaceError(code, text(random, 1), backend === undefined ? {} : { backend });
    out.push({ label: `computer runtime ${code}`, error, rebuilt: "standard" });
  }
  for (const code of Object.keys(GIT_ERROR_CODES) as GitErrorCode[]) {
    const path = maybe(random, text(random, 1));
    out.push({
      label: `computer git ${code}`,
      error: new GitError(code, text(random, 1), path === undefined ? {} : { path }),
      rebuilt: "standard",
    });
  }
  for (const code of ARTIFACT_CODES) {
    out.push({
      label: `computer artifacts ${code}`,
      error: new ArtifactError(code, text(random, 1)),
      rebuilt: "standard",
    });
  }
  for (const code of CAPABILITY_CODES) {
    out.push({
      label: `worker-javascript ${code}`,
      error: new CapabilityLimitError(code, text(random, 1)),
      rebuilt: "standard",
    });
  }
  // What Node's own fs throws (computerd meets these): errno, and an extra field of its own.
  const node = Object.assign(new Error(`ENOENT: ${text(random)}`), {
    code: "ENOENT",
    errno: -2,
    syscall: "open",
    path: text(random, 1),
    retryable: random() < 0.5,
    attempt: Math.floor(random() * 10),
  });
  out.push({ label: "node ENOENT with errno and data", error: node, rebuilt: "standard" });
  out.push({ label: "a TypeError without a code", error: new TypeError(text(random, 1)), rebuilt: "standard" });
  return out;
}
