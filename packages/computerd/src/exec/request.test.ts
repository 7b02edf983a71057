import { openNodeDatabase } from "@cloudflare/dofs/node";
import { afterAll, describe, expect, test } from "vitest";
import { BAD_EXEC_REQUESTS, BAD_WIRE_SOURCES, badRequest } from "../../../rpc/test/bad-exec-requests.js";
import { Runner } from "./runner.js";

/** The runner holds to the wire package's one check: the same table the runtime and the shell server are tested on. */
describe("computerd's runner refuses every bad exec request before anything runs", () => {
  const runner = new Runner({
    db: openNodeDatabase(),
    logMaxBytes: 1024 * 1024,
    defaultCwd: "/",
    checkCwd: () => undefined,
    envLayers: [],
    sweepIntervalMs: 0,
  });
  afterAll(() => runner.shutdown());

  const all = [...BAD_EXEC_REQUESTS.map((bad) => ({ name: bad.name, request: badRequest(bad) })), ...BAD_WIRE_SOURCES];
  test.each(all)("$name is EPROTOCOL", async ({ request }) => {
    await expect(runner.exec(request as Parameters<Runner["exec"]>[0])).rejects.toMatchObject({
      code: "EPROTOCOL",
      syscall: "exec",
    });
    expect(runner.log.totals().execs).toBe(0);
  });
});
