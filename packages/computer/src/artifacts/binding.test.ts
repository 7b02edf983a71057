/**
 * The scoped client on Cloudflare's binding interface: `get`'s NOT_FOUND
 * passes through, tokens go through the repository handle, `import` gets one
 * object. First against a binding written from the declaration alone, whose
 * errors are `ArtifactsError`s with a string `code` and whose handle keeps
 * its fields on a prototype; then against `MemoryArtifactsBinding`, which
 * every other artifacts test runs on. Shared: runs in Node and in workerd.
 */
import { describe, expect, it } from "vitest";
import { createArtifact, MemoryArtifactsBinding, NotFoundError } from "./index.js";

const AT = "2026-01-01T00:00:00.000Z";

/** What the binding throws: `ArtifactsError` with a string `code` (and a numeric one, unused here). */
function artifactsError(code: string, message: string): Error {
  return Object.assign(new Error(message), { name: "ArtifactsError", code, numericCode: 0 });
}

/** `s1__foo` and what `create` made; `s1__busy` is still importing; anything else is NOT_FOUND. Every call is logged. */
function declaredBinding() {
  const log: unknown[][] = [];
  const made = new Set(["s1__foo"]);
  const info = (name: string) => ({
    id: `id_${name}`,
    name,
    description: null,
    defaultBranch: "main",
    createdAt: AT,
    updatedAt: AT,
    lastPushAt: null,
    source: null,
    readOnly: false,
    remote: `https://artifacts.test/${name}.git`,
  });
  const created = (name: string) => ({ ...info(name), token: "art_initial?expires=1", tokenExpiresAt: AT });
  const binding: Artifacts = {
    async create(name, opts) {
      log.push(["create", name, opts]);
      made.add(name);
      return created(name);
    },
    async get(name) {
      log.push(["get", name]);
      if (name === "s1__busy") throw artifactsError("IMPORT_IN_PROGRESS", `repository '${name}' is importing`);
      if (!made.has(name)) throw artifactsError("NOT_FOUND", `repository '${name}' not found`);
      // The data lives on the prototype, as it may on a handle the platform builds: spreading it would lose it.
      return Object.assign(Object.create(info(name)), {
        async info() {
          return info(name);
        },
        async createToken(scope?: "read" | "write", ttl?: number) {
          log.push(["createToken", name, scope, ttl]);
          return { id: "tok_9", plaintext: "art_new?expires=2", scope: scope ?? "write", expiresAt: AT };
        },
        async listTokens() {
          log.push(["listTokens", name]);
          return { tokens: [{ id: "tok_9", scope: "read", state: "active", createdAt: AT, expiresAt: AT }], total: 1 };
        },
        async revokeToken(tokenOrId: string) {
          log.push(["revokeToken", name, tokenOrId]);
          return tokenOrId === "tok_9";
        },
        async fork() {
          throw artifactsError("INVALID_INPUT", "not used here");
        },
      });
    },
    async import(params) {
      log.push(["import", params]);
      return created(params.target.name);
    },
    async list(opts) {
      log.push(["list", opts]);
      return { repos: [info("s1__foo"), info("s2__bar")].map(({ remote: _remote, ...repo }) => repo), total: 2 };
    },
    async delete(name) {
      log.push(["delete", name]);
      return name === "s1__foo";
    },
  };
  return { binding, log };
}

