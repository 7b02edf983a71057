/**
 * The checks a sync request passes before the SyncPeer sees it: every
 * argument and every streamed entry or object frame, with EPROTOCOL (which
 * survives capnweb) for a wrong one, as computerd's `exec` does. The peer's
 * own checks throw TypeError, which the wire shows as a bare "TypeError: …"
 * without a code; the rules are the peer's (dofs' checkCursor and
 * checkEntry), only the error changes. `createSyncServer` applies them, so
 * every server of sync (computerd, a Durable Object) answers bad input alike.
 */
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
import { checkCursor, checkEntry, HAS_OBJECTS_LIMIT } from "@cloudflare/dofs/sync";
import { rpcError } from "../errors.js";
import { releaseStream } from "./validate.js";

/** `peer` behind argument checks: a bad request is EPROTOCOL and reaches nothing. */
export function checkedSync(peer: SyncRPC): SyncRPC {
  return {
    async push(request: PushRequest): Promise<PushResult> {
      checkObject(request, "push", "request");
      const { senderRev, senderCursor, changes } = request as unknown as Record<string, unknown>;
      // The stream first: once wrapped, any refusal below still cancels it, so the caller's pipe ends.
      const checked = checkedStream<ChangeEntry>(changes, "push", "changes", (entry) =>
        peerRule("push", () => checkEntry(entry)),
      );
      try {
        if (!Number.isSafeInteger(senderRev) || (senderRev as number) < 0) {
          fail("push", "senderRev must be an integer >= 0");
        }
        if (senderCursor !== undefined) cursor(senderCursor, "push", "senderCursor");
        return await peer.push({ ...request, changes: checked });
      } finally {
        releaseStream(checked, "push");
      }
    },

    async fetchChanges(request: FetchChangesRequest = {}): Promise<FetchChangesResult> {
      if (request === null) request = {};
      checkObject(request, "fetchChanges", "request");
      const { after, through, ignore } = request as Record<string, unknown>;
      if (after !== undefined) cursor(after, "fetchChanges", "after");
      if (through !== undefined) cursor(through, "fetchChanges", "through");
      if (ignore !== undefined && (!Array.isArray(ignore) || ignore.some((segment) => typeof segment !== "string"))) {
        fail("fetchChanges", "ignore must be a list of path segments (strings)");
      }
      return peer.fetchChanges(request);
    },

    async watermarks(options?: { settle?: boolean }): Promise<Watermarks> {
      if (options !== undefined && options !== null) {
        checkObject(options, "watermarks", "options");
        if (options.settle !== undefined && typeof options.settle !== "boolean") {
          fail("watermarks", "settle must be a boolean");
        }
      }
      return peer.watermarks(options ?? {});
    },

    async readEntry(path: string): Promise<ChangeEntry | null> {
      // A string that is no absolute path is the peer's EINVAL, as for any fs path.
      if (typeof path !== "string") fail("readEntry", "path must be a string");
      return peer.readEntry(path);
    },

    async hasObjects(hashes: Uint8Array[]): Promise<Uint8Array[]> {
      checkHashes(hashes, "hasObjects", HAS_OBJECTS_LIMIT);
      return peer.hasObjects(hashes);
    },

    fetchObjects(hashes: Uint8Array[]): ReadableStream<ObjectFrame> {
      checkHashes(hashes, "fetchObjects", Number.POSITIVE_INFINITY);
      return peer.fetchObjects(hashes);
    },

    async pushObjects(objects: ReadableStream<ObjectFrame>): Promise<void> {
      const checked = checkedStream<ObjectFrame>(objects, "pushObjects", "objects", checkFrame);
      try {
        await peer.pushObjects(checked);
      } finally {
        releaseStream(checked, "pushObjects");
      }
    },
  };
}

function checkObject(value: unknown, rpc: string, what: string): asserts value is Record<string, unknown> {
  if (typeof value !== "object" || value === null || Array.isArray(value)) fail(rpc, `${what} must be an object`);
}

function cursor(value: unknown, rpc: string, name: string): void {
  peerRule(rpc, () => checkCursor(value, name));
}

/** One of the peer's own checks, its TypeError turned into EPROTOCOL with the same words. */
function peerRule<T>(rpc: string, check: () => T): T {
  try {
    return check();
  } catch (error) {
    if (error instanceof TypeError) fail(rpc, error.message);
    throw error;
  }
}

function checkHashes(hashes: unknown, rpc: string, limit: number): void {
  if (!Array.isArray(hashes)) fail(rpc, "hashes must be a list of 32-byte Uint8Arrays");
  if (hashes.some((hash) => !(hash instanceof Uint8Array) || hash.byteLength !== 32)) {
    fail(rpc, "hashes must be 32-byte Uint8Arrays");
  }
  if (hashes.length > limit) fail(rpc, `at most ${limit} hashes per call`);
}

function checkFrame(frame: unknown): void {
  const { hash, bytes } = (frame ?? {}) as Partial<ObjectFrame>;
  if (typeof frame !== "object" || !(hash instanceof Uint8Array) || hash.byteLength !== 32) {
    fail("pushObjects", "each frame needs hash, a 32-byte Uint8Array");
  }
  if (!(bytes instanceof Uint8Array)) fail("pushObjects", "each frame needs bytes, a Uint8Array");
}

/**
 * `source` read through a check of each item: the first bad one errors the
 * stream with EPROTOCOL (the peer's read of it throws that) and cancels the
 * source, so the caller's pipe ends.
 */
function checkedStream<T>(
  source: unknown,
  rpc: string,
  what: string,
  check: (item: unknown) => void,
): ReadableStream<T> {
  if (!(source instanceof ReadableStream)) fail(rpc, `${what} must be a ReadableStream`);
  const reader = (source as ReadableStream<unknown>).getReader();
  return new ReadableStream<T>(
    {
      async pull(controller) {
        const { done, value } = await reader.read();
        if (done) {
          controller.close();
          return;
        }
        try {
          check(value);
        } catch (error) {
          reader.cancel(String(error)).catch(() => {});
          throw error;
        }
        controller.enqueue(value as T);
      },
      cancel(reason) {
        return reader.cancel(reason);
      },
    },
    { highWaterMark: 0 },
  );
}

function fail(rpc: string, detail: string): never {
  throw rpcError("EPROTOCOL", rpc, undefined, detail);
}
