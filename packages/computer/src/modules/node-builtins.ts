/**
 * The Node built-ins a module may import under `nodejs_compat`, with or
 * without the `node:` prefix (0.8.0's list). `node:fs` is not here: it is the
 * workspace's filesystem, served by the runner.
 */
export const NODE_BUILTINS = [
  "path",
  "path/posix",
  "url",
  "util",
  "util/types",
  "events",
  "buffer",
  "assert",
  "assert/strict",
  "string_decoder",
  "querystring",
  "stream",
  "stream/promises",
  "stream/web",
  "crypto",
  "zlib",
  "timers",
  "timers/promises",
  "async_hooks",
  "diagnostics_channel",
] as const;

/** The `node:` specifier an import names, or undefined when it is not an allowed built-in. */
export function nodeBuiltin(specifier: string): string | undefined {
  const name = specifier.startsWith("node:") ? specifier.slice(5) : specifier;
  return (NODE_BUILTINS as readonly string[]).includes(name) ? `node:${name}` : undefined;
}

export function hasNodeCompat(flags: readonly string[]): boolean {
  return flags.includes("nodejs_compat") || flags.includes("nodejs_compat_v2");
}

export const NODE_BUILTINS_DESCRIPTION = `- Node.js built-ins: ${NODE_BUILTINS.filter((name) => !name.includes("/"))
  .map((name) => `\`node:${name}\``)
  .join(", ")}, and subpaths such as \`node:stream/promises\`; bare names such as \`path\` work too.`;
