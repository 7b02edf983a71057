/**
 * The tree workloads issue 20 names, shared by workloads.mjs (timed) and
 * request-counts.mjs (counted), so both measure the same commands: each a
 * name, a short name, an untimed setup in a fresh directory (or null) and
 * the body.
 */
import { sh } from "./shell.mjs";

export function treeWorkloads({ tarball, repository }) {
  const untar = (d) => sh(d, `tar -xf ${tarball}`);
  const clone = (d) => sh(d, `git clone -q ${repository} clone`);
  return [
    { name: "tar -x of node_modules", short: "tar -x", setup: null, body: untar },
    { name: "rm -rf of it", short: "rm -rf", setup: untar, body: (d) => sh(d, "rm -rf node_modules") },
    {
      name: "find -name '*.js' | xargs cat",
      short: "find | xargs cat",
      setup: untar,
      body: (d) => sh(d, "find node_modules -type f -name '*.js' -print0 | xargs -0 cat > /dev/null"),
    },
    // Through a pipe: GNU tar skips reading the files when the archive is /dev/null.
    {
      name: "tar -c of it (reads everything)",
      short: "tar -c",
      setup: untar,
      body: (d) => sh(d, "tar -cf - node_modules | cat > /dev/null"),
    },
    { name: "git clone of this repository (local)", short: "git clone", setup: null, body: clone },
    {
      name: "git status in that clone",
      short: "git status",
      setup: clone,
      body: (d) => sh(`${d}/clone`, "git status --porcelain > /dev/null"),
    },
  ];
}
