/**
 * The differential scenarios: plain user code against `workspace.fs`, written
 * once and run against both packages (differential.worker.test.ts). Each
 * `step` is one call whose value or error is compared.
 */
import type { Trace } from "./trace.js";

/** The part of a workspace (in the object, or a `getWorkspace` client) these scenarios use. */
export interface WorkspaceLike {
  fs: {
    readFile(path: string, encoding: "utf8"): Promise<string>;
    readFile(path: string): Promise<ReadableStream<Uint8Array>>;
    writeFile(path: string, content: string | Uint8Array, options?: { mode?: number }): Promise<void>;
    mkdir(path: string, options?: { recursive?: boolean }): Promise<void>;
    readdir(path: string, options?: { recursive?: boolean }): Promise<unknown[]>;
    stat(path: string): Promise<unknown>;
    lstat(path: string): Promise<unknown>;
    rm(path: string, options?: { recursive?: boolean; force?: boolean }): Promise<void>;
    symlink(target: string, path: string): Promise<void>;
    readlink(path: string): Promise<string>;
    chmod(path: string, mode: number): Promise<void>;
    find(directory: string, pattern?: string): Promise<unknown[]>;
    grep(pattern: string, path: string): Promise<unknown[]>;
    ls(prefix: string): Promise<string[]>;
  };
}

type Scenario = (ws: WorkspaceLike, step: Trace["step"]) => Promise<void>;

