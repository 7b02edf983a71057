/**
 * The chat protocol on the WebSocket at `/agents/assistant/<name>`, JSON
 * text frames both ways. The Agents SDK sends a few frames of its own
 * (`cf_agent_identity`, `cf_agent_mcp_servers`, …): clients ignore types
 * they do not know.
 */

/** Client → assistant. */
export interface ClientMessage {
  type: "prompt";
  text: string;
}

/** Assistant → every connected client. */
export type ServerMessage =
  /** On connect: which model answers, and how many turns the stored conversation has. */
  | { type: "ready"; model: string; demo: boolean; turns: number; note?: string }
  /** A piece of the assistant's text, as the model produces it. */
  | { type: "text"; delta: string }
  | { type: "tool-call"; id: string; tool: string; input: unknown }
  /** `preliminary`: a running snapshot (exec's output so far); the last result of a call is final. */
  | { type: "tool-result"; id: string; tool: string; output: unknown; preliminary?: boolean }
  /** The turn is over; `text` is all of the assistant's text in it. */
  | { type: "done"; text: string }
  | { type: "error"; message: string };
