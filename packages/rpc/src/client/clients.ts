import type { SyncRPC } from "@cloudflare/dofs/sync";
import { type SessionClosed, startSession } from "../session.js";
import type { RpcEvent, ShellRPC, WorkspaceRPC } from "../types.js";
import { type ConnectOptions, openSocket } from "./connect.js";
import { instrument, SHELL_METHODS, SYNC_METHODS } from "./instrument.js";

export interface ClientOptions extends ConnectOptions {
  /** Called once per settled call with its name, duration and outcome. Its exceptions are ignored. */
  onRPCEvent?: (event: RpcEvent) => void;
}

export interface SyncClient {
  /**
   * Every verb answers a promise over the wire. `fetchObjects` is typed as
   * its stream, as the original's `SyncRPC` declares it: await it all the same.
   */
  readonly sync: SyncRPC;
  /**
   * Disposes the root stub and closes the socket (1000), waiting for the close
   * at most 200 ms. Idempotent. Pending and later calls fail with ESHUTDOWN.
   */
  close(): Promise<void>;
  /** Settles when the socket closes, from either side; pending calls have failed with ESHUTDOWN by then. */
  readonly closed: Promise<SessionClosed>;
}

export interface WorkspaceClient extends SyncClient {
  readonly shell: ShellRPC;
}

/** A client for a session whose main object is a `SyncRPC` (`createSyncServer(...)` on the other side). */
export async function createSyncClient(options: ClientOptions): Promise<SyncClient> {
  const session = startSession<SyncRPC>(await openSocket(options), undefined);
  let closed = false;
  const hooks = { onRPCEvent: options.onRPCEvent, isClosed: () => closed, isOpen: session.isOpen };
  return {
    sync: instrument<SyncRPC>(session.remote, "sync", SYNC_METHODS, hooks),
    closed: session.closed,
    close() {
      closed = true;
      return session.close();
    },
  };
}

/** A client for a `WorkspaceRPC` session (`createWorkspaceServer(...)` on the other side, e.g. computerd's `/api`). */
export async function createWorkspaceClient(options: ClientOptions): Promise<WorkspaceClient> {
  const session = startSession<WorkspaceRPC>(await openSocket(options), undefined);
  let closed = false;
  const hooks = { onRPCEvent: options.onRPCEvent, isClosed: () => closed, isOpen: session.isOpen };
  // Property reads on a stub are pipelined promises: one round trip is saved, and
  // each is fetched once per client, not once per call.
  return {
    sync: instrument<SyncRPC>(session.remote.sync, "sync", SYNC_METHODS, hooks),
    shell: instrument<ShellRPC>(session.remote.shell, "shell", SHELL_METHODS, hooks),
    closed: session.closed,
    close() {
      closed = true;
      return session.close();
    },
  };
}
