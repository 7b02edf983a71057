/**
 * Runs inside the Dynamic Worker as `ws:artifacts` (bundled to
 * `__computer/artifacts.js`). The host enforces write access and
 * `allowArtifactNetwork` (for imports).
 */
import { call } from "./bridge.js";

export function create(name: string, options?: Record<string, unknown>): Promise<unknown> {
  return call("artifacts", "create", options === undefined ? [name] : [name, options]);
}

export function get(name: string): Promise<unknown> {
  return call("artifacts", "get", [name]);
}

export function list(options?: Record<string, unknown>): Promise<unknown> {
  return call("artifacts", "list", options === undefined ? [] : [options]);
}

export function importArtifact(
  name: string,
  source: { url: string; branch?: string; depth?: number },
  options?: Record<string, unknown>,
): Promise<unknown> {
  return call("artifacts", "importArtifact", options === undefined ? [name, source] : [name, source, options]);
}

export function deleteArtifact(name: string): Promise<unknown> {
  return call("artifacts", "deleteArtifact", [name]);
}

export default { create, get, list, importArtifact, deleteArtifact };
