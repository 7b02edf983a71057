/**
 * What a run reports, in order, over `GET /api/runs/<id>/events/<runtime>`
 * (Server-Sent Events, `data:` is the JSON below, `id:` its sequence number).
 * `t` is milliseconds since the run started.
 */
export type RunEvent = { t: number } & (
  | { type: "start"; runtime: string; task: string; model: string; demo: boolean }
  | { type: "text"; delta: string }
  | { type: "tool-call"; id: string; tool: string; input: unknown }
  /** `preliminary`: a running snapshot (exec's output so far). */
  | { type: "tool-result"; id: string; tool: string; output: unknown; preliminary: boolean }
  /** The last event of a run. */
  | { type: "finish"; status: RunStatus; durationMs: number; error?: string }
);

export type RunStatus = "running" | "completed" | "stopped" | "failed";

export interface RunState {
  runId: string;
  runtime: string;
  task: string;
  status: RunStatus;
  startedAt: number;
  durationMs: number | null;
  events: number;
}
