/**
 * `@cloudflare/computer/tools/pi-ai`: the workspace tools for pi
 * (`@earendil-works/pi-ai`). pi's shapes are declared here rather than
 * imported, so pi never becomes a dependency: `tools` is pi's `Tool[]`
 * (JSON schema parameters) for a `Context`, and `execute` answers one of the
 * model's `ToolCall`s with the content of a `ToolResultMessage`. An unknown
 * tool, bad arguments or a throwing tool all come back as `isError` results.
 */
import { z } from "zod";
import { type CreateToolsOptions, createToolSet, errorOf, READ_ONLY_TOOLS, runTool } from "./tool-set.js";

/** pi's `Tool`, as far as these tools use it. */
export interface PiTool {
  name: string;
  description: string;
  parameters: Record<string, unknown>;
  constrainedSampling?: { type: "json_schema"; strict: "prefer" | "require" };
}

/** pi's `ToolCall` (an assistant message's content block). */
export interface PiToolCall {
  type?: "toolCall";
  id: string;
  name: string;
  arguments: Record<string, unknown>;
}

export type PiToolContent = { type: "text"; text: string } | { type: "image"; data: string; mimeType: string };

/** The content of pi's `ToolResultMessage` for one call. */
export interface PiToolResult {
  content: PiToolContent[];
  isError: boolean;
  details?: unknown;
}

export interface CreatePiToolsOptions extends CreateToolsOptions {
  /** Constrained sampling for the tools' JSON schemas: `"prefer"` (default), `"require"`, or `false` for none. */
  constrainedSampling?: "prefer" | "require" | false;
}

export interface PiTools {
  tools: PiTool[];
  execute(call: PiToolCall, context?: { abortSignal?: AbortSignal }): Promise<PiToolResult>;
  /** The tools that change nothing (read, ls, find, grep), for `forPiTools`' read-only list. */
  readOnly: string[];
}

function failed(text: string): PiToolResult {
  return { content: [{ type: "text", text }], isError: true };
}

/** A read of an image comes back as pi image content; everything else as JSON text. */
function contentOf(output: unknown): PiToolContent[] {
  const media = output as { kind?: unknown; data?: unknown; mediaType?: unknown; path?: unknown };
  if (media?.kind === "image" && typeof media.data === "string" && typeof media.mediaType === "string") {
    return [
      { type: "text", text: `Image ${String(media.path)} (${media.mediaType})` },
      { type: "image", data: media.data, mimeType: media.mediaType },
    ];
  }
  return [{ type: "text", text: typeof output === "string" ? output : JSON.stringify(output, null, 2) }];
}

export function createPiTools(options: CreatePiToolsOptions): PiTools {
  const { constrainedSampling = "prefer", ...rest } = options;
  const set = createToolSet(rest);
  const tools: PiTool[] = Object.entries(set).map(([name, tool]) => {
    const schema = tool.inputSchema as z.ZodType;
    const { $schema: _dialect, ...parameters } = z.toJSONSchema(schema, { io: "input" }) as Record<string, unknown>;
    return {
      name,
      description: tool.description ?? name,
      parameters,
      ...(constrainedSampling === false
        ? {}
        : { constrainedSampling: { type: "json_schema", strict: constrainedSampling } }),
    };
  });
  return {
    tools,
    readOnly: READ_ONLY_TOOLS.filter((name) => name in set),
    async execute(call, context = {}) {
      const tool = Object.hasOwn(set, call.name) ? set[call.name] : undefined;
      if (!tool) return failed(`Unknown tool "${call.name}"; tools: ${Object.keys(set).join(", ")}`);
      const parsed = (tool.inputSchema as z.ZodType).safeParse(call.arguments ?? {});
      if (!parsed.success) return failed(`Invalid arguments for ${call.name}: ${z.prettifyError(parsed.error)}`);
      try {
        const output = await runTool(tool, parsed.data, {
          toolCallId: call.id,
          ...(context.abortSignal ? { abortSignal: context.abortSignal } : {}),
        });
        const error = errorOf(output);
        if (error !== undefined) return { content: [{ type: "text", text: error }], isError: true, details: output };
        return { content: contentOf(output), isError: false, details: output };
      } catch (error) {
        return failed(error instanceof Error ? error.message : String(error));
      }
    },
  };
}
