/**
 * `Workspace`: what a Durable Object holds and every backend plugs into. It
 * owns the filesystem (dofs on the DO's SQLite), the runtime router, the
 * per-backend sync, and the optional capabilities; it is a thin assembly of
 * those parts, each of which lives in its own module.
 */

import {
  type Database,
  ensureSchema,
  GC_SAFETY_WINDOW_MS,
  type MountAccess,
  SQLiteWorkspaceProvider,
  WorkspaceFilesystem,
} from "@cloudflare/dofs";
import { collectGarbage } from "@cloudflare/dofs/inode";
import { DEFAULT_BATCH_BUDGET, type SyncBudget } from "@cloudflare/dofs/sync";
import { type ArtifactClient, createArtifact, createUnconfiguredArtifact } from "../artifacts/artifact.js";
import { toWorkspaceAssets } from "../assets/workspace-client.js";
import type {
  CapabilityOption,
  GitIdentity,
  WorkspaceAssetsClient,
  WorkspaceAssetsOption,
  WorkspaceGit,
  WorkspaceGitFactoryFunction,
  WorkspaceGitProvider,
} from "../contracts/capabilities.js";
// A type only (what `workspace.git` is typed as): `./git` (isomorphic-git) stays out of bundles that do not use it.
import type { GitClient } from "../git/client.js";
import { indexMounts, type ResolvedMount, resolveMounts } from "../mounts/index-mounts.js";
import type { Mount, MountsOption } from "../mounts/types.js";
import { noopObserver, type WorkspaceObserver } from "../observe/observer.js";
import type { WorkspaceBackend } from "../runtime/backend.js";
import { CommandRuntime, type RuntimeServices, type SyncPullResult } from "../runtime/command-runtime.js";
import { DirectRuntime } from "../runtime/direct-runtime.js";
import { closedError, WorkspaceError } from "../runtime/errors.js";
import { RuntimeFence } from "../runtime/fence.js";
import { adoptBackend, type WorkspaceRegisteredBackend } from "../runtime/hosted-backend.js";
import { resolveWorkspaceOutput, type WorkspaceOutputOptions } from "../runtime/output/options.js";
import { providerOutputStore } from "../runtime/output/provider-store.js";
import {
  type RetryPendingSyncResult,
  resolveSyncRetryOptions,
  type SyncRetryOptions,
  type SyncRetryScheduler,
} from "../runtime/retry.js";
import { type BackendRuntime, WorkspaceRuntime } from "../runtime/runtime.js";
import { toDatabase, type WorkspaceStorage } from "../runtime/storage.js";
import { WorkspaceStub } from "./stub.worker.js";
import { type ThinkWorkspaceCompatibility, thinkMethods } from "./think.js";

export type { WorkspaceStorage };

/** A directory filled from outside (an R2 prefix, …) by `ready()`; see mounts/types.ts. */
export type WorkspaceMount = Mount;

export interface WorkspaceOptions {
  storage: WorkspaceStorage;
  /**
   * Execution backends; the first is the default. None makes a filesystem-only Workspace.
   * A backend in the original's shapes is adopted: `{ id, type, connect(host) }` (no `kind`) as a command
   * backend, `{ protocol: "module", … }` as one that runs executions itself.
   */
  backends?: readonly WorkspaceRegisteredBackend[];
  /** Names this agent session for capabilities that scope by it (published asset prefixes, artifacts). */
  sessionId?: string;
  /** Keyed by absolute root; factories are called once, here. Indexed by `ready()` or before the first exec. */
  mounts?: MountsOption;
  /** `createGitClient()`: a provider (`open`), or a function of the workspace (the original's form). */
  git?: WorkspaceGitProvider | WorkspaceGitFactoryFunction;
  defaultGitIdentity?: GitIdentity;
  /**
   * The original's assets client (`createAssets(...)`, anything with `share`) or a publisher of ours
   * (`publish`), or a function of this Workspace returning one (called once, when the Workspace is built).
   */
  assets?: CapabilityOption<WorkspaceAssetsOption, Workspace>;
  /**
   * Cloudflare's Artifacts binding (`env.ARTIFACTS`) as it is, or `MemoryArtifactsBinding`. Repositories
   * are scoped to `sessionId` (default: the workspace's `sessionId`; `null` opts out and works namespace-wide).
   */
  artifacts?: { binding: Artifacts; sessionId?: string | null };
  /** Adds the Think agent's file methods (`readFile` → null on ENOENT, …). See think.ts. */
  useThink?: boolean;
  /** Where pending-sync intents are kept; needed for `sync: "defer"` and `retryPendingSync`. */
  retryScheduler?: SyncRetryScheduler;
  /** Backoff of pending-sync retries. */
  retry?: SyncRetryOptions;
  /** @deprecated The earlier name of `retry`; used when `retry` is unset. */
  syncRetry?: SyncRetryOptions;
  /** Clock for revs and retry times; injectable for tests. */
  now?: () => number;
  /**
   * Receives spans around the Workspace's work (`createCloudflareObserver` from
   * `@cloudflare/computer/observe/cloudflare`, or your own); default `noopObserver`.
   */
  observer?: WorkspaceObserver;
  /**
   * How much output a run's `result()` keeps per stream (the tail; 2000 lines, 64 KiB) and where the
   * full output is saved beyond that (`/.computer/output`, newest 50 files kept). `false` keeps all
   * output and saves nothing, as 0.2.1 did.
   */
  output?: WorkspaceOutputOptions | false;
}

