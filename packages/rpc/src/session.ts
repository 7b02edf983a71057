/**
 * One capnweb session over one WebSocket, shared by the server and the
 * clients. capnweb's own `WebSocketTransport` reads the global `WebSocket`
 * (absent on Node 20 even for a `ws` server socket), base64-encodes bytes
 * inside JSON text and reports every close as a plain Error; this transport
 * works with any socket of the standard event shape (`ws`, undici, workerd),
 * sends bytes raw in binary frames (see frames.ts), fails pending calls with
 * `ESHUTDOWN`, and closes with 1000 when the close was ours.
 */
import { DEFAULT_LIMITS, RpcSession, type RpcTransportWithCustomEncoding } from "capnweb";
import { encodeWireError, isRpcError, rpcError } from "./errors.js";
import { decodeFrame, FrameEncoder } from "./frames.js";

/** The part of a WebSocket a session uses: `ws`'s WebSocket, undici's and workerd's all fit. */
export interface WebSocketLike {
  readonly readyState: number;
  /**
   * Set to "arraybuffer" by the session where the socket has it (`ws`, undici,
   * browsers); workerd always delivers `ArrayBuffer`s and has no such field.
   */
  binaryType?: string;
  /**
   * A string for a JSON-only message; for a message with bytes, an
   * `ArrayBuffer` holding exactly the frame, which the session never touches
   * again (so the socket may keep it until written).
   */
  send(data: string | ArrayBuffer): void;
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
/** capnweb's receive limit (32 Mi): UTF-16 units of a text frame, bytes of a binary one. */
const MAX_MESSAGE_SIZE = DEFAULT_LIMITS.maxMessageSize;

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

class SocketTransport implements RpcTransportWithCustomEncoding {
  /** capnweb leaves `Uint8Array`s raw in the value trees it sends and expects back. */
  readonly encodingLevel = "jsonCompatibleWithBytes";
  readonly closed: Promise<SessionClosed>;
  /** Set by `close()` so capnweb's abort closes with 1000 rather than 3000. */
  closingNormally = false;
  readonly #socket: WebSocketLike;
  readonly #encoder = new FrameEncoder();
  /** Frames sent before the socket opened. */
  #outbox: (string | ArrayBuffer)[] | undefined;
  /** Decoded messages capnweb has not asked for yet. */
  readonly #inbox: unknown[] = [];
  #waiter: { resolve(message: unknown): void; reject(error: unknown): void } | undefined;
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
    // A Blob (undici's and browsers' default) could only be read asynchronously, out of order.
    if ("binaryType" in socket && socket.binaryType !== "arraybuffer") socket.binaryType = "arraybuffer";
    if (socket.readyState === CONNECTING) {
      this.#outbox = [];
      socket.addEventListener("open", () => {
        const outbox = this.#outbox ?? [];
        this.#outbox = undefined;
        for (const frame of outbox) this.#sendFrame(frame);
      });
    }
    socket.addEventListener("message", (event) => this.#receiveFrame(event.data));
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

  /** The frame's size, for capnweb's stream flow control: UTF-16 units of text (as capnweb counts), bytes of binary. */
  send(message: unknown): number {
    if (this.#failed) return 0;
    const frame = this.#encoder.encode(message);
    const size = typeof frame === "string" ? frame.length : frame.byteLength;
    if (this.#outbox) this.#outbox.push(frame);
    else this.#sendFrame(frame);
    return size;
  }

  receive(): Promise<unknown> {
    if (this.#inbox.length > 0) return Promise.resolve(this.#inbox.shift());
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

  #sendFrame(frame: string | ArrayBuffer): void {
    try {
      this.#socket.send(frame);
    } catch (error) {
      this.#fail(rpcError("ESHUTDOWN", "session", undefined, `send failed: ${String(error)}`));
    }
  }

  /**
   * capnweb checks its message size limit only at the "string" level, so it
   * is applied here to both kinds of frame: in UTF-16 units for text, as
   * capnweb counts, and in bytes for binary frames, which are smaller than the
   * base64 text the same message used to be.
   */
  #receiveFrame(data: unknown): void {
    if (this.#failed) return;
    const isText = typeof data === "string";
    if (!isText && !(data instanceof ArrayBuffer) && !ArrayBuffer.isView(data)) {
      this.#protocolFailure(
        1003,
        rpcError("EPROTOCOL", "session", undefined, "a frame that is neither text nor bytes"),
      );
      return;
    }
    const size = isText ? data.length : data.byteLength;
    if (size > MAX_MESSAGE_SIZE) {
      const detail = `a frame of ${size} exceeds the message size limit (${MAX_MESSAGE_SIZE})`;
      this.#protocolFailure(1009, rpcError("EPROTOCOL", "session", undefined, detail));
      return;
    }
    let message: unknown;
    try {
      message = isText ? JSON.parse(data) : decodeFrame(ownedBytes(data));
    } catch (error) {
      const detail = `bad JSON in a text frame (${String(error)})`;
      this.#protocolFailure(1007, isRpcError(error) ? error : rpcError("EPROTOCOL", "session", undefined, detail));
      return;
    }
    const waiter = this.#waiter;
    if (waiter) {
      this.#waiter = undefined;
      waiter.resolve(message);
    } else this.#inbox.push(message);
  }

  #protocolFailure(closeCode: number, error: Error): void {
    this.#fail(error);
    this.closeSocket(closeCode, error.message);
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

/**
 * The frame's bytes as memory this message owns alone, since the decoded
 * `Uint8Array`s are views into it and reach capnweb and the application.
 * workerd, and `ws` with binaryType "arraybuffer", hand over an `ArrayBuffer`
 * of exactly the frame. A view (a `ws` Buffer, should binaryType not be
 * honored) is used in place only when it spans its whole `ArrayBuffer`;
 * otherwise it may share Node's Buffer pool or a socket read, and is copied.
 */
function ownedBytes(data: ArrayBuffer | ArrayBufferView): Uint8Array {
  if (data instanceof ArrayBuffer) return new Uint8Array(data);
  if (data.buffer instanceof ArrayBuffer && data.byteOffset === 0 && data.byteLength === data.buffer.byteLength) {
    return new Uint8Array(data.buffer);
  }
  return new Uint8Array(data.buffer, data.byteOffset, data.byteLength).slice();
}

function truncateReason(reason: string): string {
  const bytes = new TextEncoder().encode(reason);
  if (bytes.byteLength <= MAX_REASON_BYTES) return reason;
  // A cut inside a multi-byte character is dropped by the streaming decoder.
  return new TextDecoder().decode(bytes.subarray(0, MAX_REASON_BYTES), { stream: true });
}
