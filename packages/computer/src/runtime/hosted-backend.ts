/**
 * Command backends in the original's shape: `{ id, type, connect(host) }`
 * with no `kind`, whose handle may leave out `runtimeId`, `sync` and
 * `closed`. The Workspace adopts one as a `CommandBackend`: `connect` gets
 * the host (db, fs, git, artifacts) and the handle is completed with the
 * original's defaults (the backend syncs; no runtime fencing; the connection
 * lasts until an error says otherwise).
 */
import type { Database, WorkspaceFilesystem } from "@cloudflare/dofs";
import type { WorkspaceArtifacts, WorkspaceGit } from "../workspace/capabilities.js";
import type { BackendContext, BackendHandle, CommandBackend, WorkspaceBackend as KindedBackend } from "./backend.js";

/** What `connect(host)` is given. `git` and `artifacts` throw ENOTCONFIGURED when unset. */
export interface WorkspaceBackendHost {
  readonly db: Database;
  readonly fs: WorkspaceFilesystem;
  readonly git: WorkspaceGit;
  readonly artifacts: WorkspaceArtifacts;
}

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

/** Every backend a Workspace takes: ours (`kind: "command" | "direct"`) and the original's command backends. */
export type WorkspaceBackend = KindedBackend | HostedBackend;
export type WorkspaceRegisteredBackend = WorkspaceBackend;

/** The runtime id reported for a handle that gives none: every execution on it is in one, unfenced runtime. */
export const UNFENCED_RUNTIME_ID = "";

export function isHostedBackend(backend: object): backend is HostedBackend {
  const candidate = backend as { kind?: unknown; protocol?: unknown; connect?: unknown };
  return candidate.kind === undefined && candidate.protocol === undefined && typeof candidate.connect === "function";
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
      const { db, fs } = context;
      const host: WorkspaceBackendHost = {
        db,
        fs,
        get git() {
          return (context as BackendContext).git();
        },
        get artifacts() {
          return (context as BackendContext).artifacts();
        },
      };
      const handle = await backend.connect(host);
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
