/**
 * What the tools' differential suites share (tools.worker.test.ts,
 * tools-random.worker.test.ts): each package's Workspace over a Durable
 * Object's storage, files written the same way on both, one tool call
 * through the real AI SDK, and the comparable form of an outcome: error
 * texts (each package's own words), times, and the AI SDK part type of an
 * attachment (the original emits the AI SDK 7 `file` part, ours the AI SDK 6
 * `image-data` / `file-data` parts; see docs/tools.md) are normalized away.
 */

import type { ToolSet } from "ai";
import { Workspace as ReferenceWorkspace } from "computer-reference";
import { Workspace } from "../../src/workspace/workspace.worker.js";
import { modelOutputOf, runScript } from "../tools/scripted-model.js";
import { referenceStorage } from "./main.worker.js";
import { normalize as normalizeValue } from "./trace.js";

export type Side = "reference" | "ours";
export type Files = Record<string, string | Uint8Array | { text: string; mode: number }>;

export interface Call {
  tool: string;
  input: unknown;
}

/** The side's own Workspace, typed as ours (the two share the fs calls the suites make). */
export function workspaceOn(side: Side, storage: DurableObjectStorage): Workspace {
  return side === "reference"
    ? (new ReferenceWorkspace({ storage: referenceStorage(storage) }) as unknown as Workspace)
    : new Workspace({ storage });
}

/** One call as the SDK ran it: the tool's output and what the model saw, or the SDK's refusal of the input. */
export async function sdkCall(tools: ToolSet, call: Call): Promise<unknown> {
  const { result, model } = await runScript(tools, [[call]]);
  const step = result.steps[0];
  const done = step?.toolResults[0];
  if (!done) {
    const refused = step?.content.find((part) => part.type === "tool-error");
    return { refused: refused === undefined ? "no result" : "invalid input" };
  }
  return { output: done.output, model: modelOutputOf(model, 1, "call-0-0") };
}

const ATTACHMENT_TYPES = new Set(["file", "image-data", "file-data"]);

/** The comparable form of an outcome (see the header). */
export function normalize(value: unknown): unknown {
  const plain = normalizeValue(value);
  const walk = (node: unknown, key?: string): unknown => {
    if (Array.isArray(node)) return node.map((item) => walk(item));
    if (typeof node !== "object" || node === null) {
      return key === "error" && typeof node === "string" ? "<error>" : node;
    }
    const record = node as Record<string, unknown>;
    if (record.type === "error-text") return { type: "error-text", value: "<error>" };
    if (typeof record.type === "string" && ATTACHMENT_TYPES.has(record.type) && "mediaType" in record) {
      const data = typeof record.data === "string" ? record.data : (record.data as { data?: unknown })?.data;
      return { attachment: { mediaType: record.mediaType, data } };
    }
    if (record.type === "text" && typeof record.text === "string") return { type: "text", text: "<caption>" };
    return Object.fromEntries(Object.entries(record).map(([k, v]) => [k, walk(v, k)]));
  };
  return walk(plain);
}

export async function writeFiles(fs: Workspace["fs"], files: Files, dirs: readonly string[]): Promise<void> {
  await fs.mkdir("/workspace", { recursive: true });
  for (const dir of dirs) await fs.mkdir(dir, { recursive: true });
  for (const [path, content] of Object.entries(files)) {
    await fs.mkdir(path.slice(0, path.lastIndexOf("/")), { recursive: true });
    if (typeof content === "object" && !(content instanceof Uint8Array)) {
      await fs.writeFile(path, content.text, { mode: content.mode });
    } else {
      await fs.writeFile(path, content);
    }
  }
}

export async function fileState(fs: Workspace["fs"], path: string): Promise<unknown> {
  try {
    const stat = await fs.stat(path);
    if (stat.isDirectory) return { dir: true };
    // Bytes, not readFile(path, "utf8"): the original's utf8 read drops a byte-order mark.
    const bytes = new Uint8Array(await new Response(await fs.readFile(path)).arrayBuffer());
    return { text: new TextDecoder("utf-8", { fatal: false, ignoreBOM: true }).decode(bytes), mode: stat.mode & 0o777 };
  } catch (error) {
    return { missing: (error as { code?: string }).code };
  }
}
