/**
 * Differential tests against the published `@cloudflare/computer@0.8.0`
 * (`computer-reference-080`): host modules (`modules` with `ws:*` objects of
 * functions and factories, the prebuilt `./modules/*`), the checks the
 * backend's constructor makes, Node built-ins, and `shellQuote`. Each
 * scenario runs on both packages, each in a fresh Durable Object with a real
 * Worker Loader, and the outcomes (values, error messages) must match.
 */
import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { Workspace as ReferenceWorkspace, shellQuote as referenceShellQuote } from "computer-reference-080";
import { WorkerJavaScriptBackend as ReferenceBackend } from "computer-reference-080/backends/worker-javascript";
import { createGitModule as referenceGitModule } from "computer-reference-080/modules/git";
import { createToolBindings as referenceToolBindings } from "computer-reference-080/modules/tools";
import { describe, expect, it } from "vitest";
import { WorkerJavaScriptBackend } from "../../src/backends/worker-javascript/index.js";
import { shellQuote } from "../../src/contracts/sh.js";
import { createGitClient } from "../../src/git/index.js";
import { createGitModule } from "../../src/modules/git.js";
import { createToolBindings } from "../../src/modules/tools.js";
import { Workspace } from "../../src/workspace/workspace.worker.js";

type Side = "reference" | "ours";
type Modules = Record<string, unknown>;

/** What a run came to: its value and status, or the message exec rejected with. */
type Outcome = { status: string; value: unknown; stderr: string } | { rejected: string };

// biome-ignore lint/suspicious/noExplicitAny: each side's options are its own package's; the scenario is written once.
type AnyOptions = any;

function backendFor(side: Side, modules: Modules, extra: object = {}): ReferenceBackend | WorkerJavaScriptBackend {
  const options: AnyOptions = { loader: env.LOADER, modules, ...extra };
  return side === "reference" ? new ReferenceBackend(options) : new WorkerJavaScriptBackend(options);
}

async function runOn(
  side: Side,
  modules: () => Modules,
  source: string,
  setup: (fs: Workspace["fs"]) => Promise<void> = async () => {},
): Promise<Outcome> {
  const stub = env.COMPAT_SCRATCH.get(env.COMPAT_SCRATCH.newUniqueId());
  return runInDurableObject(stub, async (_instance, state) => {
    const backend = backendFor(side, modules());
    const options: AnyOptions = { storage: state.storage, backends: [backend], git: createGitClient() };
    const workspace = side === "reference" ? new ReferenceWorkspace(options) : new Workspace(options);
    try {
      await workspace.fs.mkdir("/workspace", { recursive: true });
      await setup(workspace.fs as Workspace["fs"]);
      const handle = await workspace.runtime.exec(source, { backend: "worker-javascript", encoding: "utf8" });
      const result = (await handle.result()) as { status: string; value?: unknown; stderr: string };
      return { status: result.status, value: result.value ?? null, stderr: result.stderr };
    } catch (error) {
      return { rejected: error instanceof Error ? error.message : String(error) };
    } finally {
      await workspace.close();
    }
  });
}

async function same(modules: (side: Side) => Modules, source: string): Promise<Outcome> {
  const reference = await runOn("reference", () => modules("reference"), source);
  const ours = await runOn("ours", () => modules("ours"), source);
  expect(ours).toEqual(reference);
  return ours;
}

const kv = () => ({
  "ws:kv": {
    get: (args: readonly unknown[], context: { access: string; callId: string; deadline: number }) => ({
      args: [...args],
      access: context.access,
      callIdIsText: typeof context.callId === "string" && context.callId.length > 0,
      deadline: typeof context.deadline,
    }),
    none: () => undefined,
    fail: () => {
      throw new Error("kv is down");
    },
  },
});

describe("differential 0.8.0: host modules", () => {
  it("an object of functions: every argument, the call context, undefined as null, a thrown message", async () => {
    const outcome = await same(
      kv,
      `import { get, none, fail } from "ws:kv";
        import * as kv from "ws:kv";
        export default async () => {
          const got = [await get("a", 2, { b: [true] }), await none(), Object.keys(kv).sort()];
          try { await fail(); } catch (error) { got.push(error.message); }
          return got;
        }`,
    );
    expect(outcome).toMatchObject({ status: "completed" });
  });

  it("a factory, called with the Workspace's services", async () => {
    await same(
      () => ({
        "ws:twice": Object.assign(() => ({ twice: ([n]: readonly unknown[]) => (n as number) * 2 }), {
          description: "doubles",
        }),
      }),
      'import { twice } from "ws:twice"; export default async () => [await twice(21)];',
    );
  });

  it("Node built-ins with and without node:", async () => {
    await same(
      () => ({}),
      `import path from "path"; import { posix } from "node:path"; import { createHash } from "crypto";
        import { EventEmitter } from "node:events"; import { Buffer } from "buffer";
        export default () => [path.join("a", "..", "b"), posix.basename("/x/y.js"),
          createHash("sha256").update("x").digest("hex"), typeof EventEmitter, Buffer.from("hi").toString("base64")];`,
    );
  });

  it("ws:tools from createToolBindings: names made identifiers, exec left out, one object argument", async () => {
    const tools = [
      {
        name: "list-files",
        readOnly: true,
        call: (input: object) => ({ text: JSON.stringify(input), isError: false }),
      },
      { name: "2fa.check", call: () => ({ text: "ok", isError: false, details: { n: 1 } }) },
      { name: "exec", call: () => ({ text: "never", isError: true }) },
    ];
    await same(
      (side) => ({ "ws:tools": side === "reference" ? referenceToolBindings(tools) : createToolBindings(tools) }),
      `import * as tools from "ws:tools";
        const message = (p) => p.then((r) => r, (e) => e.message);
        export default async () => [Object.keys(tools).sort(), await tools.list_files({ a: 1 }), await tools._2fa_check(),
          await message(tools.list_files(1))];`,
    );
  });

  it("ws:git from createGitModule: refusals without allowNetwork and for path overrides", async () => {
    await same(
      (side) => ({ "ws:git": side === "reference" ? referenceGitModule() : createGitModule() }),
      `import { clone, cli } from "ws:git";
        const message = (p) => p.then(() => "resolved", (e) => e.message);
        export default async () => [await message(clone({ url: "https://example.com/x.git", dir: "x" })),
          await message(cli({ argv: ["--git-dir=/etc", "status"] })), await message(cli({ argv: ["fetch"] })),
          await message(cli({ argv: ["-C"] }))];`,
    );
  });
});

