/**
 * `@cloudflare/computer/tools/tanstack-ai`: the workspace tools for TanStack
 * AI (`@tanstack/ai`). Each tool has the shape `toolDefinition(...).server(fn)`
 * produces (declared here, so TanStack is not a dependency): a zod input
 * schema, which TanStack reads as a Standard JSON Schema, and `execute`.
 * `approve` marks tools `needsApproval`, `lazy` withholds them from the
 * prompt until discovered, and `streamEventName` sends exec's running
 * snapshots as custom events; the terminal snapshot is the result.
 */
import type { z } from "zod";
import { type CreateToolsOptions, createToolSet, MUTATING_TOOLS, runTool } from "./tool-set.js";

/** What TanStack hands a server tool's `execute`, as far as these tools use it. */
export interface TanStackToolContext {
  toolCallId?: string;
  abortSignal?: AbortSignal;
  emitCustomEvent?(name: string, value: Record<string, unknown>): void;
}

/** The shape of TanStack's server tool. */
export interface TanStackTool {
  __toolSide: "server";
  name: string;
  description: string;
  inputSchema: z.ZodType;
  needsApproval?: boolean;
  lazy?: boolean;
  execute(args: unknown, context?: TanStackToolContext): Promise<unknown>;
}

export interface CreateTanStackToolsOptions<F extends "array" | "object" = "array"> extends CreateToolsOptions {
  /** `"array"` (default) or `"object"` keyed by tool name. */
  format?: F;
  /** Tools that need the user's approval: names, or `"mutating"` (write, edit, delete, exec, publish). */
  approve?: readonly string[] | "mutating";
  /** Tools withheld from the prompt until the model discovers them: names, or `"all"`. */
  lazy?: readonly string[] | "all";
  /** When set, exec's running snapshots go out as custom events of this name: `{ toolCallId, snapshot }`. */
  streamEventName?: string;
}

export type TanStackTools<F extends "array" | "object"> = F extends "object"
  ? Record<string, TanStackTool>
  : TanStackTool[];

export function createTanStackTools<F extends "array" | "object" = "array">(
  options: CreateTanStackToolsOptions<F>,
): TanStackTools<F> {
  const { format, approve, lazy, streamEventName, ...rest } = options;
  if (format !== undefined && format !== "array" && format !== "object") {
    throw new TypeError(`format must be "array" or "object"; got ${JSON.stringify(format)}`);
  }
  const set = createToolSet(rest);
  const approved = new Set(approve === "mutating" ? MUTATING_TOOLS : (approve ?? []));
  const withheld = new Set(lazy === "all" ? Object.keys(set) : (lazy ?? []));
  const tools = Object.entries(set).map(([name, tool]): TanStackTool => {
    const entry: TanStackTool = {
      __toolSide: "server",
      name,
      description: tool.description ?? name,
      inputSchema: tool.inputSchema as z.ZodType,
      execute: (args, context = {}) =>
        runTool(tool, args, {
          toolCallId: context.toolCallId ?? `${name}-call`,
          ...(context.abortSignal ? { abortSignal: context.abortSignal } : {}),
          ...(streamEventName !== undefined && context.emitCustomEvent
            ? {
                onSnapshot: (snapshot: unknown) =>
                  context.emitCustomEvent?.(streamEventName, {
                    toolCallId: context.toolCallId ?? null,
                    snapshot: snapshot as Record<string, unknown>,
                  }),
              }
            : {}),
        }),
    };
    if (approved.has(name)) entry.needsApproval = true;
    if (withheld.has(name)) entry.lazy = true;
    return entry;
  });
  if (format === "object") return Object.fromEntries(tools.map((tool) => [tool.name, tool])) as TanStackTools<F>;
  return tools as TanStackTools<F>;
}
