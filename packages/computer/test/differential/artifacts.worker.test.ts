/**
 * Differential tests of `./artifacts` (issue 19 row 14): the same calls on
 * the published `@cloudflare/computer@0.2.1` (`computer-reference/artifacts`,
 * and its `Workspace` for the wiring) and on ours, each over its own
 * `MemoryArtifactsBinding`. Artifacts is a Cloudflare service not reachable
 * here, so the fake sits behind the binding's own interface (`Artifacts`
 * from workers-types), the one Cloudflare-owned edge; everything above it is
 * each package's real code.
 *
 * Secrets are random, so token plaintexts are replaced by `<secret>`; ids
 * (`tok_N`) and times come from the fake and are compared as they are.
 * Where ours words a message its own way (help texts, the reason a name is
 * refused, our own miss messages), the scenario compares a projection — the
 * exit status, stdout, and stderr up to the subcommand's frame — on both
 * sides alike. Behavior that deliberately differs is in `differences`, and
 * the test fails if it stops differing.
 */
import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { Workspace as ReferenceWorkspace, getWorkspace as referenceGetWorkspace } from "computer-reference";
import * as reference from "computer-reference/artifacts";
import { describe, expect, it } from "vitest";
import * as ours from "../../src/artifacts/index.js";
import { MemoryArtifactsBinding } from "../../src/artifacts/index.js";
import { getWorkspace } from "../../src/workspace/client.js";
import { Workspace } from "../../src/workspace/workspace.worker.js";
import { referenceStorage } from "./main.worker.js";
import { mismatches } from "./trace.js";

interface CliResult {
  stdout: string;
  stderr: string;
  exitCode: number;
}
type RemoteAdd = (remote: { name: string; url: string; force?: boolean }) => Promise<{
  ok: boolean;
  exists?: boolean;
  message?: string;
}>;
interface Client {
  readonly sessionId: string;
  create(name: string, options?: { description?: string; readOnly?: boolean }): Promise<unknown>;
  get(name: string): Promise<unknown>;
  list(): Promise<unknown>;
  import(name: string, source: { url: string }, options?: unknown): Promise<unknown>;
  delete(name: string): Promise<boolean>;
  createToken(name: string, scope?: "read" | "write", ttl?: number): Promise<{ id: string; plaintext: string }>;
  listTokens(name: string): Promise<unknown>;
  getToken(name: string, id: string): Promise<unknown>;
  revokeToken(name: string, tokenOrId: string): Promise<boolean>;
  cli(input: { argv: string[]; remoteAdd?: RemoteAdd }): Promise<CliResult>;
}
interface Package {
  createArtifact(binding: Artifacts, sessionId: string): Client;
  ArtifactError: abstract new (...args: never[]) => Error;
  /** A Workspace of this package over a fresh Durable Object's storage, with `options`. */
  workspace(options: Record<string, unknown>): Promise<{ artifacts: Client }>;
  /** This package's `getWorkspace()` client of a fresh `withWorkspace` object with a binding and session "s1". */
  remote(): Promise<{ artifacts: Omit<Client, "sessionId">; [Symbol.dispose](): void }>;
}

const AT = Date.UTC(2026, 0, 1);
const binding = () => new MemoryArtifactsBinding({ remoteBase: "https://artifacts.test/acct", now: () => AT });

/** Each package's Workspace, built inside a fresh Durable Object (the constructor's throw is the outcome). */
function workspaceOf(side: "reference" | "ours") {
  return (options: Record<string, unknown>) => {
    const stub = env.COMPAT_SCRATCH.get(env.COMPAT_SCRATCH.newUniqueId());
    return runInDurableObject(stub, async (_instance, state) => {
      const ws =
        side === "reference"
          ? new ReferenceWorkspace({ storage: referenceStorage(state.storage), ...options })
          : new Workspace({ storage: state.storage, ...options });
      return ws as unknown as { artifacts: Client };
    });
  };
}

