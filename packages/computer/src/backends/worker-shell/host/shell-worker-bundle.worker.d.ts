// The type of `#sandbox/shell-worker` (dist/sandbox/shell-worker/shell.js: ../sandbox/shell.ts bundled
// with just-bash as importable modules by scripts/build-sandboxes.mjs). Committed, so the host
// type-checks before the sandbox has been bundled.
export { ShellWorker } from "../sandbox/shell.js";
