/**
 * `#harness` in the `dofs:workerd` project: every call gets a brand-new Durable
 * Object (a unique id, so empty SQLite storage) and runs the body inside it,
 * over the object's own `ctx.storage`.
 */
import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { WorkspaceFilesystem } from "../src/filesystem.js";
import { openDurableObjectDatabase } from "../src/storage-database.js";
import type { FsHarness, WithDb, WithFs } from "./harness.js";

export const runtime: FsHarness["runtime"] = "workerd";

export const withDb: WithDb = async (body) => {
  const stub = env.FS.get(env.FS.newUniqueId());
  await runInDurableObject(stub, async (_instance, state) => {
    await body({ runtime, db: openDurableObjectDatabase(state.storage) });
  });
};

export const withFs: WithFs = async (body, options) => {
  const stub = env.FS.get(env.FS.newUniqueId());
  await runInDurableObject(stub, async (_instance, state) => {
    const db = openDurableObjectDatabase(state.storage);
    await body({ runtime, db, fs: new WorkspaceFilesystem(db, options) });
  });
};