export interface PushOptions {
  backend?: string;
}

export interface PullOptions {
  backend?: string;
  /** Pull one bounded batch instead of everything; `true` uses the retry budget (64 entries, 4 MiB). */
  batch?: SyncBudget | true;
}

// biome-ignore lint/suspicious/noUnsafeDeclarationMerging: the Think members (interface below) are set per instance.
export class Workspace {
  readonly fs: WorkspaceFilesystem;
  readonly runtime: WorkspaceRuntime;
  /** `""` when none was given. */
  readonly sessionId: string;
  readonly useThink: boolean;
  readonly #db: Database;
  readonly #options: WorkspaceOptions;
  readonly #scheduler: SyncRetryScheduler | undefined;
  #git: WorkspaceGit | undefined;
  #assets: WorkspaceAssetsClient | undefined;
  readonly #artifacts: ArtifactClient;
  #mounted: Promise<void> | undefined;
  #provider: SQLiteWorkspaceProvider | undefined;
  readonly #mounts: ResolvedMount[];
  #closed = false;
  readonly #now: () => number;
  /** Chunk gc after syncs: when the next pass may run, and where an unfinished sweep resumes. */
  #gcNotBefore = 0;
  #gcAfter: string | undefined;

  constructor(options: WorkspaceOptions) {
    if (typeof options !== "object" || options === null || !options.storage) {
      throw new TypeError("new Workspace({ storage }) needs storage: the Durable Object's ctx.storage");
    }
    const now = options.now ?? Date.now;
    this.#now = now;
    this.#options = options;
    this.#db = toDatabase(options.storage);
    this.fs = new WorkspaceFilesystem(this.#db, { now });
    this.sessionId = options.sessionId ?? "";
    this.useThink = options.useThink === true;
    this.#mounts = resolveMounts(options.mounts, { sessionId: this.sessionId, vfs: this.provider(), fs: this.fs });
    // Built now, as the original does, so a bad session id fails here rather than at the first call.
    this.#artifacts = options.artifacts
      ? createArtifact(
          options.artifacts.binding,
          options.artifacts.sessionId === undefined ? options.sessionId : options.artifacts.sessionId,
        )
      : createUnconfiguredArtifact();
    // Own properties, not prototype methods: a Workspace without useThink must not look like a Think workspace.
    if (this.useThink) Object.assign(this, thinkMethods(this.fs));
    this.#scheduler = options.retryScheduler;
    const services: RuntimeServices = {
      db: this.#db,
      fence: new RuntimeFence(this.#db),
      now,
      scheduler: options.retryScheduler,
      retry: resolveSyncRetryOptions(options.retry ?? options.syncRetry),
      afterSync: () => this.#collectChunks(),
    };
    const given = options.backends ?? [];
    if (!Array.isArray(given)) throw new TypeError("backends must be an array");
    const backends: WorkspaceBackend[] = given.map((backend) => adoptBackend(backend));
    const output = resolveWorkspaceOutput(options.output);
    // The router rejects duplicate ids before any backend is attached to this storage.
    this.runtime = new WorkspaceRuntime(
      backends.map((backend): BackendRuntime => {
        return backend.kind === "command" ? new CommandRuntime(backend, services) : new DirectRuntime(backend);
      }),
      () => this.#scheduler !== undefined,
      // Mounts are indexed before the first execution, so a command sees them without an explicit ready().
      () => this.ensureMountsIndexed(),
      { limits: output, saving: { store: providerOutputStore(() => this.provider()), active: new Set() } },
    );
    const context = {
      db: this.#db,
      fs: this.fs,
      now,
      git: () => this.git,
      artifacts: () => this.artifacts,
      runtime: () => this.runtime,
      assets: () => this.assets,
    };
    for (const backend of backends) backend.attach?.(context);
  }

  /** The database under `fs`; backends and capabilities keep their tables here too. */
  get db(): Database {
    return this.#db;
  }

  /**
   * Typed `GitClient`, as the original types it, whatever is configured: `createGitClient()` gives one;
   * a provider of another client (ours: only `cli` is required) gives that client at run time.
   */
  get git(): GitClient {
    if (!this.#options.git) {
      throw new WorkspaceError(
        "ENOTCONFIGURED",
        "Workspace git is not configured: pass git: createGitClient() to new Workspace(...)",
      );
    }
    const identity = this.#options.defaultGitIdentity ? { defaultIdentity: this.#options.defaultGitIdentity } : {};
    const git = this.#options.git;
    // createGitClient() has both; a hand-written factory of the original's shape is only a function.
    this.#git ??= "open" in git ? git.open({ fs: this.fs, ...identity }) : git({ ws: this, ...identity });
    return this.#git as GitClient;
  }

  /** The configured observer, or `noopObserver`. */
  get observer(): WorkspaceObserver {
    return this.#options.observer ?? noopObserver;
  }

  /**
   * `share` and `publish`, both resolving to the URL; undefined when no assets client is configured.
   * A factory is called on the first read, not in the constructor as the original does: a missing
   * credential (createAssets throws) then fails that call, not every request to the Durable Object.
   */
  get assets(): WorkspaceAssetsClient | undefined {
    const option = this.#options.assets;
    if (option === undefined) return undefined;
    this.#assets ??= toWorkspaceAssets(typeof option === "function" ? option(this) : option);
    return this.#assets;
  }

  /** The session-scoped Artifacts client; without an Artifacts binding, one whose calls fail with ENOCONFIG. */
  get artifacts(): ArtifactClient {
    return this.#artifacts;
  }

  /**
   * Indexes the mounts (once). With a backend id, or `{ all: true }`, also
   * connects those backends now instead of on their first call.
   */
  async ready(target?: string | { all?: boolean }): Promise<void> {
    this.#assertOpen("ready");
    await this.ensureMountsIndexed();
    if (target === undefined) return;
    const ids = typeof target === "string" ? [target] : target.all === true ? this.runtime.backends : [];
    await Promise.all(ids.map((id) => this.runtime.backend(id, "ready").ready()));
  }

  /** Indexes the mounts, once; concurrent callers share the pass, and a failed (rolled back) pass is retried by the next call. */
  ensureMountsIndexed(): Promise<void> {
    this.#mounted ??= indexMounts(this.fs, this.#mounts).catch((error: unknown) => {
      this.#mounted = undefined;
      throw error;
    });
    return this.#mounted;
  }