describe("a binding shaped like Cloudflare's", () => {
  it("passes get's NOT_FOUND and every other error through", async () => {
    const { binding } = declaredBinding();
    const s1 = createArtifact(binding, "s1");
    await expect(s1.get("missing")).rejects.toMatchObject({ name: "ArtifactsError", code: "NOT_FOUND" });
    await expect(s1.get("busy")).rejects.toMatchObject({ name: "ArtifactsError", code: "IMPORT_IN_PROGRESS" });
    // The handle's fields come out as plain data, under the session's name, without its methods.
    const found = await s1.get("foo");
    expect(found).toEqual({
      id: "id_s1__foo",
      name: "foo",
      description: null,
      defaultBranch: "main",
      createdAt: AT,
      updatedAt: AT,
      lastPushAt: null,
      source: null,
      readOnly: false,
      remote: "https://artifacts.test/s1__foo.git",
    });
    expect(JSON.parse(JSON.stringify(found))).toEqual(found);
    expect((await s1.cli({ argv: ["repo", "get", "missing"] })).exitCode).toBe(1);
  });

  it("creates, lists and revokes tokens on the repository handle", async () => {
    const { binding, log } = declaredBinding();
    const s1 = createArtifact(binding, "s1");
    expect(await s1.createToken("foo", "read", 120)).toMatchObject({ id: "tok_9", scope: "read" });
    expect(await s1.listTokens("foo")).toEqual({
      tokens: [expect.objectContaining({ id: "tok_9", state: "active" })],
      total: 1,
    });
    expect(await s1.getToken("foo", "tok_9")).toMatchObject({ id: "tok_9" });
    expect(await s1.revokeToken("foo", "tok_9")).toBe(true);
    expect(log).toEqual([
      ["get", "s1__foo"],
      ["createToken", "s1__foo", "read", 120],
      ["get", "s1__foo"],
      ["listTokens", "s1__foo"],
      ["get", "s1__foo"],
      ["listTokens", "s1__foo"],
      ["get", "s1__foo"],
      ["revokeToken", "s1__foo", "tok_9"],
    ]);
  });

  it("lets a missing repository's NOT_FOUND through for tokens, calling no handle; a missing token is NotFoundError", async () => {
    const { binding, log } = declaredBinding();
    const s1 = createArtifact(binding, "s1");
    await expect(s1.createToken("gone")).rejects.toMatchObject({ code: "NOT_FOUND" });
    await expect(s1.listTokens("gone")).rejects.toMatchObject({ code: "NOT_FOUND" });
    await expect(s1.revokeToken("gone", "tok_9")).rejects.toMatchObject({ code: "NOT_FOUND" });
    await expect(s1.getToken("foo", "tok_nope")).rejects.toBeInstanceOf(NotFoundError);
    await expect(s1.getToken("foo", "tok_nope")).rejects.toMatchObject({ code: "ENOTFOUND" });
    const share = await s1.cli({ argv: ["share", "gone"] });
    expect(share).toMatchObject({ exitCode: 1, stderr: "artifacts share: repository 's1__gone' not found\n" });
    expect(log.filter(([verb]) => verb === "createToken" || verb === "revokeToken")).toEqual([]);
  });

  it("passes import one {source, target} object and strips the session from what comes back", async () => {
    const { binding, log } = declaredBinding();
    const s1 = createArtifact(binding, "s1");
    const source = { url: "https://git.test/a.git", branch: "dev", depth: 1 };
    const imported = await s1.import("copy", source, { description: "d" });
    expect(imported).toMatchObject({ name: "copy", token: "art_initial?expires=1" });
    expect(log).toEqual([["import", { source, target: { name: "s1__copy", opts: { description: "d" } } }]]);
    expect((await s1.list()).map(({ name }) => name)).toEqual(["foo"]);
    expect(await s1.delete("foo")).toBe(true);
  });

  it("artifacts create mints the token it prints and revokes the one a new repository comes with", async () => {
    const { binding, log } = declaredBinding();
    const s1 = createArtifact(binding, "s1");
    const made = JSON.parse((await s1.cli({ argv: ["create", "site"] })).stdout);
    expect(made).toMatchObject({ token: "art_new?expires=2", tokenExpiresAt: AT, scope: "write" });
    expect(made.credentialedRemote).toBe("https://x:art_new@artifacts.test/s1__site.git");
    expect(log.filter(([verb]) => verb === "createToken" || verb === "revokeToken")).toEqual([
      ["revokeToken", "s1__site", "art_initial?expires=1"],
      ["createToken", "s1__site", "write", undefined],
    ]);
  });
});

describe("MemoryArtifactsBinding speaks the same interface", () => {
  it("throws NOT_FOUND from get, keeps tokens on the handle and mints one with every repository", async () => {
    const binding = new MemoryArtifactsBinding({ now: () => Date.parse(AT) });
    await expect(binding.get("nope")).rejects.toMatchObject({ name: "ArtifactsError", code: "NOT_FOUND" });
    await expect(binding.create("-bad")).rejects.toMatchObject({ code: "INVALID_REPO_NAME" });
    const created = await binding.create("foo", { description: "d" });
    expect(created).toMatchObject({ name: "foo", description: "d", defaultBranch: "main" });
    await expect(binding.create("foo")).rejects.toMatchObject({ code: "ALREADY_EXISTS" });
    const repo = await binding.get("foo");
    // Metadata comes from the capability's info(), not from properties of the handle.
    expect(await repo.info()).toMatchObject({
      name: "foo",
      description: "d",
      remote: "https://artifacts.invalid/git/foo.git",
    });
    expect("name" in repo).toBe(false);
    expect((await repo.listTokens()).tokens.map(({ expiresAt }) => expiresAt)).toEqual(["2026-01-02T00:00:00.000Z"]);
    await expect(repo.createToken("read", 59)).rejects.toMatchObject({ code: "INVALID_TTL" });
    const read = await repo.createToken("read", 60);
    expect((await repo.listTokens()).tokens.map(({ scope }) => scope)).toEqual(["write", "read"]);
    expect(await repo.revokeToken(read.plaintext)).toBe(true);
    expect((await binding.list()).repos[0]).not.toHaveProperty("remote");
    expect(await binding.delete("foo")).toBe(true);
    await expect(repo.listTokens()).rejects.toMatchObject({ code: "NOT_FOUND" });
  });

  it("is what the scoped client reaches through: get, then the handle's createToken", async () => {
    const binding = new MemoryArtifactsBinding();
    const s1 = createArtifact(binding, "s1");
    await s1.create("foo");
    await expect(s1.get("bar")).rejects.toMatchObject({ code: "NOT_FOUND" });
    await s1.createToken("foo", "read");
    expect(binding.calls).toEqual(["create s1__foo", "get s1__bar", "get s1__foo", "createToken s1__foo"]);
  });
});
