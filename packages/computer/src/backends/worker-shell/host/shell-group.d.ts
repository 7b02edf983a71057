// The type of a generated module group, `#sandbox/worker-shell/<group>`
// (dist/sandbox/worker-shell/<group>.js, written by scripts/build-sandboxes.mjs).
// Committed, so the host type-checks before the sandbox has been bundled.
import type { ShellModuleGroup } from "./modules.js";

declare const group: ShellModuleGroup;
export default group;
