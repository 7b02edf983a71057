/**
 * The example's Worker for a test file: bundled the way wrangler would and
 * served by Miniflare (a SQLite Durable Object, the Worker Loader for
 * worker-shell), its container-shell a real computerd under a local
 * container host started for the file's tests.
 */
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { type RunningHost, startHost } from "@cloudflare/computerd/host";
import { afterAll, beforeAll } from "vitest";
import { useExampleWorker } from "../../test-support/worker.js";

const example = join(dirname(fileURLToPath(import.meta.url)), "..");

export function useAssistantWorker(): ReturnType<typeof useExampleWorker> {
  let host: RunningHost;
  // Registered before the worker's own beforeAll, so the host is up when the worker's bindings are read.
  beforeAll(async () => {
    host = await startHost({ port: 0, log: () => {} });
  });
  afterAll(async () => {
    await host?.close();
  });
  return useExampleWorker(example, () => ({
    durableObjects: { Assistant: { className: "Assistant", useSQLite: true } },
    workerLoaders: { LOADER: {} },
    bindings: { COMPUTER_CONTAINER_HOST: host.url },
  }));
}
