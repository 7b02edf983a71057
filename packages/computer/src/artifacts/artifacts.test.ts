/**
 * createArtifact and the `artifacts` CLI over the in-memory binding:
 * what `docs/artifacts.md` describes. Shared: runs in Node and in workerd.
 */
import { describe, expect, it } from "vitest";
import {
  createArtifact,
  InvalidRepoNameError,
  InvalidSessionIdError,
  MemoryArtifactsBinding,
  NotFoundError,
  parseTtl,
  type RemoteAddFn,
} from "./index.js";

const REMOTE = "https://artifacts.test/acct";
const binding = () => new MemoryArtifactsBinding({ remoteBase: REMOTE, now: () => Date.UTC(2026, 0, 1) });

describe("session scoping", () => {
  it("stores <session>__<name>, returns <name>, and lists only the session's repositories", async () => {
    const b = binding();
    const s1 = createArtifact(b, "s1");
    const created = await s1.create("foo");
    expect(created.name).toBe("foo");
    expect([...b.repos.keys()]).toEqual(["s1__foo"]);
    await createArtifact(b, "s2").create("bar");
    expect((await s1.list()).map((repo) => repo.name)).toEqual(["foo"]);
    expect((await createArtifact(b).list()).map((repo) => repo.name)).toEqual(["s1__foo", "s2__bar"]);
    expect((await s1.get("foo")).remote).toBe(`${REMOTE}/s1__foo.git`);
    await expect(s1.get("bar")).rejects.toMatchObject({ code: "NOT_FOUND" });
  });

  it("rejects an empty session and bad names with typed errors", async () => {
    expect(() => createArtifact(binding(), "")).toThrow(InvalidSessionIdError);
    expect(() => createArtifact(binding(), "a__b")).toThrow(expect.objectContaining({ code: "EINVALIDSESSION" }));
    const s1 = createArtifact(binding(), "s1");
    for (const bad of ["", "-x", "a__b", "a/b", "a b"]) {
      await expect(s1.create(bad)).rejects.toBeInstanceOf(InvalidRepoNameError);
    }
    await expect(s1.create("ok.name_1-x")).resolves.toMatchObject({ name: "ok.name_1-x" });
    expect(createArtifact(binding(), null).sessionId).toBe("");
  });

  it("pages through list 100 at a time and fails on a repeated cursor", async () => {
    const b = binding();
    const all = createArtifact(b, "s");
    for (let i = 0; i < 230; i++) await all.create(`r${String(i).padStart(3, "0")}`);
    expect(await all.list()).toHaveLength(230);
    expect(b.calls.filter((call) => call === "list")).toHaveLength(3);
    const stuck = Object.assign(binding(), { list: async () => ({ repos: [], total: 0, cursor: "same" }) });
    await expect(createArtifact(stuck).list()).rejects.toThrow(/cursor "same" twice/);
  });

  it("makes tokens for the session's repository; a missing token is NotFoundError", async () => {
    const s1 = createArtifact(binding(), "s1");
    await s1.create("foo");
    const token = await s1.createToken("foo");
    expect(token.scope).toBe("write");
    // The first token is the one the binding makes with every repository.
    expect(await s1.listTokens("foo")).toEqual({
      tokens: [expect.objectContaining({ id: "tok_1" }), expect.objectContaining({ id: token.id })],
      total: 2,
    });
    await expect(s1.getToken("foo", "tok_nope")).rejects.toBeInstanceOf(NotFoundError);
    await expect(s1.createToken("missing")).rejects.toMatchObject({ code: "NOT_FOUND" });
    expect(await s1.revokeToken("foo", token.plaintext)).toBe(true);
    expect(await s1.revokeToken("foo", token.id)).toBe(false);
  });
});

describe("artifacts create", () => {
  it("registers the remote through the seam with a credentialed URL, and refuses a rerun without --force", async () => {
    const s1 = createArtifact(binding(), "s1");
    const added: Array<{ name: string; url: string; force?: boolean }> = [];
    const remoteAdd: RemoteAddFn = async (remote) => {
      const exists = added.some((entry) => entry.name === remote.name);
      if (exists && !remote.force) return { ok: false, exists: true };
      added.push(remote);
      return { ok: true };
    };
    const result = await s1.cli({ argv: ["create", "foo", "--remote", "origin"], remoteAdd });
    expect(result.exitCode).toBe(0);
    const out = JSON.parse(result.stdout);
    expect(Object.keys(out)).toEqual([
      "name",
      "remote",
      "credentialedRemote",
      "defaultBranch",
      "gitRemote",
      "scope",
      "token",
      "tokenExpiresAt",
      "remoteRegistered",
    ]);
    expect(out).toMatchObject({ name: "foo", gitRemote: "origin", scope: "write", remoteRegistered: true });
    const secret = (out.token as string).split("?expires=")[0];
    expect(out.credentialedRemote).toBe(`https://x:${secret}@artifacts.test/acct/s1__foo.git`);
    expect(result.stdout).toBe(`${JSON.stringify(out, null, 2)}\n`);
    expect(added).toEqual([{ name: "origin", url: out.credentialedRemote, force: false }]);
    const again = await s1.cli({ argv: ["create", "foo", "--remote", "origin"], remoteAdd });
    expect(again.exitCode).toBe(1);
    expect(again.stderr).toMatch(/--force/);
    const forced = await s1.cli({ argv: ["create", "foo", "--remote", "origin", "--force"], remoteAdd });
    expect(forced.exitCode).toBe(0);
    const failing: RemoteAddFn = async () => ({ ok: false, message: "not a git repository" });
    const broken = await s1.cli({ argv: ["create", "foo", "--force"], remoteAdd: failing });
    expect(broken).toMatchObject({ exitCode: 1, stdout: "" });
    expect(broken.stderr).toBe("artifacts create: git remote 'foo' not registered: not a git repository\n");
  });

  it("without a seam returns the git remote add command, named after the repository", async () => {
    const result = await createArtifact(binding(), "s1").cli({ argv: ["create", "foo"] });
    const out = JSON.parse(result.stdout);
    expect(out).toMatchObject({ gitRemote: "foo", remoteRegistered: false });
    expect(out.remoteAddCommand).toBe(`git remote add foo ${out.credentialedRemote}`);
  });
});