export const scenarios: Record<string, Scenario> = {
  "write then read text, stat and list": async ({ fs }, step) => {
    await step("writeFile /a.txt", () => fs.writeFile("/a.txt", "hello"));
    await step("readFile utf8", () => fs.readFile("/a.txt", "utf8"));
    await step("readFile bytes", () => fs.readFile("/a.txt"));
    await step("stat", () => fs.stat("/a.txt"));
    await step("readdir /", () => fs.readdir("/"));
    await step("overwrite", () => fs.writeFile("/a.txt", new Uint8Array([0, 255, 10])));
    await step("readFile bytes again", () => fs.readFile("/a.txt"));
  },

  "missing paths": async ({ fs }, step) => {
    await step("readFile", () => fs.readFile("/nope", "utf8"));
    await step("stat", () => fs.stat("/nope"));
    await step("lstat", () => fs.lstat("/nope"));
    await step("readdir", () => fs.readdir("/nope"));
    await step("rm", () => fs.rm("/nope"));
    await step("rm force", () => fs.rm("/nope", { force: true }));
    await step("readlink", () => fs.readlink("/nope"));
    await step("chmod", () => fs.chmod("/nope", 0o600));
  },

  "mkdir and its errors": async ({ fs }, step) => {
    await step("mkdir /d", () => fs.mkdir("/d"));
    await step("mkdir /d again", () => fs.mkdir("/d"));
    await step("mkdir /d recursive again", () => fs.mkdir("/d", { recursive: true }));
    await step("mkdir /x/y without recursive", () => fs.mkdir("/x/y"));
    await step("mkdir /x/y recursive", () => fs.mkdir("/x/y", { recursive: true }));
    await step("readdir /x", () => fs.readdir("/x"));
    await step("stat /x/y", () => fs.stat("/x/y"));
    await step("writeFile /f", () => fs.writeFile("/f", "x"));
    await step("mkdir over a file", () => fs.mkdir("/f"));
    await step("mkdir under a file", () => fs.mkdir("/f/g", { recursive: true }));
  },

  "writeFile and readFile errors": async ({ fs }, step) => {
    await step("writeFile into a missing parent", () => fs.writeFile("/no/such/f", "x"));
    await step("readFile the parent it made", () => fs.readdir("/no"));
    await step("writeFile /file", () => fs.writeFile("/file", "x"));
    await step("writeFile under a file", () => fs.writeFile("/file/child", "x"));
    await step("mkdir /dir", () => fs.mkdir("/dir"));
    await step("readFile a directory", () => fs.readFile("/dir", "utf8"));
    await step("writeFile over a directory", () => fs.writeFile("/dir", "x"));
    await step("writeFile with mode", () => fs.writeFile("/script", "#!/bin/sh\n", { mode: 0o755 }));
    await step("stat the mode", () => fs.stat("/script"));
  },

  "rm files and trees": async ({ fs }, step) => {
    await step("mkdir /t/u", () => fs.mkdir("/t/u", { recursive: true }));
    await step("writeFile /t/u/f", () => fs.writeFile("/t/u/f", "x"));
    await step("rm a non-empty directory", () => fs.rm("/t"));
    await step("rm a non-empty directory recursive", () => fs.rm("/t", { recursive: true }));
    await step("stat after rm", () => fs.stat("/t"));
    await step("mkdir /empty", () => fs.mkdir("/empty"));
    await step("rm an empty directory", () => fs.rm("/empty"));
    await step("writeFile /g", () => fs.writeFile("/g", "x"));
    await step("rm a file", () => fs.rm("/g"));
    await step("readdir / at the end", () => fs.readdir("/"));
  },

  "readdir recursive and order": async ({ fs }, step) => {
    await step("mkdir /r/s", () => fs.mkdir("/r/s", { recursive: true }));
    for (const name of ["b", "a", "C", "s/z"])
      await step(`writeFile /r/${name}`, () => fs.writeFile(`/r/${name}`, name));
    await step("readdir /r", () => fs.readdir("/r"));
    await step("readdir /r recursive", () => fs.readdir("/r", { recursive: true }));
    await step("readdir a file", () => fs.readdir("/r/a"));
  },

  symlinks: async ({ fs }, step) => {
    await step("writeFile /target", () => fs.writeFile("/target", "t"));
    await step("symlink", () => fs.symlink("/target", "/link"));
    await step("symlink over an existing path", () => fs.symlink("/target", "/link"));
    await step("readlink", () => fs.readlink("/link"));
    await step("readlink a file", () => fs.readlink("/target"));
    await step("lstat the link", () => fs.lstat("/link"));
    await step("stat through the link", () => fs.stat("/link"));
    await step("readFile through the link", () => fs.readFile("/link", "utf8"));
    await step("dangling symlink", () => fs.symlink("/missing", "/dangling"));
    await step("readFile a dangling link", () => fs.readFile("/dangling", "utf8"));
    // Both declare find's entry type as "file" | "dir" and both list a link as "symlink" at run time.
    await step("find / lists the links", () => fs.find("/"));
  },

  "path forms": async ({ fs }, step) => {
    await step("writeFile relative", () => fs.writeFile("rel.txt", "r"));
    await step("readFile relative", () => fs.readFile("rel.txt", "utf8"));
    await step("readFile absolute of the relative", () => fs.readFile("/rel.txt", "utf8"));
    await step("writeFile with dot segments", () => fs.writeFile("/p/../q.txt", "q"));
    await step("readFile /q.txt", () => fs.readFile("/q.txt", "utf8"));
    await step("writeFile trailing slash", () => fs.writeFile("/slash/", "s"));
    await step("readFile double slash", () => fs.readFile("//q.txt", "utf8"));
    await step("stat /", () => fs.stat("/"));
    await step("rm /", () => fs.rm("/", { recursive: true }));
  },

  "find, grep and ls": async ({ fs }, step) => {
    await step("mkdir /src/lib", () => fs.mkdir("/src/lib", { recursive: true }));
    await step("writeFile /src/a.ts", () => fs.writeFile("/src/a.ts", "export const a = 1;\nconst b = 2;\n"));
    await step("writeFile /src/lib/b.ts", () => fs.writeFile("/src/lib/b.ts", "const a = 3;\n"));
    await step("writeFile /src/readme.md", () => fs.writeFile("/src/readme.md", "# a\n"));
    await step("find /src", () => fs.find("/src"));
    await step("find /src *.ts", () => fs.find("/src", "*.ts"));
    await step("find a missing directory", () => fs.find("/missing"));
    await step("grep const /src", () => fs.grep("const", "/src"));
    await step("grep a missing path", () => fs.grep("x", "/missing"));
    await step("ls /src", () => fs.ls("/src"));
    await step("ls /src/", () => fs.ls("/src/"));
  },
};