describe("differential 0.8.0: a module that throws", () => {
  it("prints the error's message, not its stack", async () => {
    const outcome = await same(() => ({}), 'export default () => { throw new TypeError("boom"); }');
    expect(outcome).toMatchObject({ status: "failed" });
  });
});

describe("differential 0.8.0: what the backend's constructor refuses", () => {
  const cases: Record<string, Modules> = {
    "source under ws:": { "ws:x": "export default 1" },
    "a library name with a slash": { "a/b": "export default 1" },
    "replacing node:fs/promises": { "node:fs/promises": "export default 1" },
    "a host module without ws:": { kv: { get: () => 1 } },
    "a ws: name starting with a dot": { "ws:.x": { get: () => 1 } },
    "no exports": { "ws:kv": {} },
    "an export named default": { "ws:kv": { default: () => 1 } },
    "an export that is no identifier": { "ws:kv": { "a-b": () => 1 } },
    "an export that is no function": { "ws:kv": { get: "x" } },
    null: { "ws:kv": null },
  };
  for (const [name, modules] of Object.entries(cases)) {
    it(name, () => {
      const message = (side: Side): string => {
        try {
          backendFor(side, modules);
          return "accepted";
        } catch (error) {
          return error instanceof Error ? error.message : String(error);
        }
      };
      const reference = message("reference");
      expect(reference).not.toBe("accepted");
      expect(message("ours")).toBe(reference);
    });
  }
});

/** A module backend that runs every execution under an id of its own, whatever it was asked for. */
class OwnIdBackend {
  readonly protocol = "module";
  readonly id = "own-id";
  readonly type = "own-id";
  readonly callable = false;

  async connect() {
    const events = (id: string) =>
      new ReadableStream({
        start(controller) {
          controller.enqueue({ id, seq: 1, name: "exit", code: 0 });
          controller.close();
        },
      });
    return {
      exec: async () => ({ id: "backend-chose-this", events: events("backend-chose-this") }),
      getExec: async ({ id }: { id: string }) => ({ id, events: events(id) }),
      killExec: async () => {},
      disposeExec: async () => {},
    };
  }
}

describe("differential 0.8.0: an execution's id", () => {
  it("is the backend's own when the caller asked for none (and, deliberately, refused when it differs from one asked for)", async () => {
    const outcome = async (side: Side, id: string | undefined) => {
      const stub = env.COMPAT_SCRATCH.get(env.COMPAT_SCRATCH.newUniqueId());
      return runInDurableObject(stub, async (_instance, state) => {
        const options: AnyOptions = { storage: state.storage, backends: [new OwnIdBackend()] };
        const workspace = side === "reference" ? new ReferenceWorkspace(options) : new Workspace(options);
        try {
          const handle = await workspace.runtime.exec("x", { backend: "own-id", ...(id === undefined ? {} : { id }) });
          return { id: handle.id, exitCode: (await handle.result()).exitCode };
        } catch {
          // The messages differ (each package's own words); that the call is refused is what must match.
          return "refused";
        } finally {
          await workspace.close();
        }
      });
    };
    // No id asked for: both take the backend's.
    expect(await outcome("ours", undefined)).toEqual({ id: "backend-chose-this", exitCode: 0 });
    expect(await outcome("reference", undefined)).toEqual(await outcome("ours", undefined));
    // An id asked for: 0.8.0's Workspace runtime takes a module backend's other id too; ours refuses it
    // (EEXEC_ID), deliberately: getExec/killExec by the id the caller chose would find nothing
    // (docs/migration.md). The test records that the two still differ.
    expect(await outcome("reference", "mine")).toEqual({ id: "backend-chose-this", exitCode: 0 });
    expect(await outcome("ours", "mine")).toBe("refused");
  });
});

describe("differential 0.8.0: shellQuote", () => {
  it("leaves the same strings bare and quotes the rest alike", () => {
    const values = [
      "a=b",
      "--color=never",
      "src/a-b_c.ts",
      "user@host:/p,q%+1",
      "",
      "a b",
      "it's",
      "~",
      "$(x)",
      "é",
      "*",
    ];
    expect(values.map(shellQuote)).toEqual(values.map(referenceShellQuote));
  });
});
