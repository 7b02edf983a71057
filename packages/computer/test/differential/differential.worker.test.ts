/**
 * Differential tests: each scenario runs against the published
 * `@cloudflare/computer@0.2.1` (`computer-reference`) and against ours, each
 * in a fresh Durable Object with real SQLite storage, and every step's
 * outcome (the value, or the error's code and message) must be the same.
 *
 * A deliberate difference is listed in `differences` with its reason (and in
 * docs/migration.md); the test then asserts the two still differ at that
 * step, so a listed difference that has gone away fails too.
 */
import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { Workspace as ReferenceWorkspace, getWorkspace as referenceGetWorkspace } from "computer-reference";
import { describe, expect, it } from "vitest";
import { getWorkspace } from "../../src/workspace/client.js";
import { Workspace } from "../../src/workspace/workspace.worker.js";
import { referenceStorage } from "./main.worker.js";
import { scenarios, type WorkspaceLike } from "./scenarios.js";
import { mismatches as listedMismatches, type Outcome, type Settled, sameJson, type Trace, trace } from "./trace.js";

/** `scenario › step` → why ours deliberately answers differently. */
const differences: Record<string, string> = {};

type Side = "reference" | "ours";

async function runLocal(side: Side, scenario: (ws: WorkspaceLike, step: Trace["step"]) => Promise<void>) {
  const stub = env.COMPAT_SCRATCH.get(env.COMPAT_SCRATCH.newUniqueId());
  return runInDurableObject(stub, async (_instance, state) => {
    const ws =
      side === "reference"
        ? new ReferenceWorkspace({ storage: referenceStorage(state.storage) })
        : new Workspace({ storage: state.storage });
    return trace((step) => scenario(ws as unknown as WorkspaceLike, step));
  });
}

/** The client each package's own `getWorkspace` builds from a stub of its `withWorkspace` object. */
async function clientOf(side: Side): Promise<{ [Symbol.dispose](): void }> {
  if (side === "ours") return getWorkspace(env.OURS_WORKSPACE.get(env.OURS_WORKSPACE.newUniqueId()));
  // Cast: the stub's RPC typing hides the reference's host method; at run time it is there.
  const stub = env.REFERENCE_WORKSPACE.get(env.REFERENCE_WORKSPACE.newUniqueId());
  return referenceGetWorkspace(stub as unknown as Parameters<typeof referenceGetWorkspace>[0]);
}

async function runRemote(side: Side, scenario: (ws: WorkspaceLike, step: Trace["step"]) => Promise<void>) {
  const client = await clientOf(side);
  try {
    return await trace((step) => scenario(client as unknown as WorkspaceLike, step));
  } finally {
    client[Symbol.dispose]();
  }
}

/**
 * The one difference that applies to every fs error: the code is the same,
 * the message is in Node's shape (`ENOENT: no such file or directory, open: /a`)
 * where the original writes `<description>: <path>: <path>`, because
 * just-bash and user code written for Node match on Node's text.
 */
const nodeShapedMessage = /^E[A-Z]+: [^,]+, \w+/;

/** Every step that differs beyond the message form, and every listed difference that no longer differs. */
const mismatches = (name: string, reference: Outcome[], ours: Outcome[]): string[] =>
  listedMismatches(name, reference, ours, differences, (a, b) => sameJson(a, b) || sameUpToMessageForm(a, b));

function sameUpToMessageForm(reference: Settled, ours: Settled): boolean {
  if (!("error" in reference) || !("error" in ours)) return false;
  return reference.error.code === ours.error.code && nodeShapedMessage.test(ours.error.message);
}

describe("differential: Workspace in the Durable Object", () => {
  for (const [name, scenario] of Object.entries(scenarios)) {
    it(name, async () => {
      const reference = await runLocal("reference", scenario);
      const ours = await runLocal("ours", scenario);
      expect(mismatches(name, reference, ours)).toEqual([]);
    });
  }
});

describe("differential: withWorkspace + getWorkspace over RPC", () => {
  for (const [name, scenario] of Object.entries(scenarios)) {
    it(name, async () => {
      const reference = await runRemote("reference", scenario);
      const ours = await runRemote("ours", scenario);
      expect(mismatches(`rpc ${name}`, reference, ours)).toEqual([]);
    });
  }
});
