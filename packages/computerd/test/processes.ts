/**
 * Finding a test's own processes by a marker on their command line (a writer
 * loop's shell, a sleeping command), to prove they are gone after a kill.
 */
import { readdirSync, readFileSync } from "node:fs";

/** Pids whose command line carries `marker`. */
export function processesWith(marker: string): number[] {
  const found: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/cmdline`, "utf8").includes(marker)) found.push(Number(entry));
    } catch {
      // Gone meanwhile.
    }
  }
  return found;
}
