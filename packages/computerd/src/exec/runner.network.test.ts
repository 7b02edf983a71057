/**
 * `network: "isolated"` (egress `none` on the local container host): a command
 * runs in an empty network namespace and cannot reach even a server on the
 * host's 127.0.0.1, while the same command without it can. Real processes,
 * a real server; needs root for `unshare --net`.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { ExecEvent } from "@cloudflare/computer-rpc";
import { openNodeDatabase } from "@cloudflare/dofs/node";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { allowedEnv } from "./env.js";
import { Runner } from "./runner.js";

let server: Server;
let url: string;

beforeAll(async () => {
  server = createServer((_request, response) => response.end("reached"));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

async function run(isolated: boolean): Promise<{ code: number | undefined; stdout: string }> {
  const runner = new Runner({
    db: openNodeDatabase(),
    logMaxBytes: 1 << 20,
    defaultCwd: "/tmp",
    checkCwd: () => undefined,
    envLayers: [allowedEnv(process.env)],
    sweepIntervalMs: 0,
    network: isolated ? "isolated" : "host",
  });
  try {
    // node is on PATH wherever these tests run; exit 7 means the request failed.
    const script = `fetch(${JSON.stringify(url)}).then(async (r) => console.log(await r.text()), () => process.exit(7))`;
    const handle = await runner.exec({ source: `node -e '${script}'`, id: "net" });
    const events: ExecEvent[] = [];
    for await (const event of handle.events) if (event.name !== "heartbeat") events.push(event);
    const stdout = Buffer.concat(events.flatMap((e) => (e.name === "stdout" ? [Buffer.from(e.value)] : []))).toString();
    const exit = events.at(-1);
    return { code: exit?.name === "exit" ? exit.code : undefined, stdout };
  } finally {
    runner.shutdown();
  }
}

describe('network: "isolated"', () => {
  test("without it a command reaches a server on the host's loopback", async () => {
    expect(await run(false)).toEqual({ code: 0, stdout: "reached\n" });
  });

  test("with it the same command cannot reach anything", async () => {
    expect(await run(true)).toEqual({ code: 7, stdout: "" });
  });
});
