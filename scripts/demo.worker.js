// The demo's Worker, run by workerd through Miniflare (see scripts/demo.mjs).
// `DemoComputer` is a Durable Object whose SQLite storage is the workspace
// filesystem, built from the compiled package in packages/dofs/dist.
import { DurableObject } from "cloudflare:workers";
import { openDurableObjectDatabase, WorkspaceFilesystem } from "../packages/dofs/dist/index.js";

export class DemoComputer extends DurableObject {
  constructor(ctx, env) {
    super(ctx, env);
    this.fs = new WorkspaceFilesystem(openDurableObjectDatabase(ctx.storage));
    // A new value per instance, so the demo can show the object really restarted.
    this.instance = crypto.randomUUID().slice(0, 8);
  }

  instanceId() {
    return this.instance;
  }

  /** Writes `files` (path → text), creating parent directories; returns each file's size. */
  async writeFiles(files) {
    const written = [];
    for (const [path, text] of Object.entries(files)) {
      await this.fs.mkdir(path.slice(0, path.lastIndexOf("/")) || "/", { recursive: true });
      await this.fs.writeFile(path, text);
      written.push({ path, size: (await this.fs.stat(path)).size });
    }
    return written;
  }

  async readText(path) {
    return await this.fs.readFile(path, "utf8");
  }

  async grep(pattern, dir) {
    return await this.fs.grep(pattern, dir);
  }

  async find(dir, pattern) {
    return await this.fs.find(dir, pattern);
  }
}

const METHODS = new Set(["instanceId", "writeFiles", "readText", "grep", "find"]);

export default {
  /** `POST /<method>` with a JSON array of arguments → the DO's result as JSON. */
  async fetch(request, env) {
    const method = new URL(request.url).pathname.slice(1);
    if (request.method !== "POST" || !METHODS.has(method)) return new Response("not found", { status: 404 });
    const stub = env.COMPUTER.get(env.COMPUTER.idFromName("demo"));
    try {
      return Response.json({ value: await stub[method](...(await request.json())) });
    } catch (error) {
      return Response.json({ error: String(error?.message ?? error) }, { status: 500 });
    }
  },
};
