/**
 * Differential tests of the file tools with the original's option shapes
 * (issue 19 row 12): the same tool calls through the published
 * `@cloudflare/computer@0.2.1` (`computer-reference/tools`) and ours, each
 * with its own package's `create*Tool({ store })` over its own Workspace in
 * a fresh Durable Object; the outputs must match.
 */
import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { Workspace as ReferenceWorkspace } from "computer-reference";
import * as reference from "computer-reference/tools";
import { describe, expect, it } from "vitest";
import * as ours from "../../src/tools/index.js";
import { Workspace } from "../../src/workspace/workspace.worker.js";
import { referenceStorage } from "./main.worker.js";

type Side = "reference" | "ours";
type Call = [tool: "read" | "write", input: Record<string, unknown>];
interface Executable {
  execute?: (input: never, options: never) => unknown;
}

async function callsOn(side: Side, files: Record<string, string>, calls: Call[]): Promise<unknown[]> {
  const stub = env.COMPAT_SCRATCH.get(env.COMPAT_SCRATCH.newUniqueId());
  return runInDurableObject(stub, async (_instance, state) => {
    const workspace =
      side === "reference"
        ? new ReferenceWorkspace({ storage: referenceStorage(state.storage) })
        : new Workspace({ storage: state.storage });
    await workspace.fs.mkdir("/workspace", { recursive: true });
    for (const [path, text] of Object.entries(files)) await workspace.fs.writeFile(path, text);
    const tools =
      side === "reference"
        ? (() => {
            const store = new reference.WorkspaceFileStore(workspace as unknown as ReferenceWorkspace);
            return {
              read: reference.createReadTool({ store, maxLines: 2 }),
              write: reference.createWriteTool({ store, maxBytes: 4 }),
            };
          })()
        : (() => {
            const store = new ours.WorkspaceFileStore(workspace as Workspace);
            return {
              read: ours.createReadTool({ store, maxLines: 2 }),
              write: ours.createWriteTool({ store, maxBytes: 4 }),
            };
          })();
    const outputs: unknown[] = [];
    for (const [name, input] of calls) {
      const execute = (tools[name] as Executable).execute as (input: unknown, options: unknown) => unknown;
      outputs.push(await execute(input, { toolCallId: "call", messages: [] }));
    }
    return outputs;
  });
}

const scenarios: Record<string, { files: Record<string, string>; calls: Call[] }> = {
  "read pages by the configured maxLines and continues from nextOffset": {
    files: { "/workspace/n.txt": "1\n2\n3\n4\n5\n" },
    calls: [
      ["read", { path: "/workspace/n.txt" }],
      ["read", { path: "/workspace/n.txt", offset: 3 }],
      ["read", { path: "/workspace/n.txt", offset: 5 }],
    ],
  },
  "write within the configured maxBytes": {
    files: {},
    calls: [
      ["write", { path: "/workspace/w.txt", content: "abcd" }],
      ["read", { path: "/workspace/w.txt" }],
    ],
  },
};

describe("differential: file tools with the original's option shapes", () => {
  for (const [name, { files, calls }] of Object.entries(scenarios)) {
    it(name, async () => {
      const theirs = await callsOn("reference", files, calls);
      const mine = await callsOn("ours", files, calls);
      expect(mine).toEqual(theirs);
    });
  }
});
