/**
 * What the io_uring transport decides before any FUSE connection: whether
 * the kernel will offer it (the fuse module's enable_uring, turned on where
 * the daemon may write it) and how many queues the kernel keeps.
 */
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import type { Logger } from "../../log/logger.js";
import { enableUring, possibleCpus } from "./uring.js";

function logger(lines: string[]): Logger {
  const log = (line: string) => lines.push(line);
  return { info: log, error: log, warn: log, debug: log } as unknown as Logger;
}

const dir = mkdtempSync(join(tmpdir(), "uring-"));

describe("enableUring", () => {
  test("a parameter already on: nothing written, nothing said", () => {
    const file = join(dir, "on");
    writeFileSync(file, "Y\n");
    const lines: string[] = [];
    expect(enableUring(logger(lines), file)).toBeUndefined();
    expect(lines).toEqual([]);
  });

  test("a parameter off that may be written: turned on, and said once", () => {
    const file = join(dir, "off");
    writeFileSync(file, "N\n");
    const lines: string[] = [];
    expect(enableUring(logger(lines), file)).toBeUndefined();
    expect(readFileSync(file, "utf8")).toBe("Y");
    expect(lines).toEqual([`FUSE over io_uring: turned on ${file} (new FUSE connections may use it)`]);
  });

  test("no parameter (a kernel without it), or one that cannot be written: the reason, nothing changed", () => {
    const lines: string[] = [];
    expect(enableUring(logger(lines), join(dir, "missing"))).toBe(
      `this kernel has no FUSE over io_uring (no ${join(dir, "missing")})`,
    );
    // /proc/version reads as something other than Y and refuses every write, root's too.
    expect(enableUring(logger(lines), "/proc/version")).toBe(
      "/proc/version is not Y and this daemon may not turn it on (EIO)",
    );
    expect(lines).toEqual([]);
  });
});

describe("possibleCpus", () => {
  test("the highest id of /sys/devices/system/cpu/possible, plus one", () => {
    const file = join(dir, "possible");
    for (const [text, count] of [
      ["0\n", 1],
      ["0-1\n", 2],
      ["0-3,5\n", 6],
      ["0,2-7\n", 8],
    ] as const) {
      writeFileSync(file, text);
      expect(possibleCpus(file)).toBe(count);
    }
  });

  test("without the file, the CPUs this process may use", () => {
    expect(possibleCpus(join(dir, "none"))).toBeGreaterThan(0);
  });
});
