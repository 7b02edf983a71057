import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { ExecEvent } from "@cloudflare/computer-rpc";
import { createWorkspaceClient, type WorkspaceClient } from "@cloudflare/computer-rpc/client";
import { pullOnce, pushOnce } from "@cloudflare/computer-rpc/driver";
import { WorkspaceFilesystem } from "@cloudflare/dofs";
import { openNodeDatabase } from "@cloudflare/dofs/node";
import { afterAll, beforeAll, expect, test } from "vitest";
import { startDaemon, stopAll, type TestDaemon } from "../../test/daemon.js";

let daemon: TestDaemon;
let client: WorkspaceClient;
const store = openNodeDatabase();
const doFs = new WorkspaceFilesystem(store);

beforeAll(async () => {
  daemon = await startDaemon({ FUSE_MOUNT: "shim" });
  client = await createWorkspaceClient({ url: `${daemon.url}/api` });
});

afterAll(async () => {
  await client?.close();
  await stopAll();
});

async function run(source: string): Promise<string> {
  let stdout = "";
  for await (const event of (await client.shell.exec({ source })).events as ReadableStream<ExecEvent>) {
    if (event.name === "stdout") stdout += Buffer.from(event.value).toString();
  }
  return stdout;
}

test("files pushed are on disk for the next exec", async () => {
  await doFs.mkdir(join(daemon.mountPoint, "src"), { recursive: true });
  await doFs.writeFile(join(daemon.mountPoint, "src/in.txt"), "from the DO\n", { mode: 0o600 });
  await pushOnce({ db: store }, client.sync);
  expect(await run("cat src/in.txt; stat -c %a src/in.txt")).toBe("from the DO\n600\n");
});

test("files an exec writes appear in the very next fetchChanges, without waiting for a poll", async () => {
  await run("mkdir -p out/deep && echo made > out/deep/f.txt && rm src/in.txt");
  await pullOnce({ db: store }, client.sync);
  expect(await doFs.readFile(join(daemon.mountPoint, "out/deep/f.txt"), "utf8")).toBe("made\n");
  expect(await doFs.stat(join(daemon.mountPoint, "src/in.txt")).catch((error) => error.code)).toBe("ENOENT");
});

test("a write straight to the disk is picked up, and the store wins a tie", async () => {
  writeFileSync(join(daemon.mountPoint, "direct.txt"), "disk\n");
  await pullOnce({ db: store }, client.sync);
  expect(await doFs.readFile(join(daemon.mountPoint, "direct.txt"), "utf8")).toBe("disk\n");
  // Both sides change the same file; the push lands first, so the store's version wins on disk.
  await doFs.writeFile(join(daemon.mountPoint, "direct.txt"), "store\n");
  writeFileSync(join(daemon.mountPoint, "direct.txt"), "disk again\n");
  await pushOnce({ db: store }, client.sync);
  expect(readFileSync(join(daemon.mountPoint, "direct.txt"), "utf8")).toBe("store\n");
});
