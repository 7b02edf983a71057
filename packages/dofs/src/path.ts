import { MAX_NAME_BYTES, MAX_PATH_BYTES } from "./constants.js";
import { fsError } from "./errors.js";

/**
 * Normalizes an absolute path textually: `//` collapses, `.` is dropped, a
 * trailing `/` is dropped and `..` pops the previous segment *before* any
 * symlink is looked at. Relative, empty, NUL-bearing or root-escaping paths
 * are EINVAL. A path Linux would refuse for its length (see isNameTooLong) is
 * ENAMETOOLONG. `\` is an ordinary character.
 */
export function normalizePath(path: unknown, syscall: string, maxPathBytes = MAX_PATH_BYTES): string {
  checkShape(path, syscall);
  if (isNameTooLong(path, maxPathBytes)) throw fsError("ENAMETOOLONG", syscall, path);
  return normalizeSegments(path, syscall);
}

/**
 * normalizePath without the length limits. Sync entries are checked here:
 * one too long to store is skipped by the apply (and reported), not refused
 * with the whole batch.
 */
export function normalizePathShape(path: unknown, syscall: string): string {
  checkShape(path, syscall);
  return normalizeSegments(path, syscall);
}

/**
 * True when Linux would answer ENAMETOOLONG: the path has `maxPathBytes`
 * (MAX_PATH_BYTES unless given) UTF-8 bytes or more, or a segment (one that
 * `..` drops included: Linux looks each up) has more than MAX_NAME_BYTES.
 * Such a name could not be listed through FUSE nor named by a process in the container.
 */
export function isNameTooLong(path: string, maxPathBytes = MAX_PATH_BYTES): boolean {
  return exceedsLimits(path, true, maxPathBytes);
}

/** True when a symlink target has MAX_PATH_BYTES UTF-8 bytes or more (its segments may be any length, as in Linux). */
export function isTargetTooLong(target: string): boolean {
  return exceedsLimits(target, false);
}

function exceedsLimits(path: string, limitSegments: boolean, maxPathBytes = MAX_PATH_BYTES): boolean {
  // At most 3 UTF-8 bytes per UTF-16 unit: short strings need no counting.
  if (path.length * 3 <= (limitSegments ? MAX_NAME_BYTES : maxPathBytes - 1)) return false;
  let total = 0;
  let segment = 0;
  for (let i = 0; i < path.length; i++) {
    const unit = path.charCodeAt(i);
    // A lone surrogate counts 3 bytes: TextEncoder writes U+FFFD for it.
    let bytes = 3;
    if (unit < 0x80) bytes = 1;
    else if (unit < 0x800) bytes = 2;
    else if (isHighSurrogate(unit) && i + 1 < path.length && isLowSurrogate(path.charCodeAt(i + 1))) {
      bytes = 4;
      i++;
    }
    total += bytes;
    segment = unit === 0x2f ? 0 : segment + bytes;
    if (total >= maxPathBytes || (limitSegments && segment > MAX_NAME_BYTES)) return true;
  }
  return false;
}

function isHighSurrogate(unit: number): boolean {
  return unit >= 0xd800 && unit < 0xdc00;
}

function isLowSurrogate(unit: number): boolean {
  return unit >= 0xdc00 && unit < 0xe000;
}

function checkShape(path: unknown, syscall: string): asserts path is string {
  if (typeof path !== "string" || path === "" || path[0] !== "/" || path.includes("\0")) {
    throw fsError("EINVAL", syscall, typeof path === "string" ? path.replaceAll("\0", "\\0") : String(path));
  }
}

function normalizeSegments(path: string, syscall: string): string {
  const out: string[] = [];
  for (const segment of path.split("/")) {
    if (segment === "" || segment === ".") continue;
    if (segment === "..") {
      if (out.length === 0) throw fsError("EINVAL", syscall, path);
      out.pop();
      continue;
    }
    out.push(segment);
  }
  return `/${out.join("/")}`;
}

export function segmentsOf(normalized: string): string[] {
  return normalized === "/" ? [] : normalized.slice(1).split("/");
}

export function joinPath(parent: string, name: string): string {
  return parent === "/" ? `/${name}` : `${parent}/${name}`;
}

export function parentOf(normalized: string): string {
  const cut = normalized.lastIndexOf("/");
  return cut <= 0 ? "/" : normalized.slice(0, cut);
}

export function baseName(normalized: string): string {
  return normalized.slice(normalized.lastIndexOf("/") + 1);
}

/** True when `path` is `ancestor` or lies under it (whole segments only). */
export function isAtOrUnder(path: string, ancestor: string): boolean {
  return ancestor === "/" || path === ancestor || path.startsWith(`${ancestor}/`);
}

/** Compares paths by their UTF-8 bytes, the order SQLite's BINARY collation gives names. */
export function compareBytes(a: string, b: string): number {
  if (a === b) return 0;
  const encoder = sharedEncoder;
  const x = encoder.encode(a);
  const y = encoder.encode(b);
  const n = Math.min(x.length, y.length);
  for (let i = 0; i < n; i++) {
    const d = (x[i] as number) - (y[i] as number);
    if (d !== 0) return d;
  }
  return x.length - y.length;
}

const sharedEncoder = new TextEncoder();
