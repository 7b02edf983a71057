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
import { fileURLToPath } from "node:url";
import { cloudflareTest } from "@cloudflare/vitest-pool-workers";
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
      // workerd sees no process.env of its own: pass the model test's knobs (DOFS_MODEL_SEEDS, …) through.
      env: Object.fromEntries(Object.entries(process.env).filter(([key]) => key.startsWith("DOFS_MODEL_"))) as Record<
        string,
        string
      >,
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
      include: ["packages/computer/src/**/*.test.ts"],
      exclude: ["**/node_modules/**", "**/dist/**", "**/*.worker.test.ts"],
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
    // examples/worker-javascript through its HTTP routes (Miniflare in Node, the Worker bundled by esbuild).
    test: {
      name: "examples:worker-javascript",
      environment: "node",
      include: ["examples/worker-javascript/test/**/*.test.ts"],
      testTimeout: 60_000,
      hookTimeout: 60_000,
    },
  },
  {
    // examples/container through its HTTP routes: Miniflare in Node, real computerd under a local container host,
    // and `wrangler deploy --dry-run` of its config.
    test: {
      name: "examples:container",
      environment: "node",
      include: ["examples/container/test/**/*.test.ts"],
      testTimeout: 120_000,
      hookTimeout: 120_000,
    },
  },
  {
    // examples/worker-shell through its HTTP routes (Miniflare in Node, the Worker bundled by esbuild),
    // `npm run dev` serving and stopping, and `wrangler deploy --dry-run` of its config.
    test: {
      name: "examples:worker-shell",
      environment: "node",
      include: ["examples/worker-shell/test/**/*.test.ts"],
      testTimeout: 60_000,
      hookTimeout: 60_000,
    },
  },
  {
    // examples/egress: one URL through container curl, worker-shell curl and worker-javascript fetch under each
    // EGRESS_MODE (Miniflare, a local container host, a local HTTP server), `npm run dev`, and the deploy dry run.
    test: {
      name: "examples:egress",
      environment: "node",
      include: ["examples/egress/test/**/*.test.ts"],
      testTimeout: 120_000,
      hookTimeout: 120_000,
    },
  },
  {
    // examples/think: the chat over a real WebSocket with the demo model (Miniflare, the Worker Loader and real
    // computerd under a local container host), `npm run chat` as a child process, the OpenAI-compatible provider
    // against a local fake endpoint, `npm run dev` and `wrangler deploy --dry-run`.
    test: {
      name: "examples:think",
      environment: "node",
      include: ["examples/think/test/**/*.test.ts"],
      testTimeout: 120_000,
      hookTimeout: 120_000,
    },
  },
  {
    // examples/mcp: the official MCP SDK client against the Worker under Miniflare (Code Mode `code` tool over the
    // workspace tools, both shells), `npm run dev` with a client over a real socket, and the deploy dry run.
    test: {
      name: "examples:mcp",
      environment: "node",
      include: ["examples/mcp/test/**/*.test.ts"],
      testTimeout: 120_000,
      hookTimeout: 120_000,
    },
  },
  {
    // examples/think-compare-runtimes: one task on container-shell and worker-shell side by side (Miniflare, the
    // Worker Loader, real computerd under a local container host), live events, stop; dev and dry-run deploy.
    test: {
      name: "examples:think-compare-runtimes",
      environment: "node",
      include: ["examples/think-compare-runtimes/test/**/*.test.ts"],
      testTimeout: 120_000,
      hookTimeout: 120_000,
    },
  },
  {
    // examples/artifacts through POST /create: Miniflare in Node, the local Artifacts host (real git
    // http-backend) as the binding's stand-in, real git cloning the result; `npm run dev` and the dry run.
    test: {
      name: "examples:artifacts",
      environment: "node",
      include: ["examples/artifacts/test/**/*.test.ts"],
      testTimeout: 60_000,
      hookTimeout: 60_000,
    },
  },
  {
    // examples/assets through POST /prompt: Miniflare in Node with local R2, the local image model and
    // the local presigned-URL route; `npm run dev` and the dry run.
    test: {
      name: "examples:assets",
      environment: "node",
      include: ["examples/assets/test/**/*.test.ts"],
      testTimeout: 60_000,
      hookTimeout: 60_000,
    },
  },
  {
    // examples/tutorial: POST /prompt → Markdown → PDF with pandoc and groff in a real computerd container →
    // a presigned URL served by the local R2 stand-in (Miniflare's R2); dev and dry-run deploy.
    test: {
      name: "examples:tutorial",
      environment: "node",
      include: ["examples/tutorial/test/**/*.test.ts"],
      testTimeout: 120_000,
      hookTimeout: 120_000,
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
    // examples/console: its HTTP/SSE routes (Miniflare in Node, real computerd under a local container host),
    // the page in headless Chromium against the real dev script (stop, nothing left, restart, files kept),
    // and `wrangler deploy --dry-run` of its config.
    test: {
      name: "examples:console",
      environment: "node",
      include: ["examples/console/test/**/*.test.ts"],
      testTimeout: 180_000,
      hookTimeout: 120_000,
    },
  },
  {
    // Repository-wide checks (docs that name paths which must exist).
    test: { name: "repo", environment: "node", include: ["scripts/**/*.test.ts"] },
  },
];

/** Every project but the examples resolves the sibling libraries to their sources. */
export const projects: TestProjectConfiguration[] = listed.map((project) =>
  typeof project === "object" && "test" in project && !project.test?.name?.toString().startsWith("examples:")
    ? { ...project, plugins: [siblingSources(), ...(project.plugins ?? [])] }
    : project,
);