const packages: Record<"reference" | "ours", Package> = {
  reference: {
    createArtifact: (b, s) => reference.createArtifact(b, s) as unknown as Client,
    ArtifactError: reference.ArtifactError,
    workspace: workspaceOf("reference"),
    remote: async () => {
      const stub = env.REFERENCE_ARTIFACTS.get(env.REFERENCE_ARTIFACTS.newUniqueId());
      const client = await referenceGetWorkspace(stub as unknown as Parameters<typeof referenceGetWorkspace>[0]);
      return client as unknown as Awaited<ReturnType<Package["remote"]>>;
    },
  },
  ours: {
    createArtifact: (b, s) => ours.createArtifact(b, s) as unknown as Client,
    ArtifactError: ours.ArtifactError,
    workspace: workspaceOf("ours"),
    remote: async () => {
      const client = await getWorkspace(env.OURS_ARTIFACTS.get(env.OURS_ARTIFACTS.newUniqueId()));
      return client as unknown as Awaited<ReturnType<Package["remote"]>>;
    },
  },
};

const SECRET = /art_[0-9a-f]{32}(\?expires=\d+)?/g;

/** Plain data with secrets masked. */
function masked(value: unknown): unknown {
  if (value === undefined) return "<undefined>";
  return JSON.parse(JSON.stringify(value).replace(SECRET, "<secret>"));
}

type Step = (label: string, run: () => Promise<unknown> | unknown, view?: (value: unknown) => unknown) => Promise<void>;

/** An error as user code sees it: its class name, code, message, and whether it is the package's ArtifactError. */
function errorOf(pkg: Package, error: unknown): unknown {
  const { name, code, message } = error as { name?: unknown; code?: unknown; message?: unknown };
  return { error: { name, code, message, artifactError: error instanceof pkg.ArtifactError } };
}

async function record(pkg: Package, scenario: (pkg: Package, step: Step) => Promise<void>) {
  const steps: Array<{ label: string; outcome: unknown }> = [];
  await scenario(pkg, async (label, run, view = (value) => value) => {
    let outcome: unknown;
    try {
      outcome = { ok: masked(await run()) };
    } catch (error) {
      outcome = errorOf(pkg, error);
    }
    steps.push({ label, outcome: view(outcome) });
  });
  return steps;
}

/** Projections, applied to both sides alike. */
const cli = {
  /** Exit status, stdout, and stderr's `artifacts <subcommand>:` frame (our messages are worded our own way). */
  framed(outcome: unknown) {
    const result = (outcome as { ok: CliResult }).ok;
    return { exitCode: result.exitCode, stdout: result.stdout, frame: /^artifacts[a-z ]*:/.exec(result.stderr)?.[0] };
  },
  /** A help text: where it goes and how it starts, and the exit status. */
  help(outcome: unknown) {
    const result = (outcome as { ok: CliResult }).ok;
    return { exitCode: result.exitCode, stderr: result.stderr, usage: result.stdout.split("\n")[0] };
  },
  /** JSON stdout, parsed. */
  json(outcome: unknown) {
    const result = (outcome as { ok: CliResult }).ok;
    return { exitCode: result.exitCode, stderr: result.stderr, json: JSON.parse(result.stdout) };
  },
};

/** An error's class, code and the message up to its reason (ours words the reason its own way). */
function errorFrame(outcome: unknown) {
  const { error } = outcome as { error: { message: string } };
  return { ...error, message: error.message.split("': ")[0] };
}

/** A remoteAdd seam of the original's shape over a list of remotes. */
function seam(remotes: Map<string, string>): RemoteAdd {
  return async ({ name, url, force }) => {
    if (remotes.has(name) && force !== true) return { ok: false, exists: true };
    remotes.set(name, url);
    return { ok: true };
  };
}

