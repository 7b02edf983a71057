import { openNodeDatabase } from "@cloudflare/dofs/node";
import { SyncPeer } from "@cloudflare/dofs/sync";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { BAD_EXEC_REQUESTS, BAD_WIRE_SOURCES, badRequest, GOOD_EXEC_REQUESTS } from "../test/bad-exec-requests.js";
import { FakeRunner } from "../test/fake-runner.js";
import { startTestServer, type TestServer } from "../test/harness.node.js";
import { createWorkspaceClient, type WorkspaceClient } from "./client/index.node.js";
import { execRequestError, execRequestProblem, MAX_EXEC_ID_BYTES } from "./exec-request.js";
import { createWorkspaceServerFor } from "./server/index.js";
import type { ExecRequest } from "./types.js";

describe("execRequestProblem, the one exec check", () => {
  test.each(BAD_EXEC_REQUESTS)("names the field of $name", (bad) => {
    expect(execRequestProblem(badRequest(bad))).toMatchObject({ field: bad.field });
  });

  test.each(BAD_WIRE_SOURCES)("refuses $name", ({ request }) => {
    expect(execRequestProblem(request)?.field).toMatch(/^(request|source)$/);
  });

  test.each(GOOD_EXEC_REQUESTS)("accepts %o", (fields) => {
    expect(execRequestProblem({ source: "true", ...fields })).toBeUndefined();
  });

  test("a refused id is named by its first 32 characters on the wire, and the limit is stated", () => {
    const problem = execRequestProblem({ source: "true", id: "y".repeat(300) });
    expect(problem).toMatchObject({ field: "id", reason: "too-long", bytes: 300 });
    const error = execRequestError(problem as NonNullable<typeof problem>, "exec");
    expect(error).toMatchObject({ code: "EPROTOCOL", syscall: "exec", path: `${"y".repeat(32)}…` });
    expect(error.message).toContain(`${MAX_EXEC_ID_BYTES} UTF-8 bytes`);
  });
});

describe("the shell server refuses every bad request before the runner", () => {
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

  const all = [...BAD_EXEC_REQUESTS.map((bad) => ({ name: bad.name, request: badRequest(bad) })), ...BAD_WIRE_SOURCES];
  test.each(all)("$name is EPROTOCOL and nothing ran", async ({ request }) => {
    const before = runner.execs.length;
    await expect(client.shell.exec(request as ExecRequest)).rejects.toMatchObject({
      code: "EPROTOCOL",
      syscall: "exec",
    });
    expect(runner.execs.length).toBe(before);
  });
});
