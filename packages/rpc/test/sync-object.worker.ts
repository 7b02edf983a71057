/**
 * A workspace Durable Object that drives sync the production way: its
 * WorkspaceFilesystem lives on the object's SQLite, and it dials the peer
 * (computerd's role, a Node process) with a fetch upgrade through
 * `createSyncClient({ url })`. `sync-object.node.ts` bundles this file with
 * esbuild and serves it from Miniflare; `POST /<name>` with a `SideOp` body
 * runs that operation in the object named `<name>` and answers
 * `{ result, incarnation }` (or `{ error }` with status 500).
 */
import { DurableObject } from "cloudflare:workers";
import { openDurableObjectDatabase, WorkspaceFilesystem } from "@cloudflare/dofs";
import { createSyncClient } from "../src/client/index.js";
import { type OpReply, runSideOp, type SideOp, type SideState } from "./sync-ops.js";

interface SyncEnv {
  SYNC: DurableObjectNamespace<SyncObject>;
}

export class SyncObject extends DurableObject<SyncEnv> {
  readonly #incarnation = crypto.randomUUID();
  readonly #state: SideState;

  constructor(ctx: DurableObjectState, env: SyncEnv) {
    super(ctx, env);
    const db = openDurableObjectDatabase(ctx.storage);
    this.#state = { db, fs: new WorkspaceFilesystem(db) };
  }

  override async fetch(request: Request): Promise<Response> {
    const reply = await this.#run((await request.json()) as SideOp);
    return Response.json(reply, { status: reply.error ? 500 : 200 });
  }

  async #run(request: SideOp): Promise<OpReply> {
    try {
      const result = await runSideOp(this.#state, request, (url) => createSyncClient({ url }));
      return { result: result ?? null, incarnation: this.#incarnation };
    } catch (error) {
      const { message, code } = error as { message?: string; code?: string };
      return { error: { message: String(message ?? error), code }, incarnation: this.#incarnation };
    }
  }
}

export default {
  fetch(request, env): Promise<Response> {
    const name = new URL(request.url).pathname.slice(1);
    if (request.method !== "POST" || name === "") return Promise.resolve(new Response("POST /<name>", { status: 404 }));
    return env.SYNC.get(env.SYNC.idFromName(name)).fetch(request);
  },
} satisfies ExportedHandler<SyncEnv>;
