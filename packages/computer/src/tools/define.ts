/**
 * The AI SDK's `tool()` is an identity function that only guides type
 * inference. Ours is the same function with the same type, so the tool
 * factories load without `ai` at run time: the pi and TanStack adapters
 * need only `zod`, and an agent never pulls in a library it does not use.
 */
import type { tool as aiTool } from "ai";

export const tool: typeof aiTool = ((definition: unknown) => definition) as typeof aiTool;
