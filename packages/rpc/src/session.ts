/**
 * One capnweb session over one WebSocket, shared by the server and the
 * clients. capnweb's own `WebSocketTransport` reads the global `WebSocket`
 * (absent on Node 20 even for a `ws` server socket) and reports every close
 * as a plain Error; this transport works with any socket of the standard
 * event shape (`ws`, undici, workerd), fails pending calls with `ESHUTDOWN`,
 * and closes with 1000 when the close was ours.
 */
import { RpcSession, type RpcTransport } from "capnweb";
import { encodeWireError, rpcError } from "./errors.js";

/** The part of a WebSocket a session uses: `ws`'s WebSocket, undici's and workerd's all fit. */
export interface WebSocketLike {
  readonly readyState: number;
  send(data: string): void;
  close(code?: number, reason?: string): void;
  addEventListener(type: "message", listener: (event: { data: unknown }) => void): void;
  addEventListener(type: "close", listener: (event: { code: number; reason: string }) => void): void;
  addEventListener(type: "open" | "error", listener: (event: unknown) => void): void;
}

export interface SessionClosed {
  code: number;
  reason: string;
}

export interface Session<Remote> {
  /** The peer's main object. A capnweb stub: calls return promises; disposing it ends the session. */
  readonly remote: Remote;
  /** Ends the session and closes the socket (1000); resolves once closed or after `CLOSE_WAIT_MS`. Idempotent. */
  close(): Promise<void>;
  /** Settles when the socket has closed, for whatever reason. */
  readonly closed: Promise<SessionClosed>;
  /** False from the moment the socket closes or fails, or capnweb aborts the session. */
  isOpen(): boolean;
}

/** How long `close()` waits for the socket's close handshake. */
export const CLOSE_WAIT_MS = 200;

const CONNECTING = 0;
const CLOSED = 3;
/** Application close code for a session capnweb aborted (a protocol or transport failure). */
const ABORT_CLOSE_CODE = 3000;
/** WebSocket close reasons are limited to 123 bytes of UTF-8. */
const MAX_REASON_BYTES = 123;

export function startSession<Remote>(socket: WebSocketLike, main: object | undefined): Session<Remote> {
  const transport = new SocketTransport(socket);
  const session = new RpcSession(transport, main, { onSendError: encodeWireError });
  // The stub type is capnweb's deep `RpcStub<T>`; callers see the plain interface instead.
  const remote = session.getRemoteMain() as unknown as Remote;
  let closing: Promise<void> | undefined;
  return {
    remote,
    closed: transport.closed,
    isOpen: () => !transport.failed,
    close() {
      closing ??= (async () => {
        transport.closingNormally = true;
        disposeStub(remote);
        transport.closeSocket(1000, "");
        let timer: ReturnType<typeof setTimeout> | undefined;
        await Promise.race([
          transport.closed,
          new Promise<void>((resolve) => {
            timer = setTimeout(resolve, CLOSE_WAIT_MS);
          }),
        ]);
        if (timer !== undefined) clearTimeout(timer);
      })();
      return closing;
    },
  };
}

class SocketTransport implements RpcTransport {
  readonly closed: Promise<SessionClosed>;
  /** Set by `close()` so capnweb's abort closes with 1000 rather than 3000. */
  closingNormally = false;
  readonly #socket: WebSocketLike;
  /** Messages sent before the socket opened. */
  #outbox: string[] | undefined;
  readonly #inbox: string[] = [];
  #waiter: { resolve(message: string): void; reject(error: unknown): void } | undefined;
  #error: unknown;
  #failed = false;
  #closeRequested = false;

  constructor(socket: WebSocketLike) {
    this.#socket = socket;
    let settleClosed!: (closed: SessionClosed) => void;
    this.closed = new Promise((resolve) => {
      settleClosed = resolve;
    });
    if (socket.readyState === CLOSED) {
      this.#fail(rpcError("ESHUTDOWN", "session", undefined, "the WebSocket is already closed"));
      settleClosed({ code: 1006, reason: "" });
      return;
    }
    if (socket.readyState === CONNECTING) {
      this.#outbox = [];
      socket.addEventListener("open", () => {
        const outbox = this.#outbox ?? [];
        this.#outbox = undefined;
        for (const message of outbox) this.send(message);
      });
    }
    socket.addEventListener("message", (event) => {
      if (typeof event.data === "string") this.#deliver(event.data);
      else {
        this.#fail(rpcError("EPROTOCOL", "session", undefined, "a binary frame on a capnweb text socket"));
        this.closeSocket(1003, "binary frame");
      }
    });
    socket.addEventListener("close", (event) => {
      // Complete the closing handshake: workerd does not answer a peer's close by itself.
      this.closeSocket(1000, "");
      const reason = event.reason ? `${event.code} ${event.reason}` : `${event.code}`;
      this.#fail(rpcError("ESHUTDOWN", "session", undefined, `the WebSocket closed (${reason})`));
      settleClosed({ code: event.code, reason: event.reason });
    });
    socket.addEventListener("error", () => {
      this.#fail(rpcError("ESHUTDOWN", "session", undefined, "the WebSocket failed"));
    });
  }

  get failed(): boolean {
    return this.#failed;
  }

  send(message: string): void {
    if (this.#failed) return;
    if (this.#outbox) {
      this.#outbox.push(message);
      return;
    }
    try {
      this.#socket.send(message);
    } catch (error) {
      this.#fail(rpcError("ESHUTDOWN", "session", undefined, `send failed: ${String(error)}`));
    }
  }

  receive(): Promise<string> {
    const next = this.#inbox.shift();
    if (next !== undefined) return Promise.resolve(next);
    if (this.#failed) return Promise.reject(this.#error);
    return new Promise((resolve, reject) => {
      this.#waiter = { resolve, reject };
    });
  }

  /** capnweb calls this when the session ends: a failure, or our own dispose of the main stub. */
  abort(reason: unknown): void {
    if (this.closingNormally) this.closeSocket(1000, "");
    else this.closeSocket(ABORT_CLOSE_CODE, reason instanceof Error ? reason.message : String(reason));
    this.#fail(reason);
  }

  closeSocket(code: number, reason: string): void {
    if (this.#closeRequested) return;
    this.#closeRequested = true;
    try {
      this.#socket.close(code, truncateReason(reason));
    } catch {
      // Already closing, or a CONNECTING socket that refuses to close: either way it is going away.
    }
  }

  #deliver(message: string): void {
    const waiter = this.#waiter;
    if (waiter) {
      this.#waiter = undefined;
      waiter.resolve(message);
    } else this.#inbox.push(message);
  }

  #fail(error: unknown): void {
    if (this.#failed) return;
    this.#failed = true;
    this.#error = error;
    this.#outbox = undefined;
    const waiter = this.#waiter;
    this.#waiter = undefined;
    waiter?.reject(error);
  }
}

/**
 * Disposing the main stub is how capnweb ends a session. `Symbol.dispose` is
 * read through a cast because workers-types (ES2023 lib) do not declare it;
 * capnweb installs it where the runtime lacks it.
 */
function disposeStub(stub: unknown): void {
  const dispose = (Symbol as unknown as { dispose: symbol }).dispose;
  (stub as Record<symbol, () => void>)[dispose]?.();
}

function truncateReason(reason: string): string {
  const bytes = new TextEncoder().encode(reason);
  if (bytes.byteLength <= MAX_REASON_BYTES) return reason;
  // A cut inside a multi-byte character is dropped by the streaming decoder.
  return new TextDecoder().decode(bytes.subarray(0, MAX_REASON_BYTES), { stream: true });
}
