import { mkdirSync, mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ExecEvent, RunnerHandle } from "@cloudflare/computer-rpc";
import { openNodeDatabase } from "@cloudflare/dofs/node";
import { afterAll, afterEach, beforeAll, describe, expect, test } from "vitest";
import { absenceWindow } from "../../test/wait.js";
import { allowedEnv } from "./env.js";
import { Runner, type RunnerOptions } from "./runner.js";

let root: string;
const runners: Runner[] = [];

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), "computerd-runner-"));
  mkdirSync(join(root, "it's a dir"));
});
afterAll(() => rmSync(root, { recursive: true, force: true }));
afterEach(() => {
  for (const runner of runners.splice(0)) runner.shutdown();
});

function makeRunner(options: Partial<RunnerOptions> = {}): Runner {
  const runner = new Runner({
    db: openNodeDatabase(),
    logMaxBytes: 1024 * 1024,
    defaultCwd: root,
    checkCwd: (cwd) => {
      try {
        return statSync(cwd).isDirectory() ? undefined : `ENOTDIR: not a directory, ${cwd}`;
      } catch {
        return `ENOENT: no such file or directory, chdir '${cwd}'`;
      }
    },
    envLayers: [allowedEnv(process.env), { FROM_VAR: "var" }, { BASE: "base" }],
    sweepIntervalMs: 0,
    ...options,
  });
  runners.push(runner);
  return runner;
}

async function drain(handle: RunnerHandle | ReadableStream<ExecEvent>): Promise<ExecEvent[]> {
  const stream = handle instanceof ReadableStream ? handle : handle.events;
  const out: ExecEvent[] = [];
  for await (const event of stream as ReadableStream<ExecEvent>) out.push(event);
  return out;
}

function text(events: ExecEvent[], name: "stdout" | "stderr"): string {
  const bytes = events.flatMap((event) => (event.name === name ? [Buffer.from(event.value)] : []));
  return Buffer.concat(bytes).toString("utf8");
}

/** Events with bytes as plain arrays: the log hands back Buffers, the live stream Uint8Arrays. */
function plain(events: ExecEvent[]): unknown[] {
  return events.map((event) => (event.name === "exit" ? event : { ...event, value: [...event.value] }));
}

function exitCode(events: ExecEvent[]): number | undefined {
  const last = events.at(-1);
  return last?.name === "exit" ? last.code : undefined;
}

describe("spawning", () => {
  test("echo: stdout, exit 0, seq from 1 without gaps", async () => {
    const events = await drain(await makeRunner().exec({ source: "echo hi; echo err >&2", id: "e1" }));
    expect(text(events, "stdout")).toBe("hi\n");
    expect(text(events, "stderr")).toBe("err\n");
    expect(exitCode(events)).toBe(0);
    expect(events.map((event) => event.seq)).toEqual(events.map((_, index) => index + 1));
  });

  test("exit codes, and signals mapped to 143/137/130/129", async () => {
    const runner = makeRunner();
    expect(exitCode(await drain(await runner.exec({ source: "exit 3" })))).toBe(3);
    for (const [signal, code] of [
      ["TERM", 143],
      ["KILL", 137],
      ["INT", 130],
      ["HUP", 129],
    ] as const) {
      expect(exitCode(await drain(await runner.exec({ source: `kill -${signal} $$` })))).toBe(code);
    }
  });

  test("a minted id is a UUID", async () => {
    const handle = await makeRunner().exec({ source: "true" });
    expect(handle.id).toMatch(/^[0-9a-f-]{36}$/);
    await drain(handle);
  });

  test("stdin is piped then closed; without it stdin is empty", async () => {
    const runner = makeRunner();
    expect(text(await drain(await runner.exec({ source: "cat", stdin: "abc" })), "stdout")).toBe("abc");
    const bytes = new Uint8Array([0xe2, 0x82, 0xac]);
    expect(text(await drain(await runner.exec({ source: "cat", stdin: bytes })), "stdout")).toBe("€");
    expect(text(await drain(await runner.exec({ source: "cat; echo done" })), "stdout")).toBe("done\n");
  });

  test("a cwd with spaces and quotes works; a missing cwd is `spawn failed:` and -1, disposed at once", async () => {
    const runner = makeRunner();
    const cwd = join(root, "it's a dir");
    expect(text(await drain(await runner.exec({ source: "pwd", cwd })), "stdout")).toBe(`${cwd}\n`);
    const failed = await drain(await runner.exec({ source: "echo never", cwd: join(root, "missing"), id: "nocwd" }));
    expect(text(failed, "stderr")).toMatch(/^spawn failed: ENOENT/);
    expect(text(failed, "stdout")).toBe("");
    expect(exitCode(failed)).toBe(-1);
    await expect(runner.getExec({ id: "nocwd" })).rejects.toMatchObject({ code: "ENOENT" });
  });

  test("UTF-8 split across writes arrives byte-exact, stdout and stderr apart", async () => {
    const source =
      "printf '\\342\\202'; sleep 0.05; printf '\\254' ; printf '\\303' >&2; sleep 0.05; printf '\\251' >&2";
    const events = await drain(await makeRunner().exec({ source }));
    expect(text(events, "stdout")).toBe("€");
    expect(text(events, "stderr")).toBe("é");
  });
});

