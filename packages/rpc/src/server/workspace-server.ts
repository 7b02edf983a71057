import type { Database } from "@cloudflare/dofs";
import { SyncPeer, type SyncPeerOptions, type SyncRPC } from "@cloudflare/dofs/sync";
import { RpcTarget } from "capnweb";
import { rpcError } from "../errors.js";
import type { RunnerLike, ShellRPC, WorkspaceRPC } from "../types.js";
import { createShellServer } from "./shell-server.js";
import { createSyncServer } from "./sync-server.js";

/** `SyncPeer`'s options (`ignore`, `afterApply`, `beforeFetch`, …), passed through. */
export type WorkspaceServerOptions = SyncPeerOptions;

/**
 * The root object computerd serves: `sync` is a dofs `SyncPeer` over `db`,
 * `shell` the runner. Without a runner, `shell` fails with EPROTOCOL.
 */
export function createWorkspaceServer(
  db: Database,
  runner: RunnerLike | undefined,
  options: WorkspaceServerOptions = {},
): RpcTarget & WorkspaceRPC & Disposable {
  return createWorkspaceServerFor(new SyncPeer(db, options), runner);
}

/** The same root object over any `SyncRPC` implementation (a test double, a proxy). */
export function createWorkspaceServerFor(
  peer: SyncRPC,
  runner: RunnerLike | undefined,
): RpcTarget & WorkspaceRPC & Disposable {
  return new WorkspaceServer(createSyncServer(peer), runner && createShellServer(runner));
}

class WorkspaceServer extends RpcTarget implements WorkspaceRPC {
  readonly #sync: SyncRPC;
  readonly #shell: ShellRPC | undefined;

  constructor(sync: SyncRPC, shell: ShellRPC | undefined) {
    super();
    this.#sync = sync;
    this.#shell = shell;
  }

  get sync(): SyncRPC {
    return this.#sync;
  }

  get shell(): ShellRPC {
    if (this.#shell === undefined) throw rpcError("EPROTOCOL", "shell", undefined, "this server has no runner");
    return this.#shell;
  }

  /** Ends this session's hold on executions: call it when the session closes. */
  [Symbol.dispose](): void {
    (this.#shell as Partial<Disposable> | undefined)?.[Symbol.dispose]?.();
  }
}
