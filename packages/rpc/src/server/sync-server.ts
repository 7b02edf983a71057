import type {
  ChangeEntry,
  FetchChangesRequest,
  FetchChangesResult,
  ObjectFrame,
  PushRequest,
  PushResult,
  SyncRPC,
  Watermarks,
} from "@cloudflare/dofs/sync";
import { RpcTarget } from "capnweb";
import { checkedSync } from "./sync-checks.js";

/**
 * Serves any `SyncRPC` (dofs' `SyncPeer` in practice) as a capnweb target,
 * behind the EPROTOCOL argument checks (`checkedSync`). Streams pass through
 * otherwise untouched: capnweb pipes them with its own flow control.
 */
export function createSyncServer(peer: SyncRPC): RpcTarget & SyncRPC {
  return new SyncServer(checkedSync(peer));
}

/**
 * Every prototype method of an RpcTarget is callable by the peer, so this
 * class has exactly the wire verbs and keeps its state in private fields.
 */
class SyncServer extends RpcTarget implements SyncRPC {
  readonly #peer: SyncRPC;

  constructor(peer: SyncRPC) {
    super();
    this.#peer = peer;
  }

  async push(request: PushRequest): Promise<PushResult> {
    return this.#peer.push(request);
  }

  async fetchChanges(request: FetchChangesRequest = {}): Promise<FetchChangesResult> {
    return this.#peer.fetchChanges(request);
  }

  async watermarks(options?: { settle?: boolean }): Promise<Watermarks> {
    return this.#peer.watermarks(options);
  }

  async readEntry(path: string): Promise<ChangeEntry | null> {
    return this.#peer.readEntry(path);
  }

  async hasObjects(hashes: Uint8Array[]): Promise<Uint8Array[]> {
    return this.#peer.hasObjects(hashes);
  }

  fetchObjects(hashes: Uint8Array[]): ReadableStream<ObjectFrame> {
    return this.#peer.fetchObjects(hashes);
  }

  async pushObjects(objects: ReadableStream<ObjectFrame>): Promise<void> {
    return this.#peer.pushObjects(objects);
  }
}
