/**
 * The main module of the `dofs:workerd` test project. `TestFilesystemObject`
 * is a Durable Object whose SQLite storage backs a `WorkspaceFilesystem`:
 * `harness.worker.ts` runs test bodies inside fresh instances of it, and the
 * RPC methods let a test drive the same object across a restart.
 */
import { DurableObject } from "cloudflare:workers";
import { WorkspaceFilesystem } from "../src/filesystem.js";
import { openDurableObjectDatabase } from "../src/storage-database.js";

export class TestFilesystemObject extends DurableObject<Cloudflare.Env> {
  /** Differs between two incarnations of the same object, so a test can prove a restart happened. */
  readonly incarnation: string = crypto.randomUUID();
  readonly fs: WorkspaceFilesystem;

  constructor(ctx: DurableObjectState, env: Cloudflare.Env) {
    super(ctx, env);
    this.fs = new WorkspaceFilesystem(openDurableObjectDatabase(ctx.storage));
  }

  // Explicit return types: inferred ones through DurableObjectStub trip TS2589.
  getIncarnation(): string {
    return this.incarnation;
  }

  /** Writes `text` to `path`, creating the parent directories. */
  async writeText(path: string, text: string): Promise<void> {
    await this.fs.mkdir(path.slice(0, path.lastIndexOf("/")) || "/", { recursive: true });
    await this.fs.writeFile(path, text);
  }

  async readText(path: string): Promise<string> {
    return await this.fs.readFile(path, "utf8");
  }
}

export default {
  async fetch(): Promise<Response> {
    return new Response("dofs test worker", { status: 404 });
  },
} satisfies ExportedHandler<Cloudflare.Env>;
