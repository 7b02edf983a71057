import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { openPeer, type Peer, sh } from "./harness.node.js";

let peer: Peer;
beforeEach(async () => {
  peer = await openPeer();
});
afterEach(() => {
  peer.runner.dispose();
  peer.db.close();
});

const run = (source: string, options?: Parameters<typeof sh>[2]) => sh(peer.runner, source, options);

describe("words and quoting", () => {
  it("keeps single quotes literal and expands variables in double quotes and bare words", async () => {
    const result = await run(`X=world; echo 'a $X' "b $X" \${X}c "\\$X \\"q\\" \\\\ \\n"`);
    expect(result.stdout).toBe('a $X b world worldc $X "q" \\ \\n\n');
    expect(result.code).toBe(0);
  });

  it("joins adjacent quoted parts into one argument and keeps empty quotes as an argument", async () => {
    expect((await run(`printf '[%s]' a'b'"c" '' "$NOPE"`)).stdout).toBe("[abc][][]");
  });

  it("expands $? to the previous status", async () => {
    expect((await run("false; echo $?; true; echo $?")).stdout).toBe("1\n0\n");
  });

  it("skips comments and joins lines ended by a backslash", async () => {
    expect((await run("echo a # not this\necho \\\nb")).stdout).toBe("a\nb\n");
  });

  it("applies a prefix assignment to that command only", async () => {
    const result = await run("X=1 env; echo x$X'x'");
    expect(result.stdout).toContain("X=1\n");
    expect(result.stdout.endsWith("xx\n")).toBe(true);
  });
});

describe("lists and pipelines", () => {
  it("runs && and || by status", async () => {
    const result = await run("true && echo a || echo b; false && echo c || echo d\nfalse || false && echo e");
    expect(result.stdout).toBe("a\nd\n");
    expect(result.code).toBe(1);
  });

  it("pipes stdout into the next command's stdin", async () => {
    expect((await run("echo hi | cat | cat")).stdout).toBe("hi\n");
  });

  it("negates a pipeline with !", async () => {
    expect((await run("! false")).code).toBe(0);
    expect((await run("! true")).code).toBe(1);
  });

  it("keeps a pipeline stage's exit and cd inside the stage", async () => {
    const result = await run("exit 3 | echo after; cd / | true; pwd");
    expect(result.stdout).toBe("after\n/workspace\n");
  });

  it("stops the script at exit", async () => {
    const result = await run("echo a; exit 7; echo b");
    expect(result.stdout).toBe("a\n");
    expect(result.code).toBe(7);
  });

  it("reports syntax errors with status 2", async () => {
    for (const source of ["echo $(date)", "echo `date`", "(echo)", "echo &", "| cat", "echo 'open", "echo >"]) {
      const result = await run(source);
      expect(result.code, source).toBe(2);
      expect(result.stderr, source).toMatch(/^sh: /);
    }
  });
});

describe("redirections", () => {
  it("writes, appends and reads files relative to the cwd", async () => {
    const result = await run("echo one > f; echo two >> f; cat < f; cat /workspace/f");
    expect(result.stdout).toBe("one\ntwo\none\ntwo\n");
    expect(await peer.fs.readFile("/workspace/f", "utf8")).toBe("one\ntwo\n");
  });

  it("copies fds left to right", async () => {
    const result = await run("cat missing > out 2>&1; echo to-err >&2; cat out");
    expect(result.stderr).toBe("to-err\n");
    expect(result.stdout).toMatch(/^cat: ENOENT/);
  });

  it("sends 2> to a file and leaves stdout alone", async () => {
    const result = await run("cat nope 2> err; echo $?");
    expect(result.stdout).toBe("1\n");
    expect(await peer.fs.readFile("/workspace/err", "utf8")).toMatch(/^cat: ENOENT/);
  });

  it("truncates a > target before the command runs and fails without running it when it cannot open", async () => {
    await peer.fs.writeFile("/workspace/f", "old");
    expect((await run("true > f")).code).toBe(0);
    expect(await peer.fs.readFile("/workspace/f", "utf8")).toBe("");
    const result = await run("echo x > /nope/f");
    expect(result.code).toBe(1);
    expect(result.stdout).toBe("");
    expect(result.stderr).toMatch(/^sh: ENOENT/);
  });
});

