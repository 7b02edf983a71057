/**
 * Property test of the one error shape (dofs error-shape.ts): every error code
 * of every package, with seeded random fields, crosses each boundary that runs
 * in Node and comes back with every field of its shape equal (name, message,
 * code, errno, syscall, path, dest, data) and, for dofs' and rpc's classes,
 * as the same class. The Workers RPC boundary is error-shape.worker.test.ts.
 * ERROR_SHAPE_SEED=<n> adds a seed to the default ones.
 */
import { MessageChannel } from "node:worker_threads";
import {
  decodeWireError,
  encodeWireError,
  isWireErrorCode,
  rebuildWorkspaceRpcError,
  WorkspaceRpcError,
} from "@cloudflare/computer-rpc";
import { type ErrorShape, fromShape, toShape, WorkspaceFsError } from "@cloudflare/dofs";
import { newMessagePortRpcSession, RpcTarget } from "capnweb";
import { afterAll, describe, expect, test } from "vitest";
import { type CataloguedError, DEFAULT_SEEDS, errorCatalogue } from "../../test/errors/catalogue.js";
import { rebuildError as bridgeRebuild } from "../backends/worker-javascript/sandbox/bridge.js";
import { rebuildFsError } from "../contracts/fs-client.js";

const extra = Number(process.env.ERROR_SHAPE_SEED);
const seeds = Number.isSafeInteger(extra) ? [...DEFAULT_SEEDS, extra] : [...DEFAULT_SEEDS];

/** A capnweb server whose one method throws the catalogued error it is asked for, over a real MessagePort. */
class Thrower extends RpcTarget {
  async throw(seed: number, index: number): Promise<void> {
    throw errorCatalogue(seed)[index]?.error ?? new Error("no such error");
  }
}

const channel = new MessageChannel();
type Port = Parameters<typeof newMessagePortRpcSession>[0];
newMessagePortRpcSession(channel.port1 as unknown as Port, new Thrower(), {
  onSendError: encodeWireError,
});
const remote = newMessagePortRpcSession<Thrower>(channel.port2 as unknown as Port);
afterAll(() => {
  channel.port1.close();
  channel.port2.close();
});

function expectClass(received: unknown, rebuilt: CataloguedError["rebuilt"]): void {
  if (rebuilt === "WorkspaceFsError") expect(received).toBeInstanceOf(WorkspaceFsError);
  else if (rebuilt === "WorkspaceRpcError") expect(received).toBeInstanceOf(WorkspaceRpcError);
  else expect([WorkspaceFsError, WorkspaceRpcError].some((type) => received instanceof type)).toBe(false);
}

for (const seed of seeds) {
  describe(`error shape round trips (seed ${seed})`, () => {
    const catalogue = errorCatalogue(seed).map((entry, index) => ({ ...entry, index }));

    test.each(catalogue)("$label: structured clone (Workers RPC data, postMessage)", ({ error, rebuilt }) => {
      const received = fromShape(structuredClone(toShape(error)), [rebuildWorkspaceRpcError]);
      expect(toShape(received)).toEqual(toShape(error));
      expectClass(received, rebuilt);
    });

    test.each(catalogue)("$label: JSON (an HTTP body)", ({ error, rebuilt }) => {
      const shape = JSON.parse(JSON.stringify(toShape(error))) as ErrorShape;
      const received = fromShape(shape, [rebuildWorkspaceRpcError]);
      expect(toShape(received)).toEqual(toShape(error));
      expectClass(received, rebuilt);
    });

    test.each(catalogue)("$label: capnweb over a MessagePort", async ({ error, rebuilt, index }) => {
      const caught = await remote.throw(seed, index).then(
        () => undefined,
        (thrown: unknown) => thrown,
      );
      const received = decodeWireError(caught);
      const sent = toShape(error);
      // The wire's one promotion: a plain Error with a wire code is a runner's error and arrives as rpc's class.
      if (sent.name === "Error" && isWireErrorCode(sent.code)) {
        expect(received).toBeInstanceOf(WorkspaceRpcError);
        expect(toShape(received)).toEqual({ ...sent, name: "WorkspaceRpcError" });
        return;
      }
      expect(toShape(received)).toEqual(sent);
      expectClass(received, rebuilt);
    });

    test.each(catalogue)("$label: the worker-javascript sandbox bridge", ({ error }) => {
      const reply = structuredClone({ ok: false as const, error: toShape(error) });
      const received = bridgeRebuild(reply.error);
      // A filesystem error reaches the module as node:fs throws it: a plain Error with Node's fields.
      const sent = toShape(error);
      expect(toShape(received)).toEqual({ ...sent, name: sent.name === "WorkspaceFsError" ? "Error" : sent.name });
      expect(received).not.toBeInstanceOf(WorkspaceFsError);
    });

    test.each(catalogue.filter((entry) => entry.rebuilt === "WorkspaceFsError"))(
      "$label: the fs client rebuilds from fields, whatever the message says",
      ({ error }) => {
        // Fields as Workers RPC carries them, and a message a parser would misread.
        const wire = Object.assign(new Error(`EPERM: bogus, open '/elsewhere'`), toShape(error));
        const received = rebuildFsError(wire);
        expect(received).toBeInstanceOf(WorkspaceFsError);
        expect(toShape(received)).toEqual({ ...toShape(error), message: wire.message });
      },
    );
  });
}

test("a message alone is never read back: an error without fields stays what it was", () => {
  const bare = new Error("ENOENT: no such file or directory, open '/a'");
  expect(rebuildFsError(bare)).toBe(bare);
  expect(decodeWireError(bare)).toBe(bare);
  expect(fromShape(toShape(bare))).toMatchObject({ name: "Error", message: bare.message });
  expect((fromShape(toShape(bare)) as Error & { code?: string }).code).toBeUndefined();
});

test("a JSON body cannot hand a rebuilt error a prototype through data's __proto__ key", () => {
  const body = '{"name":"Error","message":"m","code":"EIO","data":{"__proto__":{"polluted":true},"attempt":2}}';
  const error = fromShape(JSON.parse(body) as ErrorShape);
  expect(Object.getPrototypeOf(error)).toBe(Error.prototype);
  expect((error as Error & { polluted?: unknown }).polluted).toBeUndefined();
  expect(error).toMatchObject({ code: "EIO", attempt: 2, message: "m" });
});
