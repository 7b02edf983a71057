/**
 * Every test project in the repository. vitest 4 does not read this file by
 * itself: the root `vitest.config.ts` imports it into `test.projects`.
 *
 * Shared test files run in both runtimes; `#harness` is the one module swapped
 * per project so the same suite exercises better-sqlite3 and a Durable Object's
 * SQLite. Naming decides the runtime: `*.node.test.ts` runs only in Node,
 * `*.worker.test.ts` only in workerd.
 *
 * The package projects import dofs and rpc from their sources
 * (scripts/sibling-sources.ts), so a test never runs against a stale dist/;
 * the example projects test the built packages as a user would.
 */
import { existsSync, readdirSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { cloudflareTest } from "@cloudflare/vitest-plugin";
import type { TestProjectConfiguration } from "vitest/config";
import { siblingSources } from "./scripts/sibling-sources.js";

const here = (path: string): string => fileURLToPath(new URL(path, import.meta.url));

const dofsShared = ["packages/dofs/src/**/*.test.ts", "packages/dofs/test/**/*.test.ts"];

const listed: TestProjectConfiguration[] = [
  {
    resolve: { alias: { "#harness": here("./packages/dofs/test/harness.node.ts") } },
    test: {
      name: "dofs:node",
      environment: "node",
      include: dofsShared,
      exclude: ["**/node_modules/**", "**/dist/**", "**/*.worker.test.ts"],
    },
  },
  {
    resolve: { alias: { "#harness": here("./packages/dofs/test/harness.worker.ts") } },
    plugins: [
      cloudflareTest({
        // The test worker (a Durable Object class with SQLite storage) comes from
        // this wrangler config; its `main` runs in the same isolate as the tests.
        wrangler: { configPath: here("./packages/dofs/test/wrangler.jsonc") },
      }),
    ],
    test: {
      name: "dofs:workerd",
      // workerd sees no process.env of its own: pass the model tests' knobs (DOFS_MODEL_SEEDS, FSX_OPS, …) through.
      env: Object.fromEntries(
        Object.entries(process.env).filter(([key]) => key.startsWith("DOFS_MODEL_") || key.startsWith("FSX_")),
      ) as Record<string, string>,
      include: dofsShared,
      exclude: ["**/node_modules/**", "**/dist/**", "**/*.node.test.ts"],
    },
  },
  {
    // capnweb over a real `ws` server on 127.0.0.1; dofs comes from its dist/ like any consumer.
    test: {
      name: "rpc:node",
      environment: "node",
      include: ["packages/rpc/src/**/*.test.ts"],
      exclude: ["**/node_modules/**", "**/dist/**", "**/*.worker.test.ts"],
    },
  },
  {
    // The same transport inside workerd, over a WebSocketPair, with a SyncPeer on Durable Object SQLite.
    plugins: [cloudflareTest({ wrangler: { configPath: here("./packages/rpc/test/wrangler.jsonc") } })],
    test: {
      name: "rpc:workerd",
      include: ["packages/rpc/src/**/*.worker.test.ts"],
      exclude: ["**/node_modules/**", "**/dist/**"],
    },
  },
  {
    // The runtime core of @cloudflare/computer: shared tests run here and in workerd below.
    test: {
      name: "computer:node",
      environment: "node",
      // The fake shell backend is a test-only helper; its own tests run here too.
      include: ["packages/computer/src/**/*.test.ts", "packages/computer/test/fake-shell/**/*.node.test.ts"],
      exclude: ["**/node_modules/**", "**/dist/**", "**/*.worker.test.ts"],
    },
  },
  {
    // Drop-in differential tests: the published @cloudflare/computer@0.2.1 and ours, same scenarios, one worker.
    plugins: [
      cloudflareTest({ wrangler: { configPath: here("./packages/computer/test/differential/wrangler.jsonc") } }),
    ],
    test: {
      name: "computer:differential",
      include: ["packages/computer/test/differential/**/*.worker.test.ts"],
      exclude: ["**/node_modules/**", "**/dist/**"],
      // Bundles the sandboxes: the worker-shell scenarios load them into Dynamic Workers (cold loads take seconds).
      globalSetup: [here("./packages/computer/test/differential/global-setup.node.ts")],
      testTimeout: 60_000,
    },
  },
  {
    plugins: [cloudflareTest({ wrangler: { configPath: here("./packages/computer/test/wrangler.jsonc") } })],
    test: {
      name: "computer:workerd",
      include: ["packages/computer/src/**/*.test.ts"],
      // Tools, assets and mounts need the R2 bindings of their own worker (next project).
      exclude: [
        "**/node_modules/**",
        "**/dist/**",
        "**/*.node.test.ts",
        "packages/computer/src/{tools,assets,mounts}/**/*.worker.test.ts",
      ],
    },
  },
  {
    // AI SDK tools, assets and R2 mounts against a Workspace in a Durable Object and Miniflare's local R2.
    plugins: [cloudflareTest({ wrangler: { configPath: here("./packages/computer/test/tools/wrangler.jsonc") } })],
    test: {
      name: "computer-tools:workerd",
      include: ["packages/computer/src/{tools,assets,mounts}/**/*.worker.test.ts"],
      exclude: ["**/node_modules/**", "**/dist/**"],
    },
  },
  {
    // computerd: real processes, real FUSE mounts and real sockets on 127.0.0.1.
    test: {
      name: "computerd:node",
      environment: "node",
      include: ["packages/computerd/src/**/*.test.ts"],
      exclude: ["**/node_modules/**", "**/dist/**"],
      testTimeout: 30_000,
      hookTimeout: 30_000,
    },
  },
  {
    // Booting the workspace image (containers/rootfs.sh), and fsx on the FUSE mount of computerd as the
    // image ships it: the image's Node, bundle and native modules, chrooted into its root filesystem.
    test: {
      name: "computerd-image:node",
      environment: "node",
      include: ["packages/computerd/src/mount/fsx.fuse.test.ts", "packages/computerd/test/rootfs.image.test.ts"],
      globalSetup: [here("./packages/computerd/test/image-setup.node.ts")],
      // Fewer ops than computerd:node's run of the same file (20 000): the code is the same, the image's part
      // (its Node, natives and libfuse against the kernel) shows in the first thousands. FSX_OPS still wins.
      env: { FSX_OPS: process.env.FSX_OPS ?? "4000" },
      testTimeout: 120_000,
      hookTimeout: 30_000,
    },
  },
  {
    // The worker-javascript backend against a real Durable Object and the real Worker Loader.
    plugins: [
      cloudflareTest({ wrangler: { configPath: here("./packages/computer/test/worker-javascript/wrangler.jsonc") } }),
    ],
    test: {
      name: "computer-js:workerd",
      include: ["packages/computer/test/worker-javascript/**/*.test.ts"],
      exclude: ["**/node_modules/**", "**/dist/**"],
      globalSetup: [here("./packages/computer/test/worker-javascript/global-setup.node.ts")],
      // Each test loads fresh Dynamic Workers (one per execution); 24 at once in the concurrency test.
      testTimeout: 60_000,
    },
  },
  {
    // The container backend end to end: a DO in workerd, real computerd processes under the local container host.
    plugins: [cloudflareTest({ wrangler: { configPath: here("./packages/computer/test/container/wrangler.jsonc") } })],
    test: {
      name: "computer-container:workerd",
      include: ["packages/computer/test/container/**/*.test.ts"],
      exclude: ["**/node_modules/**", "**/dist/**"],
      globalSetup: [here("./packages/computer/test/container/global-setup.node.ts")],
      testTimeout: 60_000,
    },
  },
  {
    // The same container-shell suite against the workspace image: containers/rootfs.sh builds its root
    // filesystem from the Dockerfile's inputs, and the local container host boots computerd inside it.
    plugins: [cloudflareTest({ wrangler: { configPath: here("./packages/computer/test/container/wrangler.jsonc") } })],
    test: {
      name: "computer-container-image:workerd",
      include: ["packages/computer/test/container/container.worker.test.ts"],
      exclude: ["**/node_modules/**", "**/dist/**"],
      globalSetup: [here("./packages/computer/test/container/image-setup.node.ts")],
      testTimeout: 60_000,
    },
  },
  {
    // The worker-shell backend: just-bash in a real Dynamic Worker over a Workspace in a Durable Object.
    // The global setup bundles the sandboxes into dist/sandbox/, serves a local HTTP endpoint for
    // the egress tests and runs the GNU side of the pipeline comparison.
    plugins: [
      cloudflareTest({ wrangler: { configPath: here("./packages/computer/test/worker-shell/wrangler.jsonc") } }),
    ],
    test: {
      name: "computer-shell:workerd",
      include: ["packages/computer/test/worker-shell/**/*.worker.test.ts"],
      exclude: ["**/node_modules/**", "**/dist/**"],
      globalSetup: [here("./packages/computer/test/worker-shell/global-setup.node.ts")],
      testTimeout: 60_000,
    },
  },
  {
    // Node-side checks of the worker-shell: the bundle split, and that a container-only Worker leaves just-bash out.
    test: {
      name: "computer-shell:node",
      environment: "node",
      include: ["packages/computer/test/worker-shell/**/*.node.test.ts"],
      testTimeout: 60_000,
    },
  },
  {
    // Repository-wide checks (docs that name paths which must exist).
    test: { name: "repo", environment: "node", include: ["scripts/**/*.test.ts"] },
  },
];

/**
 * Every example with a `test/` folder is a project `examples:<name>`, so a new
 * example is tested by default. Each runs in Node: its Worker under Miniflare
 * (bundled by esbuild from the built packages), `npm run dev` and the deploy
 * dry run; what each covers is in its README. Timeouts are per test and hook.
 */
const EXAMPLE_TIMEOUTS: Record<string, { test: number; hook: number }> = {
  // Real computerd under a local container host (and for the console, headless Chromium).
  container: { test: 120_000, hook: 120_000 },
  egress: { test: 120_000, hook: 120_000 },
  think: { test: 120_000, hook: 120_000 },
  mcp: { test: 120_000, hook: 120_000 },
  "think-compare-runtimes": { test: 120_000, hook: 120_000 },
  tutorial: { test: 120_000, hook: 120_000 },
  console: { test: 180_000, hook: 120_000 },
};
const EXAMPLE_DEFAULT_TIMEOUT = { test: 60_000, hook: 60_000 };

const examples: TestProjectConfiguration[] = readdirSync(here("./examples"))
  .filter((name) => existsSync(here(`./examples/${name}/test`)))
  .sort()
  .map((name) => {
    const timeout = EXAMPLE_TIMEOUTS[name] ?? EXAMPLE_DEFAULT_TIMEOUT;
    return {
      test: {
        name: `examples:${name}`,
        environment: "node",
        include: [`examples/${name}/test/**/*.test.ts`],
        testTimeout: timeout.test,
        hookTimeout: timeout.hook,
      },
    };
  });

/** Every project but the examples resolves the sibling libraries to their sources. */
export const projects: TestProjectConfiguration[] = [
  ...listed.map((project) =>
    typeof project === "object" && "test" in project && !project.test?.name?.toString().startsWith("examples:")
      ? {
          ...project,
          plugins: [siblingSources(project.test?.environment === "node" ? ["node"] : []), ...(project.plugins ?? [])],
        }
      : project,
  ),
  ...examples,
];
