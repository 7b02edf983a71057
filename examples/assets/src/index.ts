/**
 * The assets example: Workers AI draws an image from a prompt, the bytes are
 * streamed into the workspace's filesystem, and `@cloudflare/computer/assets`
 * shares the file through R2 with a presigned URL that lives one hour.
 *
 *   POST /prompt {prompt}       → 200 {path, url}   (400 for a missing, empty or too long prompt)
 *   GET  /workspace/<path>      → the file from the workspace (404 if missing)
 *
 * One Workspace (Durable Object) keeps every image under /workspace/images.
 */
import { DurableObject } from "cloudflare:workers";
import { getWorkspace, withWorkspace } from "@cloudflare/computer";
import { createAssets } from "@cloudflare/computer/assets";
import { LocalImageModel } from "./local-ai.js";
import { LOCAL_R2_PREFIX, serveLocalR2 } from "./local-r2.js";

interface Env {
  COMPUTER: DurableObjectNamespace<Computer>;
  AI: Ai;
  /** Where shared images are uploaded. */
  IMAGES: R2Bucket;
  /** The same bucket's name in R2's S3 API, which presigned URLs address. */
  IMAGES_BUCKET_NAME: string;
  /** S3 credentials for presigning (secrets) and the account, or an explicit endpoint. See README. */
  R2_ACCESS_KEY_ID?: string;
  R2_SECRET_ACCESS_KEY?: string;
  CLOUDFLARE_ACCOUNT_ID?: string;
  R2_ENDPOINT?: string;
  /** Dev only: "1" swaps in the local image model and serves presigned URLs from `/local-r2/`. */
  LOCAL_STAND_INS?: string;
}

/** A text-to-image model whose output is PNG bytes. */
const MODEL = "@cf/stabilityai/stable-diffusion-xl-base-1.0";
/** The model's limit on prompt length. */
const MAX_PROMPT = 2048;
/** How long a shared URL works, ms. */
const SHARE_FOR = 60 * 60 * 1000;

interface TextToImage {
  run(model: typeof MODEL, inputs: { prompt: string }): Promise<ReadableStream<Uint8Array>>;
}

type PromptReply = { ok: true; path: string; url: string } | { ok: false; error: string; code?: string };

export class Computer extends withWorkspace(DurableObject<Env>, (self) => ({
  storage: self.ctx.storage,
  // `createAssets` copies a file to R2 and signs a GET URL (credentials come from env); given the workspace.
  assets: (ws) =>
    createAssets({ ws, bucket: self.env.IMAGES, s3: { bucket: self.env.IMAGES_BUCKET_NAME }, env: self.env }),
})) {
  async prompt(prompt: string): Promise<PromptReply> {
    try {
      const workspace = await getWorkspace(this);
      if (!workspace.assets) throw new Error("the workspace has no assets client");
      const image = await imageModel(this.env).run(MODEL, { prompt });
      const path = `/workspace/images/${crypto.randomUUID()}.png`;
      await workspace.fs.mkdir("/workspace/images", { recursive: true });
      // Straight from the model's stream into the workspace's SQLite: the image is never held whole.
      await workspace.fs.writeFile(path, image);
      // The URL itself, as the original's publish (the Workspace's own client also has share(path, options)).
      const url = await workspace.assets.publish(path, { expiresAfter: SHARE_FOR });
      return { ok: true, path, url };
    } catch (error) {
      const code = (error as { code?: unknown }).code;
      return {
        ok: false,
        error: error instanceof Error ? error.message : String(error),
        ...(typeof code === "string" ? { code } : {}),
      };
    }
  }

  /** null when the file does not exist (expected misses return null across RPC). */
  async readFile(path: string): Promise<Uint8Array | null> {
    const workspace = await getWorkspace(this);
    if (!(await workspace.fs.exists(path))) return null;
    return new Uint8Array(await new Response(await workspace.fs.readFile(path)).arrayBuffer());
  }
}

function imageModel(env: Env): TextToImage {
  return env.LOCAL_STAND_INS === "1" ? new LocalImageModel() : env.AI;
}

/** `/workspace/<path>` from the URL, or null when it leaves /workspace. */
function workspacePath(pathname: string): string | null {
  let decoded: string;
  try {
    decoded = decodeURIComponent(pathname);
  } catch {
    return null;
  }
  const segments = decoded.split("/").slice(1);
  if (segments.includes("..") || segments.includes(".") || decoded.includes("\0")) return null;
  if (segments[0] !== "workspace" || segments.length < 2 || segments.at(-1) === "") return null;
  return decoded;
}

function json(value: unknown, status = 200): Response {
  return Response.json(value, { status });
}

export default {
  async fetch(request: Request, env: Env): Promise<Response> {
    const url = new URL(request.url);
    const computer = env.COMPUTER.get(env.COMPUTER.idFromName("images"));
    if (env.LOCAL_STAND_INS === "1" && url.pathname.startsWith(LOCAL_R2_PREFIX)) return serveLocalR2(request, env);
    if (url.pathname === "/prompt") {
      if (request.method !== "POST") return new Response("POST only\n", { status: 405 });
      let body: unknown;
      try {
        body = await request.json();
      } catch {
        return json({ error: "the body must be JSON" }, 400);
      }
      const prompt = (body as { prompt?: unknown } | null)?.prompt;
      if (typeof prompt !== "string" || prompt.trim() === "" || prompt.length > MAX_PROMPT) {
        return json({ error: `prompt must be a non-empty string of at most ${MAX_PROMPT} characters` }, 400);
      }
      const reply = await computer.prompt(prompt);
      if (reply.ok) return json({ path: reply.path, url: reply.url });
      return json({ error: reply.error, ...(reply.code ? { code: reply.code } : {}) }, 500);
    }
    if (url.pathname.startsWith("/workspace/")) {
      if (request.method !== "GET") return new Response("GET only\n", { status: 405 });
      const path = workspacePath(url.pathname);
      if (!path) return json({ error: "paths must stay inside /workspace and may not contain .." }, 400);
      const bytes = await computer.readFile(path);
      if (bytes === null) return json({ error: `ENOENT: no such file or directory, open '${path}'` }, 404);
      const type = path.endsWith(".png") ? "image/png" : "application/octet-stream";
      return new Response(bytes, { headers: { "content-type": type } });
    }
    return new Response("assets example: POST /prompt {prompt}, GET /workspace/<path>\n", { status: 404 });
  },
} satisfies ExportedHandler<Env>;