describe("environment", () => {
  test("allowlist, then COMPUTER_VAR_*, then base, then per-call env; per-call env does not leak", async () => {
    const runner = makeRunner({
      envLayers: [allowedEnv({ PATH: "/usr/bin:/bin", SECRETISH: "x", LC_ALL: "C" }), { PATH: "/bin" }, {}],
    });
    // biome-ignore lint/suspicious/noTemplateCurlyInString: shell parameter expansion, not a template
    const source = 'echo "$PATH|${SECRETISH-unset}|$LC_ALL|${X-unset}"';
    expect(text(await drain(await runner.exec({ source, env: { X: "1" } })), "stdout")).toBe("/bin|unset|C|1\n");
    expect(text(await drain(await runner.exec({ source })), "stdout")).toBe("/bin|unset|C|unset\n");
  });

  test("the daemon's own variables do not reach the child", async () => {
    process.env.COMPUTERD_TEST_ONLY = "leak";
    try {
      const runner = makeRunner({ envLayers: [allowedEnv(process.env)] });
      // biome-ignore lint/suspicious/noTemplateCurlyInString: shell parameter expansion, not a template
      const events = await drain(await runner.exec({ source: 'echo "${COMPUTERD_TEST_ONLY-unset}"' }));
      expect(text(events, "stdout")).toBe("unset\n");
    } finally {
      delete process.env.COMPUTERD_TEST_ONLY;
    }
  });
});

describe("timeouts", () => {
  test("timeoutMs:100 on sleep 5 gives 143", async () => {
    expect(exitCode(await drain(await makeRunner().exec({ source: "sleep 5", timeoutMs: 100 })))).toBe(143);
  });

  test("SIGKILL follows after the grace when SIGTERM is ignored", async () => {
    const runner = makeRunner({ killGraceMs: 100 });
    const events = await drain(await runner.exec({ source: "trap '' TERM; sleep 5", timeoutMs: 100 }));
    expect(exitCode(events)).toBe(137);
  });

  test("timeoutMs:0 never times out, even with a tiny default", async () => {
    const runner = makeRunner({ defaultTimeoutMs: 50 });
    expect(exitCode(await drain(await runner.exec({ source: "sleep 0.3; echo ok", timeoutMs: 0 })))).toBe(0);
    expect(exitCode(await drain(await runner.exec({ source: "sleep 5" })))).toBe(143);
  });
});