describe("artifacts share", () => {
  it("prints one read URL line; a missing repository exits 1 without minting a token", async () => {
    const b = binding();
    const s1 = createArtifact(b, "s1");
    await s1.create("foo");
    const shared = await s1.cli({ argv: ["share", "foo", "--ttl", "2h30m"] });
    expect(shared.exitCode).toBe(0);
    expect(shared.stdout).toMatch(/^https:\/\/x:art_[0-9a-f]{32}@artifacts\.test\/acct\/s1__foo\.git\n$/);
    const token = (await s1.listTokens("foo")).tokens.find(({ scope }) => scope === "read");
    expect(Date.parse(token?.expiresAt ?? "") - Date.UTC(2026, 0, 1)).toBe(9000 * 1000);
    const missing = await s1.cli({ argv: ["share", "nope"] });
    expect(missing.exitCode).toBe(1);
    expect(b.calls.filter((call) => call.startsWith("createToken"))).toHaveLength(1);
  });

  it("parses TTLs as seconds or unit groups", () => {
    expect(parseTtl("2h30m")).toBe(9000);
    expect(parseTtl("90")).toBe(90);
    expect(parseTtl("1d1s")).toBe(86401);
    expect(() => parseTtl("2x")).toThrow(/invalid --ttl/);
  });
});

describe("help and argv errors", () => {
  it("bare artifacts prints help and exits 1; --help exits 0; an unknown flag exits 129", async () => {
    const a = createArtifact(binding(), "s1");
    const bare = await a.cli({ argv: [] });
    expect(bare).toMatchObject({ exitCode: 1, stderr: "" });
    expect(bare.stdout).toMatch(/^usage: artifacts/);
    expect(await a.cli({ argv: ["--help"] })).toMatchObject({ exitCode: 0, stdout: expect.stringMatching(/^usage/) });
    expect((await a.cli({ argv: ["create", "foo", "--bogus"] })).exitCode).toBe(129);
    expect((await a.cli({ argv: ["share", "foo", "--ttl", "soon"] })).exitCode).toBe(129);
    expect(await a.cli({ argv: ["token", "frob"] })).toMatchObject({
      exitCode: 1,
      stderr: expect.stringMatching(/^artifacts token: 'frob' is not a token subcommand/),
    });
    expect(await a.cli({ argv: ["frob"] })).toMatchObject({
      exitCode: 1,
      stderr: expect.stringMatching(/^artifacts: 'frob' is not an artifacts command/),
    });
    expect(await a.cli({ argv: ["repo"] })).toMatchObject({
      exitCode: 1,
      stdout: expect.stringMatching(/^usage: artifacts repo/),
    });
    expect(await a.cli({ argv: ["repo", "get"] })).toMatchObject({
      exitCode: 129,
      stderr: "artifacts repo get: missing <name>\n",
    });
  });

  it("speaks JSON for repo and token subcommands", async () => {
    const a = createArtifact(binding(), "s1");
    const created = JSON.parse((await a.cli({ argv: ["repo", "create", "foo", "--description", "d"] })).stdout);
    expect(created).toMatchObject({ name: "foo", description: "d", defaultBranch: "main" });
    expect(JSON.parse((await a.cli({ argv: ["repo", "list"] })).stdout)).toHaveLength(1);
    const token = JSON.parse((await a.cli({ argv: ["token", "create", "foo", "--scope", "read"] })).stdout);
    expect(token.scope).toBe("read");
    expect(JSON.parse((await a.cli({ argv: ["token", "get", "foo", token.id] })).stdout).id).toBe(token.id);
    expect((await a.cli({ argv: ["token", "get", "foo", "nope"] })).exitCode).toBe(1);
    expect(JSON.parse((await a.cli({ argv: ["token", "list", "foo"] })).stdout)).toMatchObject({ total: 2 });
    expect(await a.cli({ argv: ["token", "delete", "foo", token.id] })).toMatchObject({
      exitCode: 0,
      stdout: "Revoked token\n",
    });
    expect((await a.cli({ argv: ["token", "revoke", "foo", token.id] })).exitCode).toBe(1);
    expect(await a.cli({ argv: ["repo", "delete", "foo"] })).toMatchObject({ exitCode: 0, stdout: "Deleted foo\n" });
    expect((await a.cli({ argv: ["repo", "get", "foo"] })).exitCode).toBe(1);
  });
});