const scenarios: Record<string, (pkg: Package, step: Step) => Promise<void>> = {
  "the client: scoping, get, list, import and delete": async (pkg, step) => {
    const b = binding();
    const s1 = pkg.createArtifact(b, "s1");
    const s2 = pkg.createArtifact(b, "s2");
    await step("sessionId", () => s1.sessionId);
    await step("create foo", () => s1.create("foo", { description: "d" }));
    await step("create bar in s2", () => s2.create("bar"));
    await step("stored names", () => [...b.repos.keys()]);
    await step("get foo", () => s1.get("foo"));
    await step("get a missing repository", () => s1.get("missing"));
    await step("list", () => s1.list());
    await step("import", () => s1.import("copy", { url: "https://git.test/a.git" }, { readOnly: true }));
    await step("delete copy", () => s1.delete("copy"));
    await step("delete a missing repository", () => s1.delete("copy"));
  },
  "the client: tokens": async (pkg, step) => {
    const s1 = pkg.createArtifact(binding(), "s1");
    await s1.create("foo");
    const token = await s1.createToken("foo", "read", 120);
    await step("createToken", () => token);
    await step("listTokens is the binding's page", () => s1.listTokens("foo"));
    await step("getToken", () => s1.getToken("foo", token.id));
    await step("getToken of an unknown id", () => s1.getToken("foo", "tok_nope"));
    await step("createToken on a missing repository", () => s1.createToken("missing"));
    await step("listTokens on a missing repository", () => s1.listTokens("missing"));
    await step("revokeToken", () => s1.revokeToken("foo", token.plaintext));
    await step("revokeToken again", () => s1.revokeToken("foo", token.id));
    await step("revokeToken on a missing repository", () => s1.revokeToken("missing", "tok_1"));
  },
  "the client: bad session ids and names": async (pkg, step) => {
    await step("an empty session", () => pkg.createArtifact(binding(), ""), errorFrame);
    await step("a session with __", () => pkg.createArtifact(binding(), "a__b"), errorFrame);
    await step("a session with /", () => pkg.createArtifact(binding(), "a/b"), errorFrame);
    const s1 = pkg.createArtifact(binding(), "s1");
    for (const bad of ["", "-x", "a__b", "a/b", "a b"])
      await step(`name ${JSON.stringify(bad)}`, () => s1.create(bad), errorFrame);
    await step("a name of the allowed characters", () => s1.create("ok.name_1-x"));
  },
  "the CLI: help, unknown commands and argv errors": async (pkg, step) => {
    const s1 = pkg.createArtifact(binding(), "s1");
    await step("bare", () => s1.cli({ argv: [] }), cli.help);
    await step("help", () => s1.cli({ argv: ["help"] }), cli.help);
    await step("--help", () => s1.cli({ argv: ["--help"] }), cli.help);
    await step("repo alone", () => s1.cli({ argv: ["repo"] }), cli.help);
    await step("token --help", () => s1.cli({ argv: ["token", "--help"] }), cli.help);
    await step("an unknown command", () => s1.cli({ argv: ["frob"] }), cli.framed);
    await step("an unknown repo subcommand", () => s1.cli({ argv: ["repo", "frob"] }), cli.framed);
    await step("an unknown token subcommand", () => s1.cli({ argv: ["token", "frob"] }), cli.framed);
    await step("an unknown flag", () => s1.cli({ argv: ["create", "foo", "--bogus"] }));
    await step("a flag without its value", () => s1.cli({ argv: ["share", "foo", "--ttl"] }));
    await step("a boolean with a value", () => s1.cli({ argv: ["create", "foo", "--force=yes"] }));
    await step("a missing name", () => s1.cli({ argv: ["repo", "get"] }));
    await step("an extra argument", () => s1.cli({ argv: ["repo", "get", "a", "b"] }));
    await step("a missing token id", () => s1.cli({ argv: ["token", "get", "foo"] }));
    await step("a bad scope", () => s1.cli({ argv: ["share", "foo", "--scope", "admin"] }), cli.framed);
    await step("a bad ttl", () => s1.cli({ argv: ["share", "foo", "--ttl", "soon"] }), cli.framed);
    await step("a zero ttl", () => s1.cli({ argv: ["token", "create", "foo", "--ttl", "0"] }), cli.framed);
    await step("import without --url", () => s1.cli({ argv: ["repo", "import", "x"] }));
    await step(
      "a bad depth",
      () => s1.cli({ argv: ["repo", "import", "x", "--url", "u", "--depth", "0"] }),
      cli.framed,
    );
  },
  "the CLI: create with the remoteAdd seam, and without": async (pkg, step) => {
    const b = binding();
    const s1 = pkg.createArtifact(b, "s1");
    const remotes = new Map<string, string>();
    const remoteAdd = seam(remotes);
    await step(
      "create --remote origin",
      () => s1.cli({ argv: ["create", "site", "--remote", "origin"], remoteAdd }),
      cli.json,
    );
    await step("the remote registered", () => [...remotes]);
    await step("the tokens after create", () => s1.listTokens("site"));
    await step(
      "rerun without --force",
      () => s1.cli({ argv: ["create", "site", "--remote", "origin"], remoteAdd }),
      cli.framed,
    );
    await step(
      "rerun with --force and a read scope and ttl",
      () =>
        s1.cli({
          argv: ["create", "site", "--remote", "origin", "--force", "--scope", "read", "--ttl", "2h30m"],
          remoteAdd,
        }),
      cli.json,
    );
    await step(
      "a seam that fails",
      () =>
        s1.cli({
          argv: ["create", "site", "--force"],
          remoteAdd: async () => ({ ok: false, message: "no repository" }),
        }),
      cli.framed,
    );
    await step(
      "a taken remote with --force fails as any other",
      () => s1.cli({ argv: ["create", "site", "--force"], remoteAdd: async () => ({ ok: false, exists: true }) }),
      cli.framed,
    );
    await step(
      "create without a seam",
      () => s1.cli({ argv: ["create", "app", "--description", "d", "--default-branch", "trunk"] }),
      cli.json,
    );
  },
  "the CLI: share, repo and token subcommands": async (pkg, step) => {
    const s1 = pkg.createArtifact(binding(), "s1");
    await step(
      "repo create",
      () => s1.cli({ argv: ["repo", "create", "foo", "--description", "d", "--read-only"] }),
      cli.json,
    );
    await step("repo get", () => s1.cli({ argv: ["repo", "get", "foo"] }), cli.json);
    await step("repo get of a missing repository", () => s1.cli({ argv: ["repo", "get", "nope"] }), cli.framed);
    await step("repo list", () => s1.cli({ argv: ["repo", "list"] }), cli.json);
    await step(
      "repo import",
      () => s1.cli({ argv: ["repo", "import", "copy", "--url", "https://git.test/a.git", "--depth", "1"] }),
      cli.json,
    );
    await step("share", () => s1.cli({ argv: ["share", "foo", "--ttl", "1h"] }));
    await step("share of a missing repository", () => s1.cli({ argv: ["share", "nope"] }), cli.framed);
    await step(
      "token create",
      () => s1.cli({ argv: ["token", "create", "foo", "--scope", "read", "--ttl", "90s"] }),
      cli.json,
    );
    await step("token list", () => s1.cli({ argv: ["token", "list", "foo"] }), cli.json);
    await step("token get", () => s1.cli({ argv: ["token", "get", "foo", "tok_1"] }), cli.json);
    await step("token get of an unknown id", () => s1.cli({ argv: ["token", "get", "foo", "tok_nope"] }), cli.framed);
    await step("token delete", () => s1.cli({ argv: ["token", "delete", "foo", "tok_1"] }));
    await step(
      "token revoke of a revoked token",
      () => s1.cli({ argv: ["token", "revoke", "foo", "tok_1"] }),
      cli.framed,
    );
    await step("repo delete", () => s1.cli({ argv: ["repo", "delete", "copy"] }));
    await step("repo delete of a missing repository", () => s1.cli({ argv: ["repo", "delete", "copy"] }), cli.framed);
  },
  "the Workspace's artifacts": async (pkg, step) => {
    const unset = await pkg.workspace({});
    await step("without a binding: sessionId", () => unset.artifacts.sessionId);
    await step("without a binding: get", () => unset.artifacts.get("x"));
    await step("without a binding: list", () => unset.artifacts.list());
    await step("without a binding: the CLI", () => unset.artifacts.cli({ argv: ["repo", "list"] }));
    await step("without a binding: bare CLI", () => unset.artifacts.cli({ argv: [] }), cli.help);
    const b = binding();
    await step("an empty session id", () => pkg.workspace({ sessionId: "", artifacts: { binding: b } }), errorFrame);
    await step(
      "a bad artifacts session id",
      () => pkg.workspace({ sessionId: "ws", artifacts: { binding: b, sessionId: "a__b" } }),
      errorFrame,
    );
    await step(
      "no session id at all",
      async () => (await pkg.workspace({ artifacts: { binding: b } })).artifacts.sessionId,
    );
    const scoped = await pkg.workspace({ sessionId: "ws", artifacts: { binding: b } });
    await step("the session defaults to the Workspace's", () => scoped.artifacts.sessionId);
    await step("create through the Workspace", () => scoped.artifacts.create("app"));
    const own = await pkg.workspace({ sessionId: "ws", artifacts: { binding: b, sessionId: "other" } });
    await step("an artifacts session of its own", () => own.artifacts.create("app"));
    const optOut = await pkg.workspace({ sessionId: "ws", artifacts: { binding: b, sessionId: null } });
    await step("sessionId null", () => optOut.artifacts.sessionId);
    await step("stored names", () => [...b.repos.keys()]);
  },
  "over RPC: a getWorkspace() client's artifacts": async (pkg, step) => {
    const client = await pkg.remote();
    try {
      const { artifacts } = client;
      await step("create", () => artifacts.create("site", { description: "d" }));
      await step("get", () => artifacts.get("site"));
      await step("get of a missing repository", () => artifacts.get("nope"));
      await step("list", () => artifacts.list());
      const token = await artifacts.createToken("site", "read", 120);
      await step("createToken", () => token);
      await step("listTokens", () => artifacts.listTokens("site"));
      await step("getToken", () => artifacts.getToken("site", token.id));
      await step("getToken of an unknown id", () => artifacts.getToken("site", "tok_nope"));
      await step("revokeToken", () => artifacts.revokeToken("site", token.id));
      await step("the CLI", () => artifacts.cli({ argv: ["repo", "list"] }), cli.json);
      await step("import", () => artifacts.import("copy", { url: "https://git.test/a.git" }));
      await step("delete", () => artifacts.delete("copy"));
    } finally {
      client[Symbol.dispose]();
    }
  },
};

/** `scenario › step` → why ours deliberately answers differently (docs/migration.md lists them too). */
const differences: Record<string, string> = {
  "the CLI: create with the remoteAdd seam, and without › the tokens after create":
    "ours revokes the token a new repository comes with (create never shows it) instead of leaving it live, unused",
  "the Workspace's artifacts › sessionId null":
    "ours opts out of the Workspace's session (namespace-wide, sessionId \"\"); the original treats null as unset and uses the Workspace's",
  "the Workspace's artifacts › no session id at all":
    'the original builds createArtifact(binding, "") and throws; ours is namespace-wide (sessionId ""), as createArtifact(binding) is',
};

describe("differential: artifacts", () => {
  for (const [name, scenario] of Object.entries(scenarios)) {
    it(name, async () => {
      const theirs = await record(packages.reference, scenario);
      const mine = await record(packages.ours, scenario);
      expect(mismatches(name, theirs, mine, differences)).toEqual([]);
    });
  }
});
