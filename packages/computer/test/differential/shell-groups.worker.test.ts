/**
 * The python, sqlite and js-exec shell groups (`@cloudflare/computer/shell/*`)
 * in workerd, differentially: the same commands on each package's
 * worker-shell backend given `commands: [python, sqlite, jsExec]`, each run
 * in a real Dynamic Worker through a real Worker Loader.
 *
 * None of them can run there (just-bash runs python3, sqlite3 and js-exec in
 * a node:worker_threads worker, which workerd lacks): the original's fail
 * with just-bash's own messages ("not available in browser environments",
 * "worker not found. Run 'pnpm build'…", or "command not found"); ours with
 * the exit status the original's give and a message that says why. So the
 * exit statuses and stdout are compared, and stderr must name the command on
 * both sides; ours must also say that workerd lacks node:worker_threads.
 */
import { env } from "cloudflare:workers";
import { getWorkspace as referenceGetWorkspace } from "computer-reference";
import { describe, expect, it } from "vitest";
import { getWorkspace } from "../../src/workspace/client.js";

interface Ran {
  exitCode: number;
  stdout: string;
  stderr: string;
}

async function run(side: "reference" | "ours", command: string): Promise<Ran> {
  const client =
    side === "ours"
      ? await getWorkspace(env.OURS_SHELL.get(env.OURS_SHELL.newUniqueId()))
      : await referenceGetWorkspace(
          env.REFERENCE_SHELL.get(env.REFERENCE_SHELL.newUniqueId()) as unknown as Parameters<
            typeof referenceGetWorkspace
          >[0],
        );
  try {
    const handle = await client.runtime.exec(command, { encoding: "utf8" });
    const { exitCode, stdout, stderr } = (await handle.result()) as Ran;
    return { exitCode, stdout: String(stdout), stderr: String(stderr) };
  } finally {
    client[Symbol.dispose]();
  }
}

const COMMANDS: Record<string, string> = {
  python3: "python3 -c 'print(1 + 1)'",
  python: "python -c 'print(1 + 1)'",
  sqlite3: "sqlite3 :memory: 'select 1 + 1'",
  "js-exec": "js-exec -c 'console.log(1 + 1)'",
  node: "node -e 'console.log(1 + 1)'",
};

describe("differential: the python, sqlite and js-exec groups in a Dynamic Worker", () => {
  it("the rest of the shell works next to them", async () => {
    expect(await run("reference", "echo ok")).toEqual({ exitCode: 0, stdout: "ok\n", stderr: "" });
    expect(await run("ours", "echo ok")).toEqual({ exitCode: 0, stdout: "ok\n", stderr: "" });
  });

  for (const [name, command] of Object.entries(COMMANDS)) {
    it(`${name} fails on both, with the same status; ours says why`, async () => {
      const theirs = await run("reference", command);
      const mine = await run("ours", command);
      expect(theirs.exitCode).not.toBe(0);
      expect({ exitCode: mine.exitCode, stdout: mine.stdout }).toEqual({
        exitCode: theirs.exitCode,
        stdout: theirs.stdout,
      });
      expect(theirs.stderr).toContain(name);
      expect(mine.stderr).toBe(
        `${name}: not available in the worker-shell backend: just-bash runs it in a node:worker_threads worker, which workerd does not have (the ${
          { python3: "python", python: "python", sqlite3: "sqlite", "js-exec": "js-exec", node: "js-exec" }[name]
        } group is loaded, its command cannot run); use a container-shell backend\n`,
      );
    });
  }
});
