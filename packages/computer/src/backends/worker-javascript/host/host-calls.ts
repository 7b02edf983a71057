/**
 * Calls into 0.8 host modules (`ws:<name>` given in `modules`): the function
 * runs here, in the Durable Object, with the isolate's arguments as one
 * array and a call context (deadline, signal, access, a confined
 * `resolvePath`, a stable `callId`). Its result must be JSON-plain data; it
 * is normalized the way `JSON.stringify` would see it (an `undefined`
 * property is dropped, an `undefined` result or element becomes `null`), and
 * anything JSON cannot hold is refused rather than silently changed.
 */
import type { WorkspaceFilesystem } from "@cloudflare/dofs";
import type { WorkspaceModuleCallContext, WorkspaceModuleFunctions } from "../../../modules/types.js";
import type { WorkspaceRuntimeValue } from "../../../runtime/types.js";
import type { CallTicket } from "./limits.js";
import type { ResolvedOptions } from "./options.js";
import { assertNoSymlinks, isAtOrUnder, outsideRoot, resolvePath } from "./paths.js";

export interface HostCallDeps {
  execId: string;
  fs: WorkspaceFilesystem;
  options: ResolvedOptions;
  /** Connected host modules by the name after `ws:`. */
  functions: ReadonlyMap<string, WorkspaceModuleFunctions>;
}

function notPlain(where: string): Error {
  return new TypeError(`Host module values must be JSON-compatible (${where}).`);
}

/** `value` as JSON would carry it, or a TypeError naming what JSON cannot hold. */
export function toRuntimeValue(value: unknown, where: string, seen = new Set<object>()): WorkspaceRuntimeValue {
  if (value === undefined || value === null) return null;
  switch (typeof value) {
    case "string":
    case "boolean":
      return value;
    case "number":
      if (!Number.isFinite(value)) throw notPlain(`${where} is ${value}`);
      return value;
    case "object":
      break;
    default:
      throw notPlain(`${where} is a ${typeof value}`);
  }
  const object = value as object;
  if (seen.has(object)) throw new TypeError(`Host module values must be acyclic (${where}).`);
  seen.add(object);
  try {
    if (Array.isArray(object)) return object.map((item, index) => toRuntimeValue(item, `${where}[${index}]`, seen));
    const prototype = Object.getPrototypeOf(object);
    if (prototype !== Object.prototype && prototype !== null) {
      throw new TypeError(`Host module values must contain only plain objects (${where}).`);
    }
    const out: Record<string, WorkspaceRuntimeValue> = {};
    for (const [key, child] of Object.entries(object)) {
      if (child !== undefined) out[key] = toRuntimeValue(child, `${where}.${key}`, seen);
    }
    return out;
  } finally {
    seen.delete(object);
  }
}

export class HostCalls {
  readonly #deps: HostCallDeps;
  /** Numbers this execution's host calls, in the order they arrive: the second half of `callId`. */
  #seq = 0;

  constructor(deps: HostCallDeps) {
    this.#deps = deps;
  }

  async call(name: string, method: string, args: unknown[], ticket: CallTicket): Promise<WorkspaceRuntimeValue> {
    const functions = this.#deps.functions.get(name);
    const fn = functions && Object.hasOwn(functions, method) ? functions[method] : undefined;
    if (typeof fn !== "function") {
      throw new TypeError(`Unknown Workspace host module call ${JSON.stringify(`ws:${name}.${method}`)}.`);
    }
    const given = Object.freeze(args.map((arg, index) => toRuntimeValue(arg, `argument ${index}`)));
    const { options } = this.#deps;
    const context: WorkspaceModuleCallContext = {
      signal: ticket.signal,
      deadline: ticket.deadline,
      access: options.access,
      callId: `${this.#deps.execId}:${++this.#seq}`,
      resolvePath: (path, resolve) => this.#resolvePath(path, resolve?.allowMissing === true),
      interrupt: () =>
        Promise.reject(
          new Error(
            'ctx.interrupt() needs a run that can replay (onInterrupt: "replay"), which this backend does not offer yet.',
          ),
        ),
    };
    return toRuntimeValue(await fn(given, context), `ws:${name}.${method} result`);
  }

  /** Against the backend root, never out of it, never through a symlink; must exist unless `allowMissing`. */
  async #resolvePath(path: string, allowMissing: boolean): Promise<string> {
    const { fs, options } = this.#deps;
    if (typeof path !== "string") throw new TypeError("resolvePath: path must be a string");
    const absolute = resolvePath(options.root, path, "resolvePath");
    if (!isAtOrUnder(absolute, options.root)) throw outsideRoot("resolvePath", absolute, options.root);
    await assertNoSymlinks(fs, absolute, "resolvePath", true);
    if (!allowMissing) await fs.lstat(absolute);
    return absolute;
  }
}
