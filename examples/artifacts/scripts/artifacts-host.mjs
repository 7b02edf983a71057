// LOCAL STAND-IN for Cloudflare Artifacts, for `npm run dev` and the tests.
//
// The Artifacts binding exists only on Cloudflare. This Node process plays
// the service behind it: a JSON API with the binding's operations (create,
// get, import, list, delete and the repository handle's createToken,
// listTokens, revokeToken, fork), which `src/local-artifacts.ts` turns back
// into an object with the binding's interface, and a real git smart-HTTP
// server (`git http-backend`) for the repositories, checking each request's
// token the way Artifacts does (Basic auth, the token as the password; write
// scope to push). The operations and their error codes are
// `MemoryArtifactsBinding` from `@cloudflare/computer/artifacts`, which has
// the binding's interface too; the bytes are bare repositories on disk.
//
// It also serves a public, read-only source repository, `starter.git`, so the
// example's `git clone` works offline: `<url>/sources/starter.git`.
//
// Needs `git` (with `git http-backend`) on PATH.
import { execFile, spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { MemoryArtifactsBinding } from "@cloudflare/computer/artifacts";

/** The starter template: `{{name}}` is what the example's `sed` replaces. */
export const STARTER_FILES = {
  "index.html": "<!doctype html>\n<title>{{name}}</title>\n<h1>{{name}}</h1>\n<p>Made from the starter template.</p>\n",
  "README.md": "# {{name}}\n\nA site made by the artifacts example from its starter template.\n",
};

/**
 * Starts the stand-in on 127.0.0.1 (`port` 0 = a free one) with its
 * repositories under a new temporary directory, removed by `close()`.
 */
export async function startArtifactsHost({ port = 0 } = {}) {
  const root = mkdtempSync(join(tmpdir(), "artifacts-host-"));
  const repos = join(root, "repos");
  const sources = join(root, "sources");
  mkdirSync(repos);
  mkdirSync(sources);
  await seedStarter(root, join(sources, "starter.git"));

  // `remoteBase` is only known once the server listens; the binding reads it when a repository is made.
  const options = {
    remoteBase: "",
    onCreate: async (name, origin) => {
      const target = join(repos, `${name}.git`);
      if (origin?.kind === "import") {
        await git(root, "clone", "--quiet", "--bare", ...depthArgs(origin.source), origin.source.url, target);
      } else if (origin?.kind === "fork") {
        await git(root, "clone", "--quiet", "--bare", join(repos, `${origin.from}.git`), target);
      } else {
        await git(root, "init", "--quiet", "--bare", "--initial-branch", "main", target);
      }
    },
  };
  const memory = new MemoryArtifactsBinding(options);
  const api = operations(memory, repos);

  const server = createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    const [, area, repo] = url.pathname.split("/");
    if (area === "api" && req.method === "POST") return void serveApi(api, repo ?? "", req, res);
    if (area === "repos" && repo?.endsWith(".git")) {
      const name = repo.slice(0, -".git".length);
      const push = url.searchParams.get("service") === "git-receive-pack" || url.pathname.endsWith("/git-receive-pack");
      const info = memory.repos.get(name);
      if (!info) return void res.writeHead(404).end();
      if (!memory.authorize(name, basicPassword(req), push)) {
        return void res.writeHead(401, { "WWW-Authenticate": 'Basic realm="artifacts"' }).end();
      }
      if (push && info.readOnly) return void res.writeHead(403).end("read-only repository\n");
      return void gitHttpBackend(repos, url, req, res, { push: true });
    }
    if (area === "sources") return void gitHttpBackend(sources, url, req, res, { push: false });
    res.writeHead(404, { "content-type": "text/plain" }).end("artifacts stand-in: /api/<op>, /repos/, /sources/\n");
  });
  await new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, "127.0.0.1", resolve);
  });
  const base = `http://127.0.0.1:${server.address().port}`;
  options.remoteBase = `${base}/repos`;
  return {
    url: base,
    /** A public source repository holding `STARTER_FILES`. */
    starterUrl: `${base}/sources/starter.git`,
    /** Where the bare repositories live (`<name>.git`). */
    repos,
    binding: memory,
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(() => resolve()));
      rmSync(root, { recursive: true, force: true });
    },
  };
}

/**
 * The JSON API: the binding's operations, each argument object unpacked
 * into the call; what the handle does is reached through `get`, as on the
 * real binding. Results are plain data (a handle's methods do not serialize).
 */
function operations(memory, repos) {
  const handle = async (name) => memory.get(name);
  return {
    async create({ name, opts = {} }) {
      const created = await memory.create(name, opts);
      if (opts.setDefaultBranch) {
        await git(repos, "--git-dir", `${name}.git`, "symbolic-ref", "HEAD", `refs/heads/${opts.setDefaultBranch}`);
      }
      return created;
    },
    // The binding's handle is a capability; its metadata is info().
    get: async ({ name }) => (await handle(name)).info(),
    import: (params) => memory.import(params),
    list: ({ opts }) => memory.list(opts),
    async delete({ name }) {
      const deleted = await memory.delete(name);
      if (deleted) rmSync(join(repos, `${name}.git`), { recursive: true, force: true });
      return deleted;
    },
    createToken: async ({ name, scope, ttl }) => (await handle(name)).createToken(scope, ttl),
    listTokens: async ({ name }) => (await handle(name)).listTokens(),
    revokeToken: async ({ name, tokenOrId }) => (await handle(name)).revokeToken(tokenOrId),
    fork: async ({ name, target, opts }) => (await handle(name)).fork(target, opts),
  };
}

