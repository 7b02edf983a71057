/**
 * A socket with bytes already read from it put back in front. The proxy
 * reads the first bytes of a CONNECT tunnel to tell TLS from plain HTTP;
 * `socket.unshift` cannot return them, because Node's HTTP parser and TLS
 * read a plain socket's handle directly and never see JavaScript's buffer.
 * A generic Duplex makes both read through JavaScript, where the bytes are.
 */
import { Duplex } from "node:stream";

export function prefixed(socket: Duplex, first: Buffer): Duplex {
  const duplex = new Duplex({
    read() {
      socket.resume();
    },
    write(chunk: Buffer, encoding, callback) {
      socket.write(chunk, encoding, callback);
    },
    final(callback) {
      socket.end(callback);
    },
    destroy(error, callback) {
      socket.destroy(error ?? undefined);
      callback(error);
    },
  });
  if (first.length > 0) duplex.push(first);
  socket.on("data", (chunk: Buffer) => {
    if (!duplex.push(chunk)) socket.pause();
  });
  socket.on("end", () => duplex.push(null));
  socket.on("error", (error) => duplex.destroy(error));
  socket.on("close", () => duplex.destroy());
  return duplex;
}

/** The first chunk a paused socket receives (or `head`, when the request already carried some). */
export function firstChunk(socket: Duplex, head: Buffer): Promise<Buffer> {
  if (head.length > 0) return Promise.resolve(head);
  return new Promise((resolve, reject) => {
    const onData = (chunk: Buffer): void => {
      socket.pause();
      cleanup();
      resolve(chunk);
    };
    const onEnd = (): void => {
      cleanup();
      reject(new Error("the tunnel closed before any byte"));
    };
    const cleanup = (): void => {
      socket.off("data", onData);
      socket.off("end", onEnd);
      socket.off("error", onEnd);
    };
    socket.on("data", onData);
    socket.once("end", onEnd);
    socket.once("error", onEnd);
  });
}