describe("builtins", () => {
  it("emits one event per command and stream, so printf can split a UTF-8 character", async () => {
    const result = await run("printf '\\xe2\\x82'; printf '\\xac'");
    const stdout = result.events.filter((event) => event.name === "stdout").map((event) => [...(event.value ?? [])]);
    expect(stdout).toEqual([[0xe2, 0x82], [0xac]]);
    expect(result.stdout).toBe("€");
  });

  it("formats printf conversions, escapes and reuses the format", async () => {
    expect((await run("printf '%s=%d%%\\t|%5s|%-3s|%03d\\n' a 7 b c 5")).stdout).toBe("a=7%\t|    b|c  |005\n");
    expect((await run("printf '%s\\n' x y z")).stdout).toBe("x\ny\nz\n");
    expect((await run("printf '\\0101\\102\\x41'")).stdout).toBe("ABA");
    const bad = await run("printf '%d' nope");
    expect(bad.code).toBe(1);
    expect(bad.stdout).toBe("0");
  });

  it("echo -n leaves out the newline", async () => {
    expect((await run("echo -n a b; echo")).stdout).toBe("a b\n");
  });

  it("cat concatenates files and stdin, reporting misses without stopping", async () => {
    await peer.fs.writeFile("/workspace/a", "A");
    const result = await run("cat a - missing a", { stdin: "IN" });
    expect(result.stdout).toBe("AINA");
    expect(result.stderr).toMatch(/^cat: ENOENT: no such file or directory/);
    expect(result.code).toBe(1);
  });

  it("cd, pwd and relative paths", async () => {
    const result = await run("mkdir -p a/b && cd a/b && pwd && echo x > f && cd .. && ls && cd && pwd && echo $PWD");
    expect(result.stdout).toBe("/workspace/a/b\nb\n/workspace\n/workspace\n");
    expect(await peer.fs.readFile("/workspace/a/b/f", "utf8")).toBe("x\n");
    expect((await run("cd nowhere")).code).toBe(1);
  });

  it("ls lists sorted names, hides dotfiles without -a and heads several operands", async () => {
    await run("mkdir d; touch d/b d/a d/.h f");
    expect((await run("ls d")).stdout).toBe("a\nb\n");
    expect((await run("ls -a d")).stdout).toBe(".\n..\n.h\na\nb\n");
    expect((await run("ls f d")).stdout).toBe("f\n\nd:\na\nb\n");
    const missing = await run("ls nope");
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/^ls: ENOENT/);
  });

  it("mkdir, touch, mv, cp and rm change the store", async () => {
    const result = await run(
      "mkdir -p x/y && echo hi > x/y/f && cp x/y/f g && mv g h && cp -r x z && mkdir w && mv h w && rm -r x",
    );
    expect(result.code).toBe(0);
    expect(await peer.fs.readFile("/workspace/w/h", "utf8")).toBe("hi\n");
    expect(await peer.fs.readFile("/workspace/z/y/f", "utf8")).toBe("hi\n");
    expect(await peer.fs.readdir("/workspace").then((entries) => entries.map((e) => e.name).sort())).toEqual([
      "w",
      "z",
    ]);
    expect((await run("rm nope")).code).toBe(1);
    expect((await run("rm -f nope")).code).toBe(0);
    const dir = await run("cp z q");
    expect(dir.code).toBe(1);
    expect(dir.stderr).toContain("-r not specified");
  });

  it("test and [ check -e -f -d and strings", async () => {
    await run("mkdir d; touch f");
    const checks =
      "[ -d d ] && [ -f f ] && [ -e f ] && ! [ -f d ] && ! test -e nope && test a = a && [ -n x ] && [ -z '' ]";
    expect((await run(checks)).code).toBe(0);
    expect((await run("[ -f f")).code).toBe(2);
  });

  it("env prints HOME, the call's env and PWD; the host env never leaks", async () => {
    const result = await run("env", { env: { A: "1" } });
    expect(result.stdout).toBe("HOME=/workspace\nA=1\nPWD=/workspace\n");
    expect((await run("echo $PATH", { env: {} })).stdout).toBe("\n");
  });

  it("unknown commands exit 127", async () => {
    const result = await run("nope arg; echo $?");
    expect(result.stderr).toBe("sh: nope: command not found\n");
    expect(result.stdout).toBe("127\n");
  });

  it("sleep accepts fractions and rejects junk", async () => {
    const started = Date.now();
    expect((await run("sleep 0.05")).code).toBe(0);
    expect(Date.now() - started).toBeGreaterThanOrEqual(40);
    expect((await run("sleep soon")).code).toBe(1);
  });
});
