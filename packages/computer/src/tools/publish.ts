/**
 * `publish`: uploads a workspace file through the workspace's assets client
 * and returns a time-limited URL. Objects are grouped under
 * `agent-<sessionId>` when the workspace has a session id, so a bucket
 * shared by many agents can be listed or expired per session.
 */
import type { Tool } from "ai";
import { z } from "zod";
import { tool } from "./define.js";
import { resolveToolPath } from "./file-store.js";
import type { PublishWorkspaceLike, ToolAssets, ToolShareOptions } from "./types.js";

export const PUBLISH_DEFAULT_EXPIRES_MS = 60 * 60 * 1000;

const publishInput = z.object({
  path: z.string().min(1).describe("File to publish: absolute, or relative to /workspace."),
  expiresAfterMs: z
    .number()
    .int()
    .positive()
    .optional()
    .describe("How long the URL works, in milliseconds (default one hour)."),
});

export type PublishInput = z.infer<typeof publishInput>;

export type PublishOutput = { ok: true; url: string } | { ok: false; error: string };

export interface PublishToolOptions {
  workspace: PublishWorkspaceLike;
}

/** The URL of a share, through whichever of the two assets shapes the workspace has. */
async function share(assets: ToolAssets, path: string, options: ToolShareOptions): Promise<string> {
  if ("share" in assets) return assets.share(path, options);
  // A Workspace's publish gives the URL; an older publisher of ours gives { url }.
  const published = await assets.publish(path, options);
  return typeof published === "string" ? published : published.url;
}

export function createPublishTool(options: PublishToolOptions): Tool<PublishInput, PublishOutput> {
  const { workspace } = options;
  const assets = workspace?.assets;
  // As the original: a publish tool without a publisher is a wiring mistake, reported when it is built.
  if (!assets) throw new TypeError("createPublishTool needs a workspace with assets (workspace.assets is not set)");
  return tool({
    description: "Publish a file from the workspace and get a URL anyone can open until it expires (default 1 hour).",
    inputSchema: publishInput,
    execute: async (input): Promise<PublishOutput> => {
      try {
        const shareOptions: ToolShareOptions = {
          expiresAfter: input.expiresAfterMs ?? PUBLISH_DEFAULT_EXPIRES_MS,
          ...(workspace.sessionId ? { prefix: `agent-${workspace.sessionId}` } : {}),
        };
        return { ok: true, url: await share(assets, resolveToolPath(input.path), shareOptions) };
      } catch (error) {
        return { ok: false, error: error instanceof Error ? error.message : String(error) };
      }
    },
  });
}