  /**
   * The store's node:fs face (dofs' `SQLiteWorkspaceProvider`: `*Sync` and
   * promise methods, descriptors, Node-like stats), over the same tree and
   * revs as `fs`. Made once, on first use; needs no `ready()`.
   */
  provider(): SQLiteWorkspaceProvider {
    this.#provider ??= new SQLiteWorkspaceProvider(this.#db, { now: this.#now });
    return this.#provider;
  }

  /** The configured mounts by root (a copy; factories already called). */
  mounts(): Map<string, ListedMount> {
    return new Map(this.#mounts.map((resolved) => [resolved.root, listedMount(resolved)]));
  }

  /**
   * Pushes local changes to a backend (`id` or `{ backend }`; default: the
   * first). Returns the entries sent: 0 for a backend that works on this
   * storage directly, and for a Workspace without backends.
   */
  async push(target?: string | PushOptions): Promise<number> {
    this.#assertOpen("push");
    const id = typeof target === "string" ? target : target?.backend;
    if (id === undefined && this.runtime.backends.length === 0) return 0;
    const backend = this.runtime.commandBackend(id, "push");
    return backend ? await backend.push() : 0;
  }

  /**
   * Pulls a backend's changes into the filesystem (`id` or `{ backend,
   * batch }`). `{ applied, skipped }`, plus `status` (`"pending"` when a
   * bounded batch left more). Nothing to pull without backends.
   */
  async pull(target?: string | PullOptions): Promise<SyncPullResult> {
    this.#assertOpen("pull");
    const options = typeof target === "string" ? { backend: target } : (target ?? {});
    if (options.backend === undefined && this.runtime.backends.length === 0) {
      return { status: "complete", applied: 0, skipped: [] };
    }
    const backend = this.runtime.commandBackend(options.backend, "pull");
    if (!backend) return { status: "complete", applied: 0, skipped: [] };
    const batch = options.batch === true ? DEFAULT_BATCH_BUDGET : options.batch;
    return backend.pull(batch);
  }

  /**
   * One step of the backend's pending sync (call it from the DO's alarm).
   * Outcomes: `idle`, `complete`, `pending` (scheduled again), `exhausted`
   * (intent kept), `lost` (the runtime holding the changes is gone).
   */
  async retryPendingSync(backend?: string, budget: SyncBudget = DEFAULT_BATCH_BUDGET): Promise<RetryPendingSyncResult> {
    this.#assertOpen("retryPendingSync");
    if (!this.#scheduler) {
      throw new WorkspaceError(
        "ENOTCONFIGURED",
        "retryPendingSync needs a retryScheduler: pass one to new Workspace({ retryScheduler })",
      );
    }
    return this.runtime.retryPendingSync(backend, budget);
  }

  /** Closes every backend connection. The filesystem stays usable; the runtime does not. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.runtime.close();
  }

  /** This workspace as a Workers RPC target for another isolate (see stub.worker.ts); the receiver disposes it. */
  stub(): WorkspaceStub {
    this.#assertOpen("stub");
    return new WorkspaceStub(this);
  }

  /**
   * Chunk gc on the Durable Object, after a sync step (the exec bracket's
   * push and pull, `push()`, `pull()`, and `retryPendingSync()` from the
   * alarm): one bounded pass of RECLAIM_PASS_BLOBS unreferenced blobs with
   * the spec's one-hour window, at most every RECLAIM_INTERVAL_MS while no
   * sweep is half done. Blobs orphaned less than an hour ago stay (an open
   * read stream, a writer about to link them). A failure leaves them for a
   * later pass: reclaiming never fails a sync.
   */
  #collectChunks(): void {
    const now = this.#now();
    if (this.#gcAfter === undefined && now < this.#gcNotBefore) return;
    try {
      // A workspace that only ever ran commands may not have touched its filesystem's tables yet.
      ensureSchema(this.#db, now);
      const pass = collectGarbage(this.#db, {
        now,
        windowMs: GC_SAFETY_WINDOW_MS,
        limit: RECLAIM_PASS_BLOBS,
        ...(this.#gcAfter === undefined ? {} : { after: this.#gcAfter }),
      });
      this.#gcAfter = pass.next;
      if (pass.next === undefined) this.#gcNotBefore = now + RECLAIM_INTERVAL_MS;
    } catch (error) {
      this.#gcAfter = undefined;
      this.#gcNotBefore = now + RECLAIM_INTERVAL_MS;
      console.warn("workspace chunk gc failed; retrying after the next sync", error);
    }
  }

  #assertOpen(syscall: string): void {
    if (this.#closed) throw closedError(`workspace.${syscall}`);
  }
}

/** Unreferenced blobs one gc pass looks at (up to 128 MiB freed in one storage transaction). */
const RECLAIM_PASS_BLOBS = 256;
/** A finished sweep is not repeated sooner than this (orphans younger than the hour-long window stay anyway). */
const RECLAIM_INTERVAL_MS = 60_000;

// With `useThink: true` the constructor adds the Think file methods (think.ts); optional here because
// only such workspaces have them. `isThinkWorkspace(workspace)` narrows to the full set.
export interface Workspace extends Partial<ThinkWorkspaceCompatibility> {}

/** A mount as `mounts()` lists it: `kind` and `mode` always set, as the original's `Mount` type has them. */
export type ListedMount = Mount & { readonly kind: string; readonly mode: MountAccess };

/**
 * The mount object itself when it set `kind` and `mode` (as the original's must), so it is the
 * same object; otherwise a view of it with the defaults it was indexed with.
 */
function listedMount({ kind, mode, mount }: ResolvedMount): ListedMount {
  if (mount.kind !== undefined && mount.mode !== undefined) return mount as ListedMount;
  return Object.create(mount, { kind: { value: kind, enumerable: true }, mode: { value: mode, enumerable: true } });
}