/** HTTP statuses for the binding's error codes; anything else is a 500 INTERNAL_ERROR. */
const STATUS = { NOT_FOUND: 404, ALREADY_EXISTS: 409, INVALID_INPUT: 400, INVALID_REPO_NAME: 400, INVALID_TTL: 400 };

async function serveApi(api, op, req, res) {
  const reply = (status, value) =>
    res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(value));
  if (!Object.hasOwn(api, op)) return reply(404, { error: { code: "INVALID_INPUT", message: `unknown op '${op}'` } });
  try {
    const chunks = [];
    for await (const chunk of req) chunks.push(chunk);
    const args = JSON.parse(Buffer.concat(chunks).toString("utf8") || "{}");
    reply(200, { value: await api[op](args) });
  } catch (error) {
    const code = typeof error?.code === "string" && Object.hasOwn(STATUS, error.code) ? error.code : "INTERNAL_ERROR";
    reply(STATUS[code] ?? 500, { error: { code, message: error?.message ?? String(error) } });
  }
}

/**
 * `git http-backend` as a CGI behind Node's http: the request body is piped
 * in, the CGI headers are turned into the response's status and headers, and
 * the rest is streamed out. `push` sets REMOTE_USER, which is what enables
 * receive-pack; without it the backend refuses pushes.
 */
function gitHttpBackend(projectRoot, url, req, res, { push }) {
  const cgi = spawn("git", ["http-backend"], {
    env: {
      PATH: process.env.PATH ?? "",
      GIT_PROJECT_ROOT: projectRoot,
      GIT_HTTP_EXPORT_ALL: "1",
      REMOTE_ADDR: "127.0.0.1",
      REQUEST_METHOD: req.method ?? "GET",
      PATH_INFO: decodeURIComponent(url.pathname.replace(/^\/[^/]+/, "")),
      QUERY_STRING: url.search.slice(1),
      CONTENT_TYPE: req.headers["content-type"] ?? "",
      ...(push ? { REMOTE_USER: "artifacts" } : {}),
      ...(req.headers["content-encoding"] ? { HTTP_CONTENT_ENCODING: req.headers["content-encoding"] } : {}),
      ...(req.headers["git-protocol"] ? { GIT_PROTOCOL: String(req.headers["git-protocol"]) } : {}),
    },
  });
  req.pipe(cgi.stdin);
  cgi.stdin.on("error", () => {});
  let head = Buffer.alloc(0);
  let headersSent = false;
  cgi.stdout.on("data", (chunk) => {
    if (headersSent) return void res.write(chunk);
    head = Buffer.concat([head, chunk]);
    const end = head.indexOf("\r\n\r\n");
    if (end < 0) return;
    headersSent = true;
    let status = 200;
    const headers = {};
    for (const line of head.subarray(0, end).toString("latin1").split("\r\n")) {
      const colon = line.indexOf(":");
      const key = line.slice(0, colon).trim();
      const value = line.slice(colon + 1).trim();
      if (key.toLowerCase() === "status") status = Number.parseInt(value, 10);
      else if (key) headers[key] = value;
    }
    res.writeHead(status, headers);
    res.write(head.subarray(end + 4));
  });
  cgi.on("close", () => {
    if (!headersSent) res.writeHead(500).end("git http-backend failed\n");
    else res.end();
  });
}

function basicPassword(req) {
  const header = req.headers.authorization;
  if (!header?.startsWith("Basic ")) return undefined;
  const decoded = Buffer.from(header.slice("Basic ".length), "base64").toString("utf8");
  return decoded.slice(decoded.indexOf(":") + 1);
}

function depthArgs(source) {
  return [
    ...(source.depth ? ["--depth", String(source.depth)] : []),
    ...(source.branch ? ["--branch", source.branch] : []),
  ];
}

/** A one-commit repository of `STARTER_FILES`, then its bare clone at `target`. */
async function seedStarter(root, target) {
  const work = join(root, "starter");
  mkdirSync(work);
  for (const [name, text] of Object.entries(STARTER_FILES)) writeFileSync(join(work, name), text);
  await git(work, "init", "--quiet", "--initial-branch", "main");
  await git(work, "add", ".");
  const identity = ["-c", "user.name=Starter", "-c", "user.email=starter@example.invalid"];
  await git(work, ...identity, "commit", "--quiet", "-m", "starter");
  await git(root, "clone", "--quiet", "--bare", work, target);
  rmSync(work, { recursive: true, force: true });
}

/**
 * Never synchronous: an import may clone from this very server (the starter),
 * which a blocked event loop could not serve.
 */
function git(cwd, ...args) {
  return new Promise((resolve, reject) => {
    execFile("git", args, { cwd, env: { ...process.env, GIT_TERMINAL_PROMPT: "0" } }, (error, stdout, stderr) => {
      if (error) reject(new Error(`git ${args.join(" ")} failed: ${stderr || error.message}`));
      else resolve(stdout);
    });
  });
}
