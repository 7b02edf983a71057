/**
 * Differential test of the Think methods (`new Workspace({ useThink: true })`):
 * the same tree, with a link to a file, a link to a directory and a dangling
 * link, read through `readDir`, `glob` and `stat` of the published
 * `@cloudflare/computer@0.2.1` (`computer-reference`) and of ours. Compared:
 * each entry's path, name and type. (Sizes, times and MIME types are not:
 * ours fill them in from the store, the original's `readDir` and `glob`
 * report 0 and `application/octet-stream`.)
 */
import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { Workspace as ReferenceWorkspace } from "computer-reference";
import { describe, expect, it } from "vitest";
import { Workspace } from "../../src/workspace/workspace.worker.js";
import { referenceStorage } from "./main.worker.js";
import { mismatches, trace } from "./trace.js";

type Side = "reference" | "ours";
interface Info {
  path: string;
  name: string;
  type: string;
}
interface ThinkLike {
  fs: {
    mkdir(path: string, options?: { recursive?: boolean }): Promise<void>;
    writeFile(path: string, content: string): Promise<void>;
    symlink(target: string, path: string): Promise<void>;
  };
  readDir(dir: string): Promise<Info[]>;
  glob(pattern: string): Promise<Info[]>;
  stat(path: string): Promise<Info | null>;
}

const shape = (info: Info | null) => (info === null ? null : { path: info.path, name: info.name, type: info.type });
const byPath = (infos: Info[]) => infos.map(shape).sort((a, b) => (a?.path ?? "").localeCompare(b?.path ?? ""));

async function run(side: Side) {
  const stub = env.COMPAT_SCRATCH.get(env.COMPAT_SCRATCH.newUniqueId());
  return runInDurableObject(stub, async (_instance, state) => {
    const ws = (side === "reference"
      ? new ReferenceWorkspace({ storage: referenceStorage(state.storage), useThink: true })
      : new Workspace({ storage: state.storage, useThink: true })) as unknown as ThinkLike;
    await ws.fs.mkdir("/workspace/dir", { recursive: true });
    await ws.fs.writeFile("/workspace/file.txt", "text");
    await ws.fs.writeFile("/workspace/dir/inner.txt", "inner");
    await ws.fs.symlink("/workspace/file.txt", "/workspace/to-file");
    await ws.fs.symlink("/workspace/dir", "/workspace/to-dir");
    await ws.fs.symlink("/workspace/missing", "/workspace/dangling");
    return trace(async (step) => {
      await step("readDir: links are files, whatever they point at", async () =>
        byPath(await ws.readDir("/workspace")),
      );
      await step("glob *: the same", async () => byPath(await ws.glob("/workspace/*")));
      await step("stat follows a link to a file", async () => shape(await ws.stat("/workspace/to-file")));
      await step("stat follows a link to a directory", async () => shape(await ws.stat("/workspace/to-dir")));
      await step("stat of a dangling link", async () => shape(await ws.stat("/workspace/dangling")));
    });
  });
}

describe("differential: Think methods over symlinks", () => {
  it("report the same paths and types", async () => {
    const theirs = await run("reference");
    const mine = await run("ours");
    expect(mismatches("think", theirs, mine, {})).toEqual([]);
  });
});
