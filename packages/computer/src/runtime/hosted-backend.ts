/**
 * Command backends in the original's shape: `{ id, type, connect(host) }`
 * with no `kind`, whose handle may leave out `runtimeId`, `sync` and
 * `closed`. The Workspace adopts one as a `CommandBackend`: `connect` gets
 * the host (db, fs, git, artifacts) and the handle is completed with the
 * original's defaults (the backend syncs; no runtime fencing; the connection
 * lasts until an error says otherwise).
 */
import type { BackendContext, BackendHandle, CommandBackend, WorkspaceBackend as KindedBackend } from "./backend.js";
import { hostFor, type WorkspaceBackendHost } from "./backend-host.js";
import { adoptModuleBackend, isModuleBackend, type WorkspaceModuleBackend } from "./module-backend.js";

export type { WorkspaceBackendHost };

/** A handle as an original-shaped backend may return it. */
export type HostedBackendHandle = Omit<BackendHandle, "runtimeId" | "sync" | "closed"> &
  Partial<Pick<BackendHandle, "runtimeId" | "sync" | "closed">>;

/** The original's `WorkspaceBackend`: a command backend without `kind`. */
export interface HostedBackend {
  readonly kind?: undefined;
  readonly id: string;
  readonly type: string;
  readonly callable?: boolean;
  connect(host: WorkspaceBackendHost): Promise<HostedBackendHandle>;
  close?(): Promise<void>;
}

/** Every command backend a Workspace takes: ours (`kind: "command" | "direct"`) and the original's (no `kind`). */
export type WorkspaceBackend = KindedBackend | HostedBackend;
/** Everything `backends` takes: the command backends and the original's module backends (`protocol: "module"`). */
export type WorkspaceRegisteredBackend = WorkspaceBackend | WorkspaceModuleBackend;

/** The runtime id reported for a handle that gives none: every execution on it is in one, unfenced runtime. */
export const UNFENCED_RUNTIME_ID = "";

export function isHostedBackend(backend: object): backend is HostedBackend {
  const candidate = backend as { kind?: unknown; protocol?: unknown; connect?: unknown };
  return candidate.kind === undefined && candidate.protocol === undefined && typeof candidate.connect === "function";
}

/**
 * A registered backend as the runtime drives it: ours as given, the
 * original's command backends as command backends, its module backends as
 * direct ones. Anything else is refused here, at construction.
 */
export function adoptBackend(backend: WorkspaceRegisteredBackend): KindedBackend {
  if (typeof backend !== "object" || backend === null) throw new TypeError("each backend must be an object");
  if (isModuleBackend(backend)) return adoptModuleBackend(backend);
  if (isHostedBackend(backend)) return adoptHostedBackend(backend);
  const kind = (backend as { kind?: unknown }).kind;
  if (kind === "command" || kind === "direct") return backend as KindedBackend;
  throw new TypeError(`Backend ${JSON.stringify((backend as { id?: unknown }).id)} has an unknown kind`);
}

export function adoptHostedBackend(backend: HostedBackend): CommandBackend {
  if (backend.callable === true) {
    throw new TypeError(`Backend "${backend.id}": a command backend cannot be callable`);
  }
  let context: BackendContext | undefined;
  return {
    kind: "command",
    id: backend.id,
    type: backend.type,
    attach(given) {
      context = given;
    },
    async connect(): Promise<BackendHandle> {
      if (!context) throw new Error(`Backend "${backend.id}" connected before the Workspace attached it`);
      const handle = await backend.connect(hostFor(context));
      return {
        rpc: handle.rpc,
        runtimeId: handle.runtimeId ?? UNFENCED_RUNTIME_ID,
        sync: handle.sync ?? "remote",
        closed: handle.closed ?? new Promise<void>(() => {}),
        close: () => handle.close(),
      };
    },
    ...(backend.close ? { close: () => (backend.close as () => Promise<void>)() } : {}),
  };
}
