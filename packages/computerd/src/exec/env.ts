/**
 * The environment a command sees, in layers (later wins): an allowlist of the
 * daemon's own variables, then `COMPUTER_VAR_*` with the prefix stripped,
 * then the runner's base env, then the exec's own env. Nothing else of the
 * daemon's environment reaches a child (RPC_CLIENT_SECRET is already gone).
 */
const ALLOWED = new Set(["PATH", "HOME", "TMPDIR", "TZ", "LANG", "TERM"]);

export function allowedEnv(env: Record<string, string | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(env)) {
    if (value !== undefined && (ALLOWED.has(key) || key.startsWith("LC_"))) out[key] = value;
  }
  return out;
}

export function layerEnv(...layers: (Record<string, string> | undefined)[]): Record<string, string> {
  return Object.assign({}, ...layers.filter((layer) => layer !== undefined));
}
