/** Round trips through a real /bin/sh: what `sh` builds, the shell must read back byte for byte. */
import { execFileSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { sh, shellQuote } from "./sh.js";

const NASTY = [
  "",
  "plain",
  "with space",
  "it's",
  "''",
  '"double"',
  "$(echo pwned)",
  "`echo pwned`",
  "$HOME",
  // biome-ignore lint/suspicious/noTemplateCurlyInString: a literal shell expansion is the point
  "${HOME}",
  "line\nbreak\n",
  "tab\tand\\backslash",
  "; rm -rf / #",
  "a=b",
  "~",
  "*?[a]",
  "-n",
  "é 😀 日本",
  "!event",
  "'\\''",
];

const run = (command: string): string => execFileSync("/bin/sh", ["-c", command], { encoding: "utf8" });

describe("sh through /bin/sh", () => {
  it.each(NASTY.map((value) => [JSON.stringify(value), value]))("shellQuote round-trips %s", (_, value) => {
    expect(run(`printf %s ${shellQuote(value)}`)).toBe(value);
  });

  it("keeps every array element one argument", () => {
    expect(run(sh`printf '%s\0' ${NASTY}`)).toBe(NASTY.map((value) => `${value}\0`).join(""));
  });
});
