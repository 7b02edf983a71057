/**
 * The Dockerfile's ENV and ENTRYPOINT as JSON, for containers/rootfs.sh to
 * write into the root filesystem as /opt/computerd/image-config.json, so
 * the image booted without Docker (src/local-host/rootfs.ts) has the same
 * environment and entrypoint as `docker run` of the built image, read from
 * the one place they are written.
 *
 *   node containers/image-config.mjs containers/Dockerfile
 *
 * Only what this Dockerfile uses is understood: `ENV KEY=value ...` (with
 * line continuations, `$PATH`-style references to earlier values) and an
 * exec-form `ENTRYPOINT [...]`. Anything else in those instructions is an error.
 */
import { readFileSync } from "node:fs";

const file = process.argv[2] ?? "containers/Dockerfile";
// Joined continuation lines, comments dropped.
const instructions = readFileSync(file, "utf8")
  .replace(/\\\n/g, " ")
  .split("\n")
  .filter((line) => line.trim() !== "" && !line.trimStart().startsWith("#"));

// Debian's default PATH, which ENV PATH may extend as $PATH.
const env = { PATH: "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin" };
let entrypoint;
for (const line of instructions) {
  const [keyword, ...rest] = line.trim().split(/\s+/);
  const args = rest.join(" ");
  if (keyword === "ENV") {
    for (const pair of rest) {
      const match = /^([A-Za-z_][A-Za-z0-9_]*)=(\S*)$/.exec(pair);
      if (!match) throw new Error(`${file}: ENV ${args}: only KEY=value pairs without spaces are understood`);
      env[match[1]] = match[2].replace(/\$\{?([A-Za-z_][A-Za-z0-9_]*)\}?/g, (_, name) => env[name] ?? "");
    }
  } else if (keyword === "ENTRYPOINT") {
    entrypoint = JSON.parse(args);
    if (!Array.isArray(entrypoint) || !entrypoint.every((part) => typeof part === "string"))
      throw new Error(`${file}: ENTRYPOINT must be the exec form, a JSON array of strings`);
  }
}
if (entrypoint === undefined) throw new Error(`${file}: no ENTRYPOINT`);
process.stdout.write(`${JSON.stringify({ env, entrypoint }, null, 2)}\n`);
