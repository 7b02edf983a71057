/**
 * Output limits: the Workspace's (`WorkspaceOptions.output`) and a run's
 * (`exec(..., { output })`), checked once and merged into what one run uses.
 * Names and defaults are 0.8.0's.
 */

/** How a Workspace cuts command output and where it saves the rest. */
export interface WorkspaceOutputOptions {
  /** The most lines a result keeps per stream. Defaults to 2000. */
  readonly maxLines?: number;
  /** The most bytes a result keeps per stream. Defaults to 64 KiB. */
  readonly maxBytes?: number;
  /** The absolute Workspace directory full output is saved in. Defaults to `/.computer/output`. */
  readonly dir?: string;
  /** How many saved output files to keep, newest first. Defaults to 50. */
  readonly keep?: number;
}

/** Per-run output limits. Fields left out use the Workspace's limits. */
export interface WorkspaceRuntimeOutputOptions {
  /** The most lines kept per stream. Defaults to the Workspace's (2000). */
  maxLines?: number;
  /** The most bytes kept per stream. Defaults to the Workspace's (64 KiB). */
  maxBytes?: number;
}

/** What a result says about one stream it cut; the kept part is the end of the output. */
export type TruncatedOutput =
  | {
      readonly status: "saved";
      /** The Workspace file holding the full output, byte for byte. */
      readonly path: string;
      readonly totalBytes: number;
      readonly totalLines: number;
      /** One-based number of the first line kept. */
      readonly firstLine: number;
      /** Whether the kept part starts partway through its first line. */
      readonly partialLine: boolean;
    }
  | {
      readonly status: "not-saved";
      /** Why saving failed. */
      readonly reason: string;
      readonly totalBytes: number;
      readonly totalLines: number;
      readonly firstLine: number;
      readonly partialLine: boolean;
    };

/** Which streams of a run were cut. A stream that fit is absent. */
export interface WorkspaceRuntimeTruncation {
  stdout?: TruncatedOutput;
  stderr?: TruncatedOutput;
}

export const DEFAULT_OUTPUT_MAX_LINES = 2000;
export const DEFAULT_OUTPUT_MAX_BYTES = 65_536;
export const DEFAULT_OUTPUT_DIR = "/.computer/output";
export const DEFAULT_OUTPUT_KEEP = 50;

/** The Workspace's limits with defaults filled in; `false` when output is kept whole. */
export type ResolvedWorkspaceOutput = Required<WorkspaceOutputOptions> | false;

/** What one run uses: its limits, and where its full output goes. */
export interface RunOutputLimits {
  maxLines: number;
  maxBytes: number;
  dir: string;
  keep: number;
}

function positiveInteger(value: unknown, name: string): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== "number" || !Number.isSafeInteger(value) || value <= 0) {
    throw new TypeError(`${name} must be a positive integer; got ${String(value)}`);
  }
  return value;
}

/** Checks `WorkspaceOptions.output` at construction: bad values throw before anything runs. */
export function resolveWorkspaceOutput(output: unknown): ResolvedWorkspaceOutput {
  if (output === false) return false;
  if (output === undefined) output = {};
  if (typeof output !== "object" || output === null || Array.isArray(output)) {
    throw new TypeError("output must be an object of limits or false");
  }
  const given = output as Record<string, unknown>;
  const dir = given.dir ?? DEFAULT_OUTPUT_DIR;
  if (typeof dir !== "string" || !dir.startsWith("/") || (dir.length > 1 && dir.endsWith("/"))) {
    throw new TypeError(`output.dir must be an absolute path without a trailing slash; got ${String(given.dir)}`);
  }
  return {
    maxLines: positiveInteger(given.maxLines, "output.maxLines") ?? DEFAULT_OUTPUT_MAX_LINES,
    maxBytes: positiveInteger(given.maxBytes, "output.maxBytes") ?? DEFAULT_OUTPUT_MAX_BYTES,
    dir,
    keep: positiveInteger(given.keep, "output.keep") ?? DEFAULT_OUTPUT_KEEP,
  };
}

/** Checks a run's `output` option (before the run starts). */
export function validateRunOutput(output: unknown): void {
  if (output === undefined || output === false) return;
  if (typeof output !== "object" || output === null || Array.isArray(output)) {
    throw new TypeError("output must be an object of limits or false");
  }
  const given = output as Record<string, unknown>;
  positiveInteger(given.maxLines, "output.maxLines");
  positiveInteger(given.maxBytes, "output.maxBytes");
}

/**
 * A run's limits: its own fields over the Workspace's. Off when either says
 * `false`: a run cannot turn saving back on when the Workspace turned it off.
 */
export function runOutputLimits(
  workspace: ResolvedWorkspaceOutput,
  run: WorkspaceRuntimeOutputOptions | false | undefined,
): RunOutputLimits | undefined {
  if (workspace === false || run === false) return undefined;
  return {
    maxLines: run?.maxLines ?? workspace.maxLines,
    maxBytes: run?.maxBytes ?? workspace.maxBytes,
    dir: workspace.dir,
    keep: workspace.keep,
  };
}
