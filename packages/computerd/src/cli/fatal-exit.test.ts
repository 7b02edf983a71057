/**
 * A daemon that dies of an uncaught error takes its commands along. The
 * fault is a real one: whoever read computerd's stderr went away (a host that
 * died), so the next log line fails with EPIPE, which Node throws as an
 * uncaught error; computerd exits 1. Its commands run in process groups of
 * their own, so nothing else would end them.
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { createWorkspaceClient } from "@cloudflare/computer-rpc/client";
import { afterAll, expect, test } from "vitest";
import { startDaemon, stopAll } from "../../test/daemon.js";
import { processesWith } from "../../test/processes.js";
import { waitFor } from "../../test/wait.js";

afterAll(async () => {
  await stopAll();
});

test("an uncaught error (EPIPE on stderr) exits 1 and SIGKILLs every command's process group", async () => {
  const daemon = await startDaemon({ FUSE_MOUNT: "none" });
  const client = await createWorkspaceClient({ url: `${daemon.url}/api` });
  const marker = `fatal-exit-${process.pid}-${Date.now()}`;
  // A pipeline: the shell and its child in the command's process group, both silent.
  await client.shell.exec({ source: `: ${marker}; exec >/dev/null 2>&1; sleep 300 | sleep 301`, timeoutMs: 0 });
  await client.close();
  await waitFor(() => processesWith(marker).length > 0, "the pipeline's processes", { timeoutMs: 5_000 });

  daemon.child.stderr?.destroy();
  daemon.child.stdout?.destroy();
  // Anything that logs will do: /connect logs the dial.
  const upstream = createServer((_request, response) => response.writeHead(200).end());
  await new Promise<void>((resolve) => upstream.listen(0, "127.0.0.1", resolve));
  try {
    const base = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;
    await fetch(`${daemon.url}/connect`, { method: "POST", body: JSON.stringify({ base, health: "/", api: "/api" }) });
    expect(await daemon.exited).toBe(1);
  } finally {
    upstream.close();
  }
  // The `exit` handler signaled the group before the process ended; give the kernel a bounded moment to reap.
  await waitFor(() => processesWith(marker).length === 0, "the pipeline reaped", { timeoutMs: 5_000 });
});
