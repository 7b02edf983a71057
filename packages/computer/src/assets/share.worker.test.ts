/**
 * `share` against Miniflare's local R2 with the real FixedLengthStream, and
 * the Workspace seam: `workspace.assets.publish` (no prefix) and the
 * `publish` tool (prefix `agent-<sessionId>`) both land objects in R2.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { inToolsWorkspace } from "../../test/tools/harness.worker.js";
import { callTool } from "../../test/tools/scripted-model.js";
import { createAITools } from "../tools/create-ai-tools.js";
import { createAssets } from "./create-assets.js";
import { workspaceAssets } from "./workspace-assets.js";

const s3 = { bucket: "assets", accessKeyId: "AKID", secretAccessKey: "SECRET", endpoint: "https://r2.test" };

describe("share to R2", () => {
  it("(35) streams the file into the bucket with content type, disposition and metadata", async () => {
    await inToolsWorkspace(
      async ({ workspace }) => {
        await workspace.fs.mkdir("/workspace/secret", { recursive: true });
        const body = new Uint8Array(700 * 1024).map((_, i) => i % 251);
        await workspace.fs.writeFile("/workspace/secret/q3.pdf", body);
        const assets = createAssets({ ws: workspace, bucket: env.ASSETS_BUCKET, s3, env: {} });
        const shared = await assets.shareAsset("/workspace/secret/q3.pdf", { expiresAfter: 30_000, prefix: "/a//b/" });
        expect(shared.key).toMatch(/^a\/b\/[0-9a-z]{26}\/q3\.pdf$/);
        const object = await env.ASSETS_BUCKET.get(shared.key);
        expect(object).not.toBeNull();
        const stored = new Uint8Array(await (object as R2ObjectBody).arrayBuffer());
        // Byte by byte in a loop: a deep equal over 700 KiB is slow in vitest.
        expect(stored.byteLength).toBe(body.byteLength);
        expect(stored.every((byte, i) => byte === body[i])).toBe(true);
        expect(object?.httpMetadata).toMatchObject({
          contentType: "application/pdf",
          contentDisposition: 'inline; filename="q3.pdf"',
        });
        expect(object?.customMetadata).toEqual({
          sourcePath: "/workspace/secret/q3.pdf",
          sessionId: "s1",
          expiresAt: shared.expiresAt,
        });
        const again = await assets.shareAsset("/workspace/secret/q3.pdf", { expiresAfter: 30_000, prefix: "/a//b/" });
        expect(again.key).not.toBe(shared.key);
        expect(new URL(shared.url).searchParams.get("X-Amz-Expires")).toBe("30");
      },
      { sessionId: "s1" },
    );
  });

  it("a missing file rejects and puts nothing", async () => {
    await inToolsWorkspace(async ({ workspace }) => {
      const assets = createAssets({ ws: workspace, bucket: env.ASSETS_BUCKET, s3, env: {} });
      const before = (await env.ASSETS_BUCKET.list()).objects.length;
      await expect(
        assets.shareAsset("/workspace/none.txt", { expiresAfter: 1000, prefix: "missing" }),
      ).rejects.toMatchObject({
        code: "ENOENT",
      });
      expect((await env.ASSETS_BUCKET.list()).objects.length).toBe(before);
    });
  });

  it("workspace.assets.publish shares without a prefix; the publish tool under agent-<sessionId>", async () => {
    await inToolsWorkspace(
      async ({ workspace }) => {
        await workspace.fs.mkdir("/workspace", { recursive: true });
        await workspace.fs.writeFile("/workspace/out.png", new Uint8Array([0x89, 0x50, 0x4e, 0x47]));
        const direct = await workspace.assets?.publish("/workspace/out.png", { expiresAfter: 1000 });
        expect(typeof direct).toBe("string");
        const directKey = decodeURIComponent(new URL(direct as string).pathname).replace(/^\/assets\//, "");
        expect(directKey).toMatch(/^[0-9a-z]{26}\/out\.png$/);
        expect((await env.ASSETS_BUCKET.head(directKey))?.httpMetadata?.contentType).toBe("image/png");

        const { output } = await callTool(createAITools({ workspace }), "publish", { path: "out.png" });
        const url = new URL((output as { url: string }).url);
        const key = url.pathname.replace(/^\/assets\//, "");
        expect(key).toMatch(/^agent-s9\/[0-9a-z]{26}\/out\.png$/);
        expect(url.searchParams.get("X-Amz-Expires")).toBe("3600");
        expect(await env.ASSETS_BUCKET.head(key)).not.toBeNull();
      },
      { sessionId: "s9", assets: workspaceAssets({ bucket: env.ASSETS_BUCKET, s3, env: {} }) },
    );
  });
});