describe("ids, subscribers and the log", () => {
  test("a live id is EEXEC_BUSY; a finished id starts a new run", async () => {
    const runner = makeRunner();
    const first = await runner.exec({ source: "sleep 0.3; echo one", id: "same" });
    await expect(runner.exec({ source: "echo two", id: "same" })).rejects.toMatchObject({ code: "EEXEC_BUSY" });
    expect(text(await drain(first), "stdout")).toBe("one\n");
    expect(text(await drain(await runner.exec({ source: "echo two", id: "same" })), "stdout")).toBe("two\n");
    expect(text(await drain(await runner.getExec({ id: "same" })), "stdout")).toBe("two\n");
  });

  test("ids over 256 bytes and empty ids are refused before anything runs", async () => {
    const runner = makeRunner();
    await expect(runner.exec({ source: "touch never", id: "é".repeat(129) })).rejects.toMatchObject({
      code: "EPROTOCOL",
      message: expect.stringContaining("256 UTF-8 bytes"),
    });
    await expect(runner.exec({ source: "true", id: "" })).rejects.toMatchObject({ code: "EPROTOCOL" });
    expect(runner.log.totals().execs).toBe(0);
    const ok = await runner.exec({ source: "true", id: "x".repeat(256) });
    expect(exitCode(await drain(ok))).toBe(0);
  });

  test("replay after n gives only seq > n; 'tail' of a finished exec is empty", async () => {
    const runner = makeRunner();
    const all = await drain(await runner.exec({ source: "echo a; sleep 0.02; echo b; sleep 0.02; echo c", id: "r" }));
    const replay = await drain(await runner.getExec({ id: "r", after: 2 }));
    expect(plain(replay)).toEqual(plain(all.filter((event) => event.seq > 2)));
    expect(await drain(await runner.getExec({ id: "r", after: "tail" }))).toEqual([]);
    expect(plain(await drain(await runner.getExec({ id: "r" })))).toEqual(plain(all));
  });

  test("a second live subscriber is EEXEC_BUSY; canceling detaches, and getExec replays then follows", async () => {
    const runner = makeRunner();
    const handle = await runner.exec({ source: "echo first; sleep 0.3; echo second", id: "live" });
    await expect(runner.getExec({ id: "live" })).rejects.toMatchObject({ code: "EEXEC_BUSY" });
    const reader = handle.events.getReader();
    expect((await reader.read()).value).toMatchObject({ name: "stdout", seq: 1 });
    await reader.cancel();
    const rest = await drain(await runner.getExec({ id: "live", after: 1 }));
    expect(text(rest, "stdout")).toBe("second\n");
    expect(exitCode(rest)).toBe(0);
  });

  test("'tail' on a live exec gives only what comes next", async () => {
    const runner = makeRunner();
    const handle = await runner.exec({ source: "echo early; sleep 0.3; echo late", id: "t" });
    const reader = handle.events.getReader();
    await reader.read();
    await reader.cancel();
    expect(text(await drain(await runner.getExec({ id: "t", after: "tail" })), "stdout")).toBe("late\n");
  });

  test("past EXEC_LOG_MAX_BYTES the live stream goes on but replay is ELOG_TRUNCATED", async () => {
    const runner = makeRunner({ logMaxBytes: 1000 });
    const events = await drain(await runner.exec({ source: "head -c 5000 /dev/zero", id: "big" }));
    expect(text(events, "stdout").length).toBe(5000);
    expect(exitCode(events)).toBe(0);
    await expect(runner.getExec({ id: "big", after: 0 })).rejects.toMatchObject({ code: "ELOG_TRUNCATED" });
    expect(runner.log.meta("big")).toMatchObject({ evicted: true, exitCode: 0 });
  });

  test("kill: unknown is ENOENT, finished is a no-op, live gets the signal", async () => {
    const runner = makeRunner();
    await expect(runner.killExec({ id: "nope" })).rejects.toMatchObject({ code: "ENOENT" });
    await drain(await runner.exec({ source: "true", id: "done" }));
    await runner.killExec({ id: "done" });
    const live = await runner.exec({ source: "sleep 5", id: "k" });
    await runner.killExec({ id: "k", signal: "SIGINT" });
    expect(exitCode(await drain(live))).toBe(130);
    await expect(runner.killExec({ id: "done", signal: "SIGBOGUS" })).rejects.toMatchObject({ code: "EPROTOCOL" });
  });

  test("dispose: SIGKILLs a live child and deletes its rows; then getExec is ENOENT; unknown ids are silent", async () => {
    const runner = makeRunner();
    const live = await runner.exec({ source: "sleep 5", id: "d" });
    await runner.disposeExec({ id: "d" });
    await expect(drain(live)).rejects.toMatchObject({ code: "ENOENT" });
    await expect(runner.getExec({ id: "d" })).rejects.toMatchObject({ code: "ENOENT" });
    await drain(await runner.exec({ source: "true", id: "f" }));
    await runner.disposeExec({ id: "f" });
    await expect(runner.getExec({ id: "f" })).rejects.toMatchObject({ code: "ENOENT" });
    await runner.disposeExec({ id: "never-existed" });
  });

  test("finished execs are kept 5 minutes after exit, then swept", async () => {
    let now = 1_000_000;
    const runner = makeRunner({ now: () => now });
    await drain(await runner.exec({ source: "echo kept", id: "old" }));
    now += 5 * 60_000 - 1;
    runner.sweep();
    expect(text(await drain(await runner.getExec({ id: "old" })), "stdout")).toBe("kept\n");
    now += 2;
    runner.sweep();
    await expect(runner.getExec({ id: "old" })).rejects.toMatchObject({ code: "ENOENT" });
  });

  test("backpressure: a subscriber that does not read pauses the child's pipes", async () => {
    const runner = makeRunner();
    // `yes` would fill any buffer; with the pipe paused it blocks in write() instead.
    const handle = await runner.exec({ source: "yes | head -c 50000000", id: "bp" });
    const reader = handle.events.getReader();
    await reader.read();
    // A negative check: in this window an unpaused pipe would log megabytes; a paused one logs one buffer.
    await absenceWindow(200);
    const logged = runner.log.meta("bp")?.bytes ?? 0;
    expect(logged).toBeLessThan(5_000_000);
    await reader.cancel();
    await runner.disposeExec({ id: "bp" });
  });

  test("after shutdown, exec is ESHUTDOWN", async () => {
    const runner = makeRunner();
    runner.shutdown();
    await expect(runner.exec({ source: "true" })).rejects.toMatchObject({ code: "ESHUTDOWN" });
  });
});
