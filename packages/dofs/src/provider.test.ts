import { describe, expect, it } from "vitest";
import { withDb } from "#harness";
import { WorkspaceFilesystem } from "./filesystem.js";
import { SQLiteWorkspaceProvider } from "./provider.js";

const text = (value: Uint8Array | string): string =>
  typeof value === "string" ? value : new TextDecoder().decode(value);

describe("SQLiteWorkspaceProvider: the node:fs face of the store", () => {
  it("stats, dirents, links and symlinks look like Node's; the fs sees the same tree", () =>
    withDb(async ({ db }) => {
      const p = new SQLiteWorkspaceProvider(db, { now: () => 1_700_000_000_000 });
      p.mkdirSync("/w/src", { recursive: true });
      p.writeFileSync("/w/src/a.txt", "hello");
      p.linkSync("/w/src/a.txt", "/w/b.txt");
      p.symlinkSync("src", "/w/link");
      const s = p.statSync("/w/link/a.txt");
      expect(s.isFile()).toBe(true);
      expect(s.size).toBe(5);
      expect(s.nlink).toBe(2);
      expect(s.mode).toBe(0o100644);
      expect(s.mtime.getTime()).toBe(1_700_000_000_000);
      expect(p.lstatSync("/w/link").isSymbolicLink()).toBe(true);
      expect(p.statSync("/w").mode).toBe(0o040755);
      expect(p.readdirSync("/w")).toEqual(["b.txt", "link", "src"]);
      const dirents = p.readdirSync("/w", { withFileTypes: true }) as { name: string; isDirectory(): boolean }[];
      expect(dirents.map((d) => [d.name, d.isDirectory()])).toEqual([
        ["b.txt", false],
        ["link", false],
        ["src", true],
      ]);
      expect(p.realpathSync("/w/link/a.txt")).toBe("/w/src/a.txt");
      expect(p.readlinkSync("/w/link")).toBe("src");
      expect(text(p.readFileSync("/w/b.txt", "utf8"))).toBe("hello");
      expect(await new WorkspaceFilesystem(db).readFile("/w/src/a.txt", "utf8")).toBe("hello");
      p.chmodSync("/w/b.txt", 0o600);
      expect((await p.stat("/w/src/a.txt")).mode).toBe(0o100600);
      p.renameSync("/w/b.txt", "/w/c.txt");
      expect(await p.exists("/w/b.txt")).toBe(false);
      p.unlinkSync("/w/c.txt");
      expect(p.statSync("/w/src/a.txt").nlink).toBe(1);
    }));

  it("errors carry Node's codes and message shape, and change nothing", () =>
    withDb(async ({ db }) => {
      const p = new SQLiteWorkspaceProvider(db);
      p.mkdirSync("/d");
      p.writeFileSync("/f", "x");
      expect(() => p.statSync("/nope")).toThrow("ENOENT: no such file or directory, stat '/nope'");
      expect(() => p.readFileSync("/d")).toThrow(expect.objectContaining({ code: "EISDIR" }));
      expect(() => p.rmdirSync("/f")).toThrow(expect.objectContaining({ code: "ENOTDIR" }));
      expect(() => p.unlinkSync("/d")).toThrow(expect.objectContaining({ code: "EISDIR" }));
      expect(() => p.mkdirSync("/d")).toThrow(expect.objectContaining({ code: "EEXIST" }));
      expect(() => p.openSync("/nope")).toThrow(expect.objectContaining({ code: "ENOENT" }));
      expect(() => p.openSync("/f", "wx")).toThrow(expect.objectContaining({ code: "EEXIST" }));
      expect(() => p.openSync("/f", "q")).toThrow(expect.objectContaining({ code: "EINVAL" }));
      expect(() => p.closeSync(99)).toThrow(expect.objectContaining({ code: "EBADF" }));
      expect(() => p.watch("/d", { interval: 0 })).toThrow(expect.objectContaining({ code: "EINVAL" }));
      expect(() => p.watchFile("/d")).toThrow(expect.objectContaining({ code: "ENOSYS" }));
      await expect(p.readFile("/nope")).rejects.toMatchObject({ code: "ENOENT" });
      expect(p.readdirSync("/")).toEqual(["d", "f"]);
      expect(text(p.readFileSync("/f", "utf8"))).toBe("x");
    }));

  it("byte reads are Buffers, as their type and the original's say (both harnesses have one: Node, workerd with nodejs_compat)", () =>
    withDb(async ({ db }) => {
      // Read through globalThis: under workers-types the global is declared `any`.
      const NodeBuffer = (globalThis as { Buffer?: { isBuffer(value: unknown): boolean } }).Buffer;
      expect(NodeBuffer).toBeDefined();
      const isBuffer = (value: unknown) => NodeBuffer?.isBuffer(value) === true;
      const p = new SQLiteWorkspaceProvider(db);
      p.writeFileSync("/f", "hello");
      const whole = p.readFileSync("/f");
      expect(isBuffer(whole)).toBe(true);
      expect(isBuffer(await p.readFile("/f"))).toBe(true);
      const range = p.readRangeSync("/f", 1, 3);
      expect(isBuffer(range)).toBe(true);
      expect(text(range)).toBe("ell");
      // With an encoding the reads are strings.
      expect(p.readFileSync("/f", "base64")).toBe("aGVsbG8=");
    }));

  it("descriptors: positions, append mode, read-only and write-only ends", () =>
    withDb(async ({ db }) => {
      const p = new SQLiteWorkspaceProvider(db);
      const w = p.openSync("/log", "w");
      p.writeSync(w, new TextEncoder().encode("abc"));
      p.writeSync(w, new TextEncoder().encode("def"));
      expect(() => p.readSync(w, new Uint8Array(1), 0, 1, 0)).toThrow(expect.objectContaining({ code: "EBADF" }));
      p.closeSync(w);
      const a = p.openSync("/log", "a");
      p.writeSync(a, new TextEncoder().encode("!"), 0, 1, 0); // append mode ignores the position
      p.closeSync(a);
      const r = p.openSync("/log");
      const buffer = new Uint8Array(4);
      expect(p.readSync(r, buffer, 0, 4, null)).toBe(4);
      expect(text(buffer)).toBe("abcd");
      expect(p.readSync(r, buffer, 0, 4, null)).toBe(3);
      expect(text(buffer.subarray(0, 3))).toBe("ef!");
      expect(p.fstatSync(r).size).toBe(7);
      expect(() => p.writeSync(r, new Uint8Array(1))).toThrow(expect.objectContaining({ code: "EBADF" }));
      p.closeSync(r);
      p.copyFileSync("/log", "/copy");
      expect(() => p.copyFileSync("/log", "/copy", 1)).toThrow(expect.objectContaining({ code: "EEXIST" }));
      expect(text(p.readFileSync("/copy", "utf8"))).toBe("abcdef!");
    }));

  describe("watch: polling the store's rev", () => {
    type Seen = [eventType: string, filename: string];
    /** Collects a watcher's events until `settled` polls in a row add nothing. */
    const eventsOf = (watcher: ReturnType<SQLiteWorkspaceProvider["watch"]>): Seen[] => {
      const seen: Seen[] = [];
      watcher.on("change", (eventType: string, filename: string) => seen.push([eventType, filename]));
      return seen;
    };
    const polls = (n: number, interval: number) => new Promise((resolve) => setTimeout(resolve, n * interval));
    /** Waits for `ready()` (a loaded machine may poll late), failing after 5 s. */
    const until = async (ready: () => boolean): Promise<void> => {
      for (let waited = 0; !ready(); waited += 10) {
        if (waited > 5000) throw new Error("the watcher reported nothing in 5 s");
        await polls(1, 10);
      }
    };

    it("reports each changed path once per poll, relative to the watched path; a gone path is a rename", () =>
      withDb(async ({ db }) => {
        const p = new SQLiteWorkspaceProvider(db, { watchIntervalMs: 10 });
        p.mkdirSync("/w/sub", { recursive: true });
        p.writeFileSync("/w/old", "x");
        p.writeFileSync("/outside", "x");
        expect(p.supportsWatch).toBe(true);
        const watcher = p.watch("/w");
        const seen = eventsOf(watcher);
        p.writeFileSync("/w/a", "1");
        p.writeFileSync("/w/a", "2");
        p.unlinkSync("/w/old");
        p.writeFileSync("/w/sub/deep", "x"); // below a child: not without `recursive`
        p.writeFileSync("/outside", "y");
        await until(() => seen.length >= 2);
        await polls(2, 10);
        expect(seen.sort()).toEqual([
          ["change", "a"],
          ["rename", "old"],
        ]);
        seen.length = 0;
        await polls(3, 10);
        expect(seen).toEqual([]); // nothing new, nothing repeated
        const closed = new Promise((resolve) => watcher.once("close", resolve));
        watcher.close();
        await closed;
        p.writeFileSync("/w/a", "3");
        await polls(3, 10);
        expect(seen).toEqual([]);
      }));

    it('recursive reaches every depth; the watched path itself is named ""', () =>
      withDb(async ({ db }) => {
        const p = new SQLiteWorkspaceProvider(db);
        p.mkdirSync("/w/sub", { recursive: true });
        p.writeFileSync("/w/f", "x");
        const watcher = p.watch("/w/f", { interval: 10 });
        const recursive = p.watch("/w", { recursive: true, interval: 10 });
        const onFile = eventsOf(watcher);
        const below = eventsOf(recursive);
        p.writeFileSync("/w/sub/deep", "x");
        p.chmodSync("/w/f", 0o600);
        await until(() => onFile.length >= 1 && below.length >= 2);
        await polls(2, 10);
        watcher.close();
        recursive.close();
        expect(onFile).toEqual([["change", ""]]);
        expect(below.sort()).toEqual([
          ["change", "f"],
          ["change", "sub/deep"],
        ]);
      }));

    it("watchAsync yields events and ends with the signal", () =>
      withDb(async ({ db }) => {
        const p = new SQLiteWorkspaceProvider(db);
        const controller = new AbortController();
        const events = p.watchAsync("/", { interval: 10, signal: controller.signal });
        const seen: { eventType: string; filename: string }[] = [];
        const writes = (async () => {
          await polls(2, 10);
          p.writeFileSync("/a", "x");
          await until(() => seen.length >= 1);
          controller.abort();
        })();
        for await (const event of events) seen.push(event);
        await writes;
        expect(seen).toEqual([{ eventType: "change", filename: "a" }]);
        // An aborted signal closes at once.
        const done = p.watchAsync("/", { signal: controller.signal })[Symbol.asyncIterator]();
        expect(await done.next()).toEqual({ value: undefined, done: true });
      }));
  });
});
