import { fsError } from "./errors.js";

/**
 * Normalizes an absolute path textually: `//` collapses, `.` is dropped, a
 * trailing `/` is dropped and `..` pops the previous segment *before* any
 * symlink is looked at. Relative, empty, NUL-bearing or root-escaping paths
 * are EINVAL. `\` is an ordinary character.
 */
export function normalizePath(path: unknown, syscall: string): string {
  if (typeof path !== "string" || path === "" || path[0] !== "/" || path.includes("\0")) {
    throw fsError("EINVAL", syscall, typeof path === "string" ? path.replaceAll("\0", "\\0") : String(path));
  }
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
