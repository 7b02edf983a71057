/**
 * Differential tests of `./assets` and the Workspace's assets (issue 19 row
 * 9): the same calls on the published `@cloudflare/computer@0.2.1`
 * (`computer-reference/assets` and its `Workspace` / `WorkspaceStub`) and on
 * ours, each side with its own Workspace in a fresh Durable Object. The R2
 * bucket is a Cloudflare-owned edge: a recording `put` that drains the
 * streamed body stands in for it. Both sides sign with the same credentials
 * and clock, so the presigned URLs are equal up to the random object id,
 * which is masked.
 */
import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import {
  Workspace as ReferenceWorkspace,
  WorkspaceAssetsStub as ReferenceWorkspaceAssetsStub,
  WorkspaceGitStub as ReferenceWorkspaceGitStub,
  WorkspaceStub as ReferenceWorkspaceStub,
} from "computer-reference";
import * as reference from "computer-reference/assets";
import { describe, expect, it } from "vitest";
import * as ours from "../../src/assets/index.js";
import { WorkspaceAssetsStub, WorkspaceGitStub, WorkspaceStub } from "../../src/workspace/stub.worker.js";
import { Workspace } from "../../src/workspace/workspace.worker.js";
import { expectedSignature } from "../sigv4-expected.js";
import { referenceStorage } from "./main.worker.js";
import { mismatches } from "./trace.js";

type Side = "reference" | "ours";
type ShareOptions = ours.ShareOptions;
type Step = (
  label: string,
  run: () => Promise<unknown> | unknown,
  view?: (outcome: unknown) => unknown,
) => Promise<void>;
interface Put {
  key: string;
  body: string;
  options: unknown;
}
interface SideApi {
  createAssets(options: Record<string, unknown>): {
    share(path: string, options: ShareOptions): Promise<string>;
  };
  resolveS3(s3: Record<string, unknown>, env: Record<string, string>): unknown;
  /** A Workspace of this side, built with `options`, written files, and a local WorkspaceStub over it. */
  workspace(options: Record<string, unknown>): {
    ws: WorkspaceView;
    stub: () => StubView;
    /** `new WorkspaceAssetsStub(ws)` / `new WorkspaceGitStub(ws)`, as the original's constructors take them. */
    assetsStub: () => NonNullable<StubView["assets"]>;
    gitStub: () => { cli(input: { argv: string[]; cwd?: string }): Promise<unknown> };
  };
}
interface WorkspaceView {
  readonly assets: unknown;
  readonly fs: {
    writeFile(path: string, data: string): Promise<void>;
    mkdir(path: string, o?: unknown): Promise<void>;
  };
}
interface StubView {
  readonly assets: { publish(path: string, options: { expiresAfter: number }): Promise<unknown> } | null | undefined;
}

const NOW = Date.UTC(2026, 0, 1, 12, 0, 0);
const S3 = { bucket: "shared", accountId: "acct", accessKeyId: "AKID", secretAccessKey: "SECRET" };

/** A bucket that records each put and drains the streamed body, as R2 would. */
function recordingBucket(puts: Put[]) {
  return {
    async put(key: string, value: ReadableStream<Uint8Array>, options?: unknown) {
      const body = await new Response(value).text();
      puts.push({ key, body, options });
      return {};
    },
  };
}

/** A presigned URL and whether its signature is the one SigV4 gives (recomputed independently of both packages). */
const signed = (outcome: unknown) => {
  const { ok } = outcome as { ok?: unknown };
  if (typeof ok !== "string" || !ok.includes("X-Amz-Signature=")) return outcome;
  const url = new URL(ok);
  return { ok, signatureValid: url.searchParams.get("X-Amz-Signature") === expectedSignature(url, S3.secretAccessKey) };
};

