/**
 * `publish`: uploads a workspace file through the workspace's assets client
 * and returns a time-limited URL. Objects are grouped under
 * `agent-<sessionId>` when the workspace has a session id, so a bucket
 * shared by many agents can be listed or expired per session.
 */
import { type Tool, tool } from "ai";
import { z } from "zod";
import { resolveToolPath } from "./file-store.js";
import type { ToolPublishOptions, ToolWorkspace } from "./types.js";

export const PUBLISH_DEFAULT_EXPIRES_MS = 60 * 60 * 1000;

const publishInput = z.object({
  path: z.string().describe("File to publish: absolute, or relative to /workspace."),
  expiresAfterMs: z
    .number()
    .positive()
    .optional()
    .describe("How long the URL works, in ms (default 1 hour, at most 7 days)."),
});

export type PublishInput = z.infer<typeof publishInput>;

export type PublishOutput = { ok: true; url: string } | { ok: false; error: string };

export function createPublishTool(options: { workspace: ToolWorkspace }): Tool<PublishInput, PublishOutput> {
  const { workspace } = options;
  return tool({
    description: "Publish a file from the workspace and get a URL anyone can open until it expires (default 1 hour).",
    inputSchema: publishInput,
    execute: async (input): Promise<PublishOutput> => {
      try {
        const assets = workspace.assets;
        if (!assets) throw new Error("Workspace assets are not configured");
        const publishOptions: ToolPublishOptions = {
          expiresAfter: input.expiresAfterMs ?? PUBLISH_DEFAULT_EXPIRES_MS,
          ...(workspace.sessionId ? { prefix: `agent-${workspace.sessionId}` } : {}),
        };
        const published = await assets.publish(resolveToolPath(input.path), publishOptions);
        // A Workspace's (and the original's stub's) publish gives the URL; a publisher of ours may give { url }.
        const url = typeof published === "string" ? published : published.url;
        return { ok: true, url };
      } catch (error) {
        return { ok: false, error: error instanceof Error ? error.message : String(error) };
      }
    },
  });
}
