import { normalizePathShape } from "../path.js";
import type { ChangeEntry } from "./types.js";

/** Validates one wire entry (chunk hashes 32-byte Uint8Arrays); the apply trusts what passes (a name too long to store it refuses). */
export function checkEntry(value: unknown): ChangeEntry {
  const entry = value as ChangeEntry;
  if (value === null || typeof value !== "object") throw new TypeError("change entry must be an object");
  if (!Number.isSafeInteger(entry.rev) || entry.rev < 0) throw new TypeError("change entry rev must be a rev");
  if (typeof entry.path !== "string" || entry.path === "/" || normalizePathShape(entry.path, "sync") !== entry.path) {
    throw new TypeError(`change entry path must be normalized and absolute: ${String(entry.path)}`);
  }
  if (entry.kind === "delete") return entry;
  if (!Number.isSafeInteger(entry.mode) || entry.mode < 0 || !Number.isFinite(entry.mtime)) {
    throw new TypeError(`change entry for ${entry.path} has a bad mode or mtime`);
  }
  checkMode(entry);
  switch (entry.kind) {
    case "dir":
      return entry;
    case "symlink":
      if (typeof entry.target !== "string" || entry.target === "") throw new TypeError("symlink entry needs a target");
      return entry;
    case "file":
      if (!Number.isSafeInteger(entry.size) || entry.size < 0 || !Array.isArray(entry.chunks)) {
        throw new TypeError(`file entry for ${entry.path} has a bad size or chunk list`);
      }
      for (const chunk of entry.chunks) {
        if (!(chunk?.hash instanceof Uint8Array) || chunk.hash.byteLength !== 32 || !Number.isSafeInteger(chunk.size)) {
          throw new TypeError(`file entry for ${entry.path} has a bad chunk`);
        }
      }
      return entry;
    default:
      throw new TypeError(`unknown change entry kind: ${String((entry as { kind: unknown }).kind)}`);
  }
}

/** What a kind's type bits must be when an entry's mode carries them (a stat's `st_mode`); none is fine too. */
const TYPE_BITS: Record<string, number> = { file: 0o100000, dir: 0o040000, symlink: 0o120000 };

/**
 * 16 bits at most (`st_mode`: type and permission bits): the store keeps the
 * permission bits, so more would vanish, and type bits of another kind would
 * be dropped in silence, which a push must refuse rather than report applied.
 */
function checkMode(entry: Exclude<ChangeEntry, { kind: "delete" }>): void {
  const type = entry.mode & 0o170000;
  if (entry.mode > 0o177777 || (type !== 0 && type !== TYPE_BITS[entry.kind])) {
    throw new TypeError(
      `change entry for ${entry.path} has a bad mode: ${entry.mode.toString(8)} (octal) is no ${entry.kind} mode`,
    );
  }
}
