/**
 * Egress (`docs/worker-shell.md`, live with curl) and the built-in host
 * commands: `assets publish` (8), `git` without git (32), `artifacts`
 * without a binding.
 */

import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, inject, test } from "vitest";
import { WorkerShellBackend } from "../../src/backends/worker-shell/index.js";
import { fixtureFor, inShell } from "./harness.worker.js";
import type { PlainShellWorkspaceObject } from "./main.worker.js";

const ctx = { exports: { WorkspaceServiceProxy: (options: unknown) => ({ proxy: options }) } };
const gateway = { fetch: async () => new Response("gateway") };

describe("egress", () => {
  test("7: none / direct / http-gateway map to globalOutbound null / absent / the gateway, under different loader ids", () => {
    const make = (egress: ConstructorParameters<typeof WorkerShellBackend>[0]["egress"]) =>
      new WorkerShellBackend({
        loader: env.LOADER,
        workspace: { binding: "SHELL_WORKSPACE", id: "abc" },
        ctx,
        ...(egress === undefined ? {} : { egress }),
      });
    const none = make(undefined);
    const direct = make({ mode: "direct" });
    const viaGateway = make({ mode: "http-gateway", gateway, revision: "7" });
    const unrevised = make({ mode: "http-gateway", gateway });
    expect(none.workerCode().globalOutbound).toBeNull();
    expect("globalOutbound" in direct.workerCode()).toBe(false);
    expect(viaGateway.workerCode().globalOutbound).toBe(gateway);
    expect(none.loaderId).toBe("workspace-shell:abc:egress-none");
    expect(direct.loaderId).toBe("workspace-shell:abc:egress-direct");
    expect(viaGateway.loaderId).toBe("workspace-shell:abc:egress-http-gateway-7");
    expect(unrevised.loaderId).toMatch(/^workspace-shell:abc:egress-http-gateway-[0-9a-f-]{36}$/);
    expect(none.workerCode()).toMatchObject({
      mainModule: "shell.js",
      compatibilityFlags: ["nodejs_compat"],
      env: { HOST: { proxy: { props: { binding: "SHELL_WORKSPACE", id: "abc" } } }, SHELL_COMMANDS: [] },
    });
  });

  test("curl never grants network: egress none blocks it, direct reaches a local server, the gateway sees it", async () => {
    const url = inject("localServerUrl");
    await inShell(async ({ run }) => {
      const blocked = await run(`curl -s ${url}/blocked`);
      expect(blocked.exitCode).not.toBe(0);
      expect(blocked.stdout).toBe("");
      const direct = await run(`curl -s ${url}/direct`, { backend: "shell-direct" });
      expect(direct).toMatchObject({ exitCode: 0, stdout: "local server saw GET /direct\n" });
      const gated = await run(`curl -s ${url}/gated`, { backend: "shell-gateway" });
      expect(gated).toMatchObject({ exitCode: 0, stdout: `gateway saw GET ${url}/gated\n` });
      // jq is loaded too; yq was not imported, so it is not there.
      expect((await run(`echo '{"a":[1,2]}' | jq -c '.a'`)).stdout).toBe("[1,2]\n");
      expect((await run("echo a: 1 | yq .a")).exitCode).toBe(127);
    });
  });
});

describe("built-in commands", () => {
  test("8: assets publish joins the cwd, parses the expiry and prints the URL; bad usage exits 2", async () => {
    await inShell(async ({ run, instance }) => {
      const result = await run("assets publish out.png 30s");
      expect(result).toMatchObject({ exitCode: 0, stdout: "https://assets.test/workspace/out.png\n" });
      await run("mkdir -p sub");
      await run("assets publish ../img/x.png 1500", { cwd: "/workspace/sub" });
      await run("assets publish y.png");
      expect(instance.published).toEqual([
        { path: "/workspace/out.png", expiresAfter: 30_000 },
        { path: "/workspace/img/x.png", expiresAfter: 1500 },
        { path: "/workspace/y.png", expiresAfter: 3_600_000 },
      ]);
      expect((await run("assets foo")).exitCode).toBe(2);
      expect((await run("assets publish x.png soon")).exitCode).toBe(2);
      expect((await run("assets")).exitCode).toBe(2);
    });
  });

  test("8, 32: without assets, git or artifacts configured the commands exit 1 and say so", async () => {
    const stub = env.PLAIN_SHELL_WORKSPACE.get(env.PLAIN_SHELL_WORKSPACE.newUniqueId());
    await runInDurableObject(stub, async (instance: PlainShellWorkspaceObject, state) => {
      const { run, workspace } = fixtureFor(instance, state);
      await workspace.fs.mkdir("/workspace", { recursive: true });
      const assets = await run("assets publish out.png");
      expect(assets.exitCode).toBe(1);
      expect(assets.stderr).toMatch(/no assets/);
      const git = await run("git status");
      expect(git.exitCode).toBe(1);
      expect(git.stderr).toMatch(/^git: .*not configured/);
      const artifacts = await run("artifacts repo list");
      expect(artifacts.exitCode).toBe(1);
      expect(artifacts.stderr).toMatch(/^artifacts repo list: .*not configured/);
    });
  });
});
