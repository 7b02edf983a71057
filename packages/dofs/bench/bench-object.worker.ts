/**
 * The workerd side of the benchmark: a Durable Object whose SQLite storage
 * backs a WorkspaceFilesystem, with one RPC method per workload. `run.node.ts`
 * bundles this file with esbuild and starts it in Miniflare; the entry's
 * `fetch` turns `GET /<workload>` into that RPC call and answers its JSON.
 * Timings are taken in here, so they exclude the Node⇄workerd hop.
 */
import { DurableObject } from "cloudflare:workers";
import { WorkspaceFilesystem } from "../src/filesystem.js";
import { openDurableObjectDatabase } from "../src/storage-database.js";
import {
  type ComponentsResult,
  components,
  type FindResult,
  find,
  type GrepResult,
  grep,
  type SmallFilesResult,
  type StreamResult,
  smallFiles,
  streaming,
  writeGenerated,
} from "./workloads.js";

interface BenchEnv {
  BENCH: DurableObjectNamespace<BenchObject>;
}

export class BenchObject extends DurableObject<BenchEnv> {
  readonly #fs: WorkspaceFilesystem;

  constructor(ctx: DurableObjectState, env: BenchEnv) {
    super(ctx, env);
    this.#fs = new WorkspaceFilesystem(openDurableObjectDatabase(ctx.storage));
  }

  // Explicit return types: inferred ones through DurableObjectStub trip TS2589.
  smallFiles(): Promise<SmallFilesResult> {
    return smallFiles(this.#fs);
  }

  streaming(): Promise<StreamResult> {
    return streaming(this.#fs);
  }

  grep(): Promise<GrepResult> {
    return grep(this.#fs);
  }

  find(): Promise<FindResult> {
    return find(this.#fs);
  }

  components(): Promise<ComponentsResult> {
    return components(this.#fs.db);
  }

  /** Streams `bytes` of generated content into a new file; the runner watches workerd's memory meanwhile. */
  async write(bytes: number): Promise<{ ms: number }> {
    await this.#fs.mkdir("/memory", { recursive: true });
    return { ms: await writeGenerated(this.#fs, `/memory/${bytes}.bin`, bytes) };
  }
}

export default {
  async fetch(request, env): Promise<Response> {
    const url = new URL(request.url);
    const stub = env.BENCH.get(env.BENCH.idFromName("bench"));
    const workload = url.pathname.slice(1);
    switch (workload) {
      case "smallFiles":
        return Response.json(await stub.smallFiles());
      case "streaming":
        return Response.json(await stub.streaming());
      case "grep":
        return Response.json(await stub.grep());
      case "find":
        return Response.json(await stub.find());
      case "components":
        return Response.json(await stub.components());
      case "write":
        return Response.json(await stub.write(Number(url.searchParams.get("bytes"))));
      default:
        return new Response(`unknown workload ${workload}`, { status: 404 });
    }
  },
} satisfies ExportedHandler<BenchEnv>;
