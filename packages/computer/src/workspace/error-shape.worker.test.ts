/**
 * The Workers RPC boundary of the error round trip (the others are in
 * error-shape.node.test.ts): every catalogued error, thrown by a Durable
 * Object, reaches the caller with every field of its shape as own properties
 * (workerd's error serialization since compatibility date 2026-04-21), and
 * is built back from those fields only: by `fromShape` (dofs' and rpc's
 * classes) and by the fs client's `rebuildFsError`.
 */
import { env } from "cloudflare:workers";
import { rebuildWorkspaceRpcError, WorkspaceRpcError } from "@cloudflare/computer-rpc";
import { type ErrorShape, fromShape, toShape, WorkspaceFsError } from "@cloudflare/dofs";
import { describe, expect, test } from "vitest";
import { DEFAULT_SEEDS, errorCatalogue } from "../../test/errors/catalogue.js";
import { rebuildFsError } from "../contracts/fs-client.js";

/** What workerd adds to an error that crossed RPC from a Durable Object: the transport's fields, not the sender's. */
const TRANSPORT_FIELDS = new Set(["remote", "durableObjectId"]);

function senderShape(error: unknown): ErrorShape {
  const { data, ...shape } = toShape(error);
  const kept = Object.entries(data ?? {}).filter(([key]) => !TRANSPORT_FIELDS.has(key));
  return kept.length === 0 ? shape : { ...shape, data: Object.fromEntries(kept) };
}

for (const seed of DEFAULT_SEEDS) {
  describe(`error shape across Workers RPC (seed ${seed})`, () => {
    const catalogue = errorCatalogue(seed).map((entry, index) => ({ ...entry, index }));

    test.each(catalogue)("$label", async ({ error, rebuilt, index }) => {
      const stub = env.SCRATCH.get(env.SCRATCH.idFromName(`error-shape-${seed}`));
      const caught = await stub.throwCatalogued(seed, index).then(
        () => undefined,
        (thrown: unknown) => thrown,
      );
      const sent = toShape(error);
      const received = senderShape(caught);
      expect(received).toEqual(sent);

      const built = fromShape(received, [rebuildWorkspaceRpcError]);
      expect(toShape(built)).toEqual(sent);
      if (rebuilt === "WorkspaceRpcError") expect(built).toBeInstanceOf(WorkspaceRpcError);
      if (rebuilt === "WorkspaceFsError") {
        expect(built).toBeInstanceOf(WorkspaceFsError);
        const client = rebuildFsError(caught);
        expect(client).toBeInstanceOf(WorkspaceFsError);
        expect(senderShape(client)).toEqual(sent);
      }
    });
  });
}
