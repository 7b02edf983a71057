import { openNodeDatabase } from "@cloudflare/dofs/node";
import { SyncPeer } from "@cloudflare/dofs/sync";
import { afterAll, beforeAll, describe, expect, test, vi } from "vitest";
import { FakeRunner } from "../../test/fake-runner.js";
import { startTestServer, type TestServer } from "../../test/harness.node.js";
import { createWorkspaceClient, type WorkspaceClient } from "../client/index.node.js";
import type { ExecEvent, ExecOutputEvent, ExecRequest } from "../types.js";
import { createWorkspaceServerFor } from "./index.js";

async function collect(events: ReadableStream<ExecEvent>): Promise<ExecEvent[]> {
  const out: ExecEvent[] = [];
  for await (const event of events) out.push(event);
  return out;
}

describe("createShellServer over a real WebSocket", () => {
  let runner: FakeRunner;
  let server: TestServer;
  let client: WorkspaceClient;

  beforeAll(async () => {
    runner = new FakeRunner();
    server = await startTestServer(() => createWorkspaceServerFor(new SyncPeer(openNodeDatabase()), runner));
    client = await createWorkspaceClient({ url: server.url });
  });

  afterAll(async () => {
    await client.close();
    await server.close();
  });

  test("exec streams output and exit; heartbeats and input never reach the wire or the runner", async () => {
    const handle = await client.shell.exec({ source: "print hi", id: "a", input: { secret: 1 }, env: { X: "1" } });
    expect(handle.id).toBe("a");
    const events = await collect(handle.events);
    expect(events).toEqual([
      { id: "a", seq: 2, name: "stdout", value: expect.any(Uint8Array) },
      { id: "a", seq: 4, name: "exit", code: 0 },
    ]);
    // On Node capnweb decodes bytes into a Buffer (a Uint8Array subclass): compare contents.
    const first = events[0] as ExecOutputEvent;
    expect(new TextDecoder().decode(first.value)).toBe("hi");
    expect(runner.execs.at(-1)).toEqual({ source: "print hi", id: "a", env: { X: "1" } });
  });

  test("getExec replays after a seq, and 'tail' of a finished exec is empty", async () => {
    await collect((await client.shell.exec({ source: "print again", id: "b" })).events);
    const replay = await client.shell.getExec({ id: "b", after: 2 });
    expect((await collect(replay.events)).map((event) => event.seq)).toEqual([4]);
    expect(await collect((await client.shell.getExec({ id: "b", after: "tail" })).events)).toEqual([]);
  });

  test("runner errors keep their codes: EEXEC_BUSY, ENOENT, ELOG_TRUNCATED", async () => {
    await expect(client.shell.exec({ source: "true", id: "EEXEC_BUSY" })).rejects.toMatchObject({ code: "EEXEC_BUSY" });
    await expect(client.shell.getExec({ id: "nope" })).rejects.toMatchObject({ code: "ENOENT", path: "nope" });
    await expect(client.shell.killExec({ id: "nope" })).rejects.toMatchObject({ code: "ENOENT" });
    await expect(client.shell.getExec({ id: "ELOG_TRUNCATED" })).rejects.toMatchObject({ code: "ELOG_TRUNCATED" });
    await client.shell.disposeExec({ id: "b" });
    await expect(client.shell.getExec({ id: "b" })).rejects.toMatchObject({ code: "ENOENT" });
  });

  test("malformed requests fail with EPROTOCOL before the runner", async () => {
    const before = runner.execs.length;
    await expect(client.shell.exec({ source: 42 } as unknown as ExecRequest)).rejects.toMatchObject({
      code: "EPROTOCOL",
    });
    await expect(client.shell.getExec({ id: "a", after: -1 })).rejects.toMatchObject({ code: "EPROTOCOL" });
    await expect(client.shell.killExec({ id: 7 } as unknown as { id: string })).rejects.toMatchObject({
      code: "EPROTOCOL",
    });
    expect(runner.execs.length).toBe(before);
  });

  test("canceling the events stream on the client reaches the runner's stream", async () => {
    const handle = await client.shell.exec({ source: "forever", id: "f" });
    const reader = handle.events.getReader();
    for (let i = 0; i < 3; i++) expect((await reader.read()).value).toMatchObject({ name: "stdout" });
    await reader.cancel("enough");
    await vi.waitFor(() => expect(runner.canceled.get("f")).toBe("enough"), { timeout: 5_000, interval: 10 });
  });
});

describe("a closed session lets go of its executions", () => {
  test("dispose cancels the event streams it handed out, so the subscriber slot is free again", async () => {
    const canceled: unknown[] = [];
    const runner = {
      exec: (request: Omit<ExecRequest, "input">) => ({
        id: request.id ?? "x",
        events: new ReadableStream<ExecEvent>({
          pull: () => new Promise(() => {}),
          cancel: (why) => void canceled.push(why),
        }),
      }),
      getExec: () => {
        throw new Error("unused");
      },
      killExec: () => {},
      disposeExec: () => {},
    };
    const server = createWorkspaceServerFor(new SyncPeer(openNodeDatabase()), runner);
    const finished = await server.shell.exec({ source: "a", id: "done" });
    await finished.events.cancel();
    await server.shell.exec({ source: "b", id: "live" });
    expect(canceled).toHaveLength(1);
    server[Symbol.dispose]();
    await vi.waitFor(() => expect(canceled).toHaveLength(2), { timeout: 5_000, interval: 10 });
    expect(String(canceled[1])).toMatch(/session closed/);
  });
});
