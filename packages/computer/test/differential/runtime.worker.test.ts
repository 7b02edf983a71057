/**
 * Differential tests of the worker-javascript backend: the same module and
 * the same host options run on the published `@cloudflare/computer@0.2.1`
 * (`computer-reference`) and on ours, each in a fresh Durable Object with a
 * real Worker Loader, and the results must match. The options are written
 * once, in the original's shapes (issue 19 row 10): a `ws:*` host module
 * with `call(method, args, context)` and the original's limit names.
 */
import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { Workspace as ReferenceWorkspace } from "computer-reference";
import {
  WorkerJavaScriptBackend as ReferenceBackend,
  type WorkerJavaScriptBackendOptions as ReferenceOptions,
} from "computer-reference/backends/worker-javascript";
import { describe, expect, it } from "vitest";
import { WorkerJavaScriptBackend } from "../../src/backends/worker-javascript/index.js";
import { Workspace } from "../../src/workspace/workspace.worker.js";
import { referenceStorage } from "./main.worker.js";

type Side = "reference" | "ours";

interface Run {
  status: string;
  value: unknown;
  calls: unknown[];
}

/** Host options in the original's shapes; `calls` records what the host module saw. */
function options(calls: unknown[]): Omit<ReferenceOptions, "loader"> {
  return {
    trustedModules: {
      "ws:kv": {
        async call(method, args, context) {
          calls.push({ method, args, signal: context?.signal instanceof AbortSignal });
          if (method === "fail") throw new Error("kv is down");
          return { method, args };
        },
      },
    },
    maxDirectoryEntries: 2,
    maxExecutionSubscribers: 4,
  };
}

async function runOn(side: Side, files: Record<string, string>, source: string): Promise<Run> {
  const stub = env.COMPAT_SCRATCH.get(env.COMPAT_SCRATCH.newUniqueId());
  return runInDurableObject(stub, async (_instance, state) => {
    const calls: unknown[] = [];
    const given = { loader: env.LOADER as unknown as ReferenceOptions["loader"], ...options(calls) };
    const workspace =
      side === "reference"
        ? new ReferenceWorkspace({ storage: referenceStorage(state.storage), backends: [new ReferenceBackend(given)] })
        : new Workspace({ storage: state.storage, backends: [new WorkerJavaScriptBackend(given)] });
    await workspace.fs.mkdir("/workspace", { recursive: true });
    for (const [path, text] of Object.entries(files)) await workspace.fs.writeFile(path, text);
    const handle = await workspace.runtime.exec(source, { backend: "worker-javascript", encoding: "utf8" });
    const result = (await handle.result()) as { status: string; value?: unknown };
    return { status: result.status, value: result.value ?? null, calls };
  });
}

const scenarios: Record<string, { files?: Record<string, string>; source: string }> = {
  "a ws:* host module's call(method, ...args), its result and its error": {
    source: `import { call } from "ws:kv";
      export default async () => {
        const got = [await call("get", "a", 2), await call("none")];
        try { await call("fail"); } catch (error) { got.push(error.message); }
        return got;
      }`,
  },
  "maxDirectoryEntries bounds a readdir": {
    files: { "/workspace/a": "a", "/workspace/b": "b", "/workspace/c": "c" },
    source: `import { readdir } from "node:fs/promises";
      export default async () => { try { return await readdir("."); } catch (error) { return "refused"; } }`,
  },
  "maxDirectoryEntries lets a directory at the limit through": {
    files: { "/workspace/a": "a", "/workspace/b": "b" },
    source: `import { readdir } from "node:fs/promises";
      export default async () => (await readdir(".")).sort();`,
  },
};

describe("differential: worker-javascript with the original's option shapes", () => {
  for (const [name, { files = {}, source }] of Object.entries(scenarios)) {
    it(name, async () => {
      const reference = await runOn("reference", files, source);
      const ours = await runOn("ours", files, source);
      expect(reference.status).toBe("completed");
      expect(ours).toEqual(reference);
    });
  }
});
