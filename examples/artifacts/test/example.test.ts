/**
 * Drives `POST /create` end to end: the Worker (bundled the way wrangler
 * would) under Miniflare with a SQLite Durable Object and the Worker Loader,
 * the local Artifacts host from `scripts/artifacts-host.mjs` as the binding's
 * stand-in (real `git http-backend` behind it), and its starter repository as
 * the source. The pushed repository is checked with real git from Node.
 */
import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { useExampleWorker } from "../../test-support/worker.js";
import { STARTER_FILES, startArtifactsHost } from "../scripts/artifacts-host.mjs";

const example = join(dirname(fileURLToPath(import.meta.url)), "..");
let host: Awaited<ReturnType<typeof startArtifactsHost>>;
let scratch: string;

beforeAll(async () => {
  host = await startArtifactsHost();
  scratch = mkdtempSync(join(tmpdir(), "artifacts-example-"));
});
afterAll(async () => {
  await host?.close();
  rmSync(scratch, { recursive: true, force: true });
});

const { request } = useExampleWorker(example, () => ({
  workerLoaders: { LOADER: {} },
  bindings: { ARTIFACTS_LOCAL_URL: host.url, SOURCE_REPO: host.starterUrl },
}));

function create(body: unknown): Promise<Response> {
  return request("/create", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
}

/** Real git, asynchronously: the Artifacts host serving it runs in this same process. */
function git(cwd: string, ...args: string[]): Promise<{ status: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile("git", args, { cwd, env: { ...process.env, GIT_TERMINAL_PROMPT: "0" } }, (error, stdout, stderr) => {
      const status = error ? (typeof error.code === "number" ? error.code : 1) : 0;
      resolve({ status, stdout, stderr });
    });
  });
}

describe("examples/artifacts", () => {
  it("creates the repository from the source, pushes it, and shares a read URL that real git clones", async () => {
    const response = await create({ name: "my-site" });
    const reply = (await response.json()) as { name: string; remote: string; shareUrl: string };
    expect(response.status, JSON.stringify(reply)).toBe(200);
    expect(reply.name).toBe("my-site");
    expect(reply.remote).toBe(`${host.url}/repos/my-site.git`);
    // The share URL is the remote with a read token as Basic credentials.
    const share = new URL(reply.shareUrl);
    expect(`${share.protocol}//${share.host}${share.pathname}`).toBe(reply.remote);
    expect(share.username).toBe("x");
    expect(share.password).not.toBe("");

    const clone = await git(scratch, "clone", "--quiet", reply.shareUrl, "my-site");
    expect(clone.status, clone.stderr).toBe(0);
    const dir = join(scratch, "my-site");
    // `sed` put the name where the template had {{name}}; nothing else changed.
    for (const [file, text] of Object.entries(STARTER_FILES)) {
      expect(readFileSync(join(dir, file), "utf8")).toBe(text.replaceAll("{{name}}", "my-site"));
    }
    // One fresh commit: the source's history stayed behind.
    expect((await git(dir, "log", "--format=%s")).stdout).toBe("Create my-site from the template\n");
    expect((await git(dir, "ls-files")).stdout.split("\n").filter(Boolean).sort()).toEqual(
      Object.keys(STARTER_FILES).sort(),
    );
    expect((await git(dir, "fsck", "--strict")).status).toBe(0);

    // The share is read-only: pushing with it is refused.
    await git(dir, "-c", "user.name=T", "-c", "user.email=t@example.invalid", "commit", "--allow-empty", "-qm", "x");
    expect((await git(dir, "push", "origin", "HEAD:main")).status).not.toBe(0);
    // And without a token nothing can be read.
    expect((await git(scratch, "clone", "--quiet", reply.remote, "anonymous")).status).not.toBe(0);
  });

  it("answers 409 for a name that exists, and leaves the repository alone", async () => {
    const first = await create({ name: "taken" });
    expect(first.status).toBe(200);
    const again = await create({ name: "taken" });
    expect(again.status).toBe(409);
    expect(await again.json()).toEqual({ error: "repository 'taken' already exists" });
    // Made elsewhere (not by this example): still a 409.
    await host.binding.create("made-elsewhere");
    expect((await create({ name: "made-elsewhere" })).status).toBe(409);
    const log = await git(host.repos, "--git-dir", "taken.git", "log", "--format=%s", "main");
    expect(log.stdout).toBe("Create taken from the template\n");
  });

  it("answers 409 to a second request for a name while the first is still running", async () => {
    const [a, b] = await Promise.all([create({ name: "racing" }), create({ name: "racing" })]);
    expect([a.status, b.status].sort()).toEqual([200, 409]);
  });

  it("refuses bad names and bodies with 400, before anything runs", async () => {
    const before = host.binding.calls.length;
    for (const body of [{}, { name: "" }, { name: 7 }, { name: "-dash" }, { name: "a b" }, { name: "a__b" }, null]) {
      expect((await create(body)).status, JSON.stringify(body)).toBe(400);
    }
    expect((await create("{")).status).toBe(400);
    expect(await (await create({ name: "../x" })).json()).toEqual({
      error: "name must match ^[A-Za-z0-9][A-Za-z0-9._-]*$ without '__'",
    });
    expect(host.binding.calls.length).toBe(before);
    expect((await request("/create")).status).toBe(405);
    expect((await request("/elsewhere")).status).toBe(404);
  });
});
