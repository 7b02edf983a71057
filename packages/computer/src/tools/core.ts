/**
 * `@cloudflare/computer/tools/core`: the exec tool without any agent
 * library (needs only `zod`). `defineExec` resolves the backends once and
 * hands back what an adapter needs: a description, the zod input schema,
 * `prepareArguments` (an `input` sent as a JSON string is parsed) and
 * `execute`, an async generator of complete snapshots (running ones at most
 * every 100 ms, then the terminal one). Aborting the signal kills the run.
 */
import type { z } from "zod";
import { createExecTool, type ExecInput, type ExecOutput, type ExecToolOptions } from "./exec.js";

export interface ExecDefinition {
  description: string;
  inputSchema: z.ZodType<ExecInput>;
  prepareArguments(args: unknown): unknown;
  execute(input: ExecInput, options?: { abortSignal?: AbortSignal }): AsyncGenerator<ExecOutput>;
}

export function defineExec(options: ExecToolOptions): ExecDefinition {
  const tool = createExecTool(options);
  const execute = tool.execute;
  if (typeof execute !== "function") throw new TypeError("defineExec: the exec tool has no execute function");
  let calls = 0;
  return {
    description: tool.description ?? "exec",
    inputSchema: tool.inputSchema as z.ZodType<ExecInput>,
    prepareArguments(args) {
      if (args === null || typeof args !== "object") return args;
      const given = args as Record<string, unknown>;
      if (typeof given.input !== "string") return args;
      try {
        return { ...given, input: JSON.parse(given.input) };
      } catch {
        return args;
      }
    },
    async *execute(input, { abortSignal } = {}) {
      calls += 1;
      const output = await execute(input, {
        toolCallId: `exec-${calls}`,
        messages: [],
        ...(abortSignal ? { abortSignal } : {}),
      });
      if (output !== null && typeof output === "object" && Symbol.asyncIterator in output) {
        yield* output as AsyncIterable<ExecOutput>;
        return;
      }
      yield output as ExecOutput;
    },
  };
}

export { EXEC_MAX_BYTES, type ExecInput, type ExecOutput, type ExecSnapshot, type ExecToolOptions } from "./exec.js";
