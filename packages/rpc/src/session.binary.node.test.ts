/**
 * Bytes through the session transport over a real `ws` socket on 127.0.0.1:
 * binary frames for messages with bytes, text frames for the rest, markers
 * user data cannot forge, and a malformed binary frame failing the session.
 */
import { RpcTarget } from "capnweb";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import WebSocket, { WebSocketServer } from "ws";
import { startTestServer, type TestServer } from "../test/harness.node.js";
import { type Session, startSession, type WebSocketLike } from "./session.js";

class Echo extends RpcTarget {
  echo(value: unknown): unknown {
    return value;
  }
}

interface EchoRemote {
  echo<T>(value: T): Promise<T>;
}

/**
 * A `ws` client socket that records every frame it sends. `binaryType: false`
 * hides the field from the session, so `ws` keeps delivering Buffers.
 */
function recordingSocket(url: string, options: { binaryType: boolean }) {
  const socket = new WebSocket(url);
  const sent: (string | ArrayBuffer)[] = [];
  const like: WebSocketLike = {
    get readyState() {
      return socket.readyState;
    },
    send(data) {
      sent.push(data);
      socket.send(data);
    },
    close: (code, reason) => socket.close(code, reason),
    addEventListener: (type: "message" | "close" | "open" | "error", listener: (event: never) => void) =>
      socket.addEventListener(type, listener as never),
  };
  if (options.binaryType) {
    Object.defineProperty(like, "binaryType", {
      get: () => socket.binaryType,
      set: (value: "arraybuffer") => {
        socket.binaryType = value;
      },
    });
  }
  return { socket, sent, like };
}

function nonceOf(frame: string | ArrayBuffer | undefined): string {
  if (!(frame instanceof ArrayBuffer)) throw new Error("expected a binary frame");
  const bytes = new Uint8Array(frame);
  const start = 12 + 4 * new DataView(frame).getUint32(8, true);
  return String.fromCharCode(...bytes.subarray(start, start + (bytes[1] as number)));
}

function pattern(size: number, seed: number): Uint8Array {
  const bytes = new Uint8Array(size);
  for (let i = 0; i < size; i++) bytes[i] = (i * 31 + seed) & 0xff;
  return bytes;
}

/** Same length and contents, and a plain Uint8Array (not a Buffer) as capnweb's callers expect. */
function expectSameBytes(actual: unknown, expected: Uint8Array): void {
  expect(Object.getPrototypeOf(actual)).toBe(Uint8Array.prototype);
  expect(Buffer.compare(Buffer.from(actual as Uint8Array), Buffer.from(expected))).toBe(0);
}

describe.each([
  { name: "ArrayBuffer frames (binaryType set by the session)", binaryType: true },
  { name: "Buffer frames (a socket without binaryType)", binaryType: false },
])("bytes over a real WebSocket: $name", ({ binaryType }) => {
  let server: TestServer;
  let client: ReturnType<typeof recordingSocket>;
  let session: Session<EchoRemote>;

  beforeAll(async () => {
    server = await startTestServer(() => new Echo());
    client = recordingSocket(server.url, { binaryType });
    // Started while CONNECTING: the first frames wait in the outbox.
    session = startSession<EchoRemote>(client.like, undefined);
  });

  afterAll(async () => {
    await session.close();
    await server.close();
  });

  test.each([0, 1, 100 * 1024, 512 * 1024])("%i bytes round-trip", async (size) => {
    const bytes = pattern(size, size);
    client.sent.length = 0;
    expectSameBytes(await session.remote.echo(bytes), bytes);
    expect(client.sent.some((frame) => frame instanceof ArrayBuffer)).toBe(true);
    expect(client.sent.every((frame) => typeof frame === "string" || frame.byteLength < size + 1024)).toBe(true);
  });

  test("several byte arrays nested in objects and arrays in one message", async () => {
    const value = {
      hash: pattern(32, 1),
      list: [pattern(3, 2), { inner: [pattern(512 * 1024, 3), "text", 7] }, pattern(0, 4)],
      again: pattern(100 * 1024, 5),
      empty: [],
    };
    client.sent.length = 0;
    const echoed = await session.remote.echo(value);
    expectSameBytes(echoed.hash, value.hash);
    expectSameBytes(echoed.list[0], value.list[0] as Uint8Array);
    const middle = echoed.list[1] as { inner: [Uint8Array, string, number] };
    expectSameBytes(middle.inner[0], (value.list[1] as { inner: [Uint8Array] }).inner[0]);
    expect(middle.inner.slice(1)).toEqual(["text", 7]);
    expectSameBytes(echoed.list[2], value.list[2] as Uint8Array);
    expectSameBytes(echoed.again, value.again);
    expect(echoed.empty).toEqual([]);
    // One call, one binary frame carrying all five arrays.
    expect(client.sent.filter((frame) => frame instanceof ArrayBuffer)).toHaveLength(1);
  });

  test("messages without bytes stay JSON text frames", async () => {
    client.sent.length = 0;
    await expect(session.remote.echo({ a: [1, "two", null], b: { c: true } })).resolves.toEqual({
      a: [1, "two", null],
      b: { c: true },
    });
    expect(client.sent.length).toBeGreaterThan(0);
    for (const frame of client.sent) {
      expect(typeof frame).toBe("string");
      expect(() => JSON.parse(frame as string)).not.toThrow();
    }
  });

  test("user data that looks like a marker, even the session's own nonce, round-trips unchanged", async () => {
    client.sent.length = 0;
    await session.remote.echo(new Uint8Array([1]));
    const nonce = nonceOf(client.sent.find((frame) => frame instanceof ArrayBuffer));
    const lookalikes = {
      nonce,
      marker: [nonce, 0],
      markers: [
        [nonce, 0],
        [nonce, 1],
      ],
      keyed: { [nonce]: [nonce, 0] },
      guessed: ["0123456789abcdef0123456789abcdef", 0],
      capnweb: ["bytes", "AAEC"],
      escaped: [["bytes", "AAEC"]],
      bytes: pattern(16, 9),
    };
    client.sent.length = 0;
    const echoed = await session.remote.echo(lookalikes);
    expect({ ...echoed, bytes: undefined }).toEqual({ ...lookalikes, bytes: undefined });
    expectSameBytes(echoed.bytes, lookalikes.bytes);
    // The sender saw its nonce in the data and chose another for that frame.
    expect(nonceOf(client.sent.find((frame) => frame instanceof ArrayBuffer))).not.toBe(nonce);
  });
});

describe("a malformed binary frame", () => {
  test("fails the session with EPROTOCOL and closes the socket with 1007", async () => {
    // A peer that answers the first message with a binary frame too short for a header.
    const wss = new WebSocketServer({ port: 0, host: "127.0.0.1" });
    await new Promise((resolve) => wss.once("listening", resolve));
    const closedByClient = new Promise<number>((resolve) => {
      wss.on("connection", (ws) => {
        ws.once("message", () => ws.send(new Uint8Array([1, 32, 0])));
        ws.once("close", (code) => resolve(code));
      });
    });
    const { port } = wss.address() as { port: number };
    const session = startSession<EchoRemote>(new WebSocket(`ws://127.0.0.1:${port}`), undefined);
    await expect(session.remote.echo(1)).rejects.toMatchObject({
      code: "EPROTOCOL",
      message: expect.stringContaining("malformed binary frame"),
    });
    expect(session.isOpen()).toBe(false);
    await expect(closedByClient).resolves.toBe(1007);
    await expect(session.closed).resolves.toMatchObject({ code: 1007 });
    await new Promise((resolve) => wss.close(resolve));
  });
});
