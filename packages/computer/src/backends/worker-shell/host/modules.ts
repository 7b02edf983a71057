/**
 * The modules of a worker-shell Dynamic Worker. `scripts/build-sandboxes.mjs`
 * bundles `../sandbox/shell.ts` and just-bash with code splitting and sorts the
 * output into groups: `core` (the entry `shell.js`, the shell and the core
 * commands) and one group per optional command set (../protocol/messages.ts).
 * Each group is its own module in `dist/sandbox/worker-shell/`, exported as
 * `@cloudflare/computer/shell/<group>`, so a Worker bundles only the groups
 * it imports.
 */

/** Module name inside the Dynamic Worker → its source. */
export type ShellModuleGroup = Record<string, { js: string }>;

/**
 * Core plus the given groups as one module map. A module two groups share
 * is the same bundle output, so the later copy simply replaces the earlier.
 */
export function mergeShellModules(core: ShellModuleGroup, groups: readonly ShellModuleGroup[] = []): ShellModuleGroup {
  const modules: ShellModuleGroup = { ...core };
  for (const group of groups) Object.assign(modules, group);
  return modules;
}
