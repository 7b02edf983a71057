// The type of `#sandbox/worker-javascript` (dist/sandbox/worker-javascript/runner-modules.js,
// written by scripts/build-sandboxes.mjs from ../sandbox/): module name → bundled source.
// Committed, so the host type-checks before the sandbox has been bundled.
export declare const RUNNER_MODULES: Readonly<Record<string, string>>;