/** The random 26-character object id in a key or URL. */
const OBJECT_ID = /(^|[/"])[0-9a-hjkmnp-tv-z]{26}\//g;
/** The signature covers the key, so it differs with the id; ours is checked against fixed vectors in share.node.test.ts. */
const SIGNATURE = /X-Amz-Signature=[0-9a-f]{64}/g;
const mask = (value: unknown): unknown =>
  value === undefined
    ? "<undefined>"
    : JSON.parse(JSON.stringify(value).replace(OBJECT_ID, "$1<id>/").replace(SIGNATURE, "X-Amz-Signature=<signature>"));

function errorOf(error: unknown) {
  const { name, code, message } = error as { name?: unknown; code?: unknown; message?: unknown };
  return { error: { name, code, message } };
}

/**
 * That it failed with "createAssets: missing …": ours adds a code (ENOTCONFIGURED) where the original's error
 * has none, and words the rest its own way (both name the s3 field and the variables).
 */
const failed = (outcome: unknown) => {
  const { error } = outcome as { error?: { message: string } };
  return error ? { failed: true, missing: error.message.startsWith("createAssets: missing ") } : outcome;
};

/** The error without its message: ours words some of them its own way (the outcome is the same). */
const withoutMessage = (outcome: unknown) => {
  const { error } = outcome as { error?: { name: unknown; code: unknown } };
  return error ? { error: { code: error.code, failed: true } } : outcome;
};

async function run(side: Side, scenario: (api: SideApi, step: Step) => Promise<void>) {
  const stub = env.COMPAT_SCRATCH.get(env.COMPAT_SCRATCH.newUniqueId());
  return runInDurableObject(stub, async (_instance, state) => {
    const api: SideApi =
      side === "reference"
        ? {
            createAssets: (options) => reference.createAssets(options as never),
            resolveS3: (s3, e) => reference.resolveS3(s3 as never, e),
            workspace: (options) => {
              const ws = new ReferenceWorkspace({ storage: referenceStorage(state.storage), ...options });
              return {
                ws: ws as unknown as WorkspaceView,
                stub: () => new ReferenceWorkspaceStub(ws) as unknown as StubView,
                assetsStub: () => new ReferenceWorkspaceAssetsStub(ws),
                gitStub: () => new ReferenceWorkspaceGitStub(ws),
              };
            },
          }
        : {
            createAssets: (options) => ours.createAssets(options as never),
            resolveS3: (s3, e) => ours.resolveS3(s3 as never, e),
            workspace: (options) => {
              const ws = new Workspace({ storage: state.storage, ...options });
              return {
                ws: ws as unknown as WorkspaceView,
                stub: () => new WorkspaceStub(ws) as unknown as StubView,
                assetsStub: () => new WorkspaceAssetsStub(ws),
                gitStub: () => new WorkspaceGitStub(ws),
              };
            },
          };
    const steps: Array<{ label: string; outcome: unknown }> = [];
    await scenario(api, async (label, body, view = (outcome) => outcome) => {
      let outcome: unknown;
      try {
        outcome = { ok: await body() };
      } catch (error) {
        outcome = errorOf(error);
      }
      steps.push({ label, outcome: mask(view(signed(outcome))) });
    });
    return steps;
  });
}

const scenarios: Record<string, (api: SideApi, step: Step) => Promise<void>> = {
  "createAssets(...).share": async (api, step) => {
    const { ws } = api.workspace({ sessionId: "s1" });
    await ws.fs.mkdir("/workspace/docs", { recursive: true });
    await ws.fs.writeFile("/workspace/docs/report.pdf", "%PDF-1.7 body");
    await ws.fs.writeFile("/workspace/docs/ünï code.txt", "text");
    const puts: Put[] = [];
    const assets = api.createAssets({ ws, bucket: recordingBucket(puts), s3: S3, env: {}, now: () => NOW });
    await step("share returns the URL string", () => assets.share("/workspace/docs/report.pdf", { expiresAfter: 500 }));
    await step("with a prefix, type, name and disposition", () =>
      assets.share("/workspace/docs/report.pdf", {
        expiresAfter: 90_000,
        prefix: "/a//b/",
        contentType: "text/plain",
        filename: "renamed.pdf",
        disposition: "attachment",
      }),
    );
    await step("30 days is capped at 7", () =>
      assets.share("/workspace/docs/report.pdf", { expiresAfter: 30 * 86_400_000 }),
    );
    await step("what was put", () => puts);
    await step("a UTF-8 text file with a non-ASCII name", () =>
      assets.share("/workspace/docs/ünï code.txt", { expiresAfter: 1000 }),
    );
    await step("its put", () => puts.at(-1));
    const before = puts.length;
    await step("expiresAfter 0", () => assets.share("/workspace/docs/report.pdf", { expiresAfter: 0 }), withoutMessage);
    await step(
      "expiresAfter NaN",
      () => assets.share("/workspace/docs/report.pdf", { expiresAfter: Number.NaN }),
      withoutMessage,
    );
    await step("a missing file", () => assets.share("/workspace/none.txt", { expiresAfter: 1000 }), withoutMessage);
    await step("nothing more was put", () => puts.length - before);
  },
  "credentials: explicit, from env, missing": async (api, step) => {
    await step("explicit", () => api.resolveS3(S3, {}));
    await step("from env", () =>
      api.resolveS3(
        { bucket: "b" },
        { CLOUDFLARE_ACCOUNT_ID: "acct2", R2_ACCESS_KEY_ID: "k", R2_SECRET_ACCESS_KEY: "s" },
      ),
    );
    await step("AWS names and an endpoint", () =>
      api.resolveS3(
        { bucket: "b", region: "eu", service: "s3x" },
        { AWS_ACCESS_KEY_ID: "k", AWS_SECRET_ACCESS_KEY: "s", R2_ENDPOINT: "https://r2.example" },
      ),
    );
    await step("explicit wins over env", () =>
      api.resolveS3(
        { ...S3, endpoint: "https://mine.example" },
        { R2_ACCESS_KEY_ID: "other", R2_ENDPOINT: "https://env.example" },
      ),
    );
    await step("no access key", () => api.resolveS3({ bucket: "b", accountId: "a" }, {}), failed);
    await step("no secret", () => api.resolveS3({ bucket: "b", accountId: "a", accessKeyId: "k" }, {}), failed);
    await step(
      "no account or endpoint",
      () => api.resolveS3({ bucket: "b", accessKeyId: "k", secretAccessKey: "s" }, {}),
      failed,
    );
    const { ws } = api.workspace({});
    await step(
      "createAssets without an access key",
      () => api.createAssets({ ws, bucket: recordingBucket([]), s3: { bucket: "b", accountId: "a" }, env: {} }),
      failed,
    );
  },
  "the Workspace's assets": async (api, step) => {
    const unset = api.workspace({});
    await step("unset: workspace.assets", () => unset.ws.assets);
    await step("unset: the stub's assets", () => unset.stub().assets);
    const puts: Put[] = [];
    const client = {
      share: async (path: string, options: unknown) => `https://assets.test${path}#${JSON.stringify(options)}`,
    };
    const given = api.workspace({ sessionId: "s1", assets: client });
    await step("an object with share: workspace.assets.share", () =>
      (given.ws.assets as typeof client).share("/workspace/x", { expiresAfter: 5 }),
    );
    await step("the stub's publish returns the URL string", () =>
      given.stub().assets?.publish("/workspace/x", { expiresAfter: 7 }),
    );
    const built = api.workspace({
      sessionId: "s2",
      assets: (ws: unknown) => api.createAssets({ ws, bucket: recordingBucket(puts), s3: S3, env: {}, now: () => NOW }),
    });
    await built.ws.fs.mkdir("/workspace", { recursive: true });
    await built.ws.fs.writeFile("/workspace/out.png", "png");
    await step("a factory of the workspace: the stub's publish", () =>
      built.stub().assets?.publish("/workspace/out.png", { expiresAfter: 60_000 }),
    );
    await step("a factory of the workspace: share", () =>
      (built.ws.assets as typeof client).share("/workspace/out.png", { expiresAfter: 1000, prefix: "p" }),
    );
    await step("what was put", () => puts);
  },
  "stubs built from the Workspace": async (api, step) => {
    const client = {
      share: async (path: string, options: unknown) => `https://assets.test${path}#${JSON.stringify(options)}`,
    };
    const given = api.workspace({ sessionId: "s1", assets: client });
    await step("new WorkspaceAssetsStub(ws).publish", () =>
      given.assetsStub().publish("/workspace/x", { expiresAfter: 7 }),
    );
    const unset = api.workspace({});
    await step(
      "new WorkspaceAssetsStub(ws) without assets: publish",
      () => unset.assetsStub().publish("/workspace/x", { expiresAfter: 7 }),
      withoutMessage,
    );
    await step(
      "new WorkspaceGitStub(ws) without git: cli",
      () => unset.gitStub().cli({ argv: ["status"] }),
      withoutMessage,
    );
  },
};

/** `scenario › step` → why ours deliberately answers differently (docs/migration.md lists them too). */
const differences: Record<string, string> = {
  "stubs built from the Workspace › new WorkspaceAssetsStub(ws) without assets: publish":
    "both fail; ours with code ENOTCONFIGURED and a message naming the option, the original with an error that has no code",
  "stubs built from the Workspace › new WorkspaceGitStub(ws) without git: cli":
    "both fail; ours with code ENOTCONFIGURED (git is opt-in), the original with an error that has no code",
  "createAssets(...).share › its put":
    "ours serves text as `text/plain; charset=utf-8` and gives a non-ASCII name an ASCII `filename=` fallback next to `filename*` (RFC 6266); the original puts the raw UTF-8 name in the header and no charset",
};

describe("differential: assets", () => {
  for (const [name, scenario] of Object.entries(scenarios)) {
    it(name, async () => {
      const theirs = await run("reference", scenario);
      const mine = await run("ours", scenario);
      expect(mismatches(name, theirs, mine, differences)).toEqual([]);
    });
  }
});
