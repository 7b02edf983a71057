/**
 * One contract for every face of the store (docs/architecture.md, "Faces of
 * the store"): the same operations, the same expected results and error
 * codes, run against each face through a thin adapter. A behaviour fixed in
 * one face cannot silently differ in another: a face either answers as the
 * contract says, or its difference is listed in `differences` with the
 * reason, and the list is what the docs table shows.
 *
 * Runtime-neutral (vitest only), so dofs, computer and computerd each run it
 * against the faces they own.
 */
import { describe, expect, test } from "vitest";
import type { WorkspaceFilesystem } from "../src/filesystem.js";

export type EntryKind = "file" | "directory" | "symlink";

/**
 * The operations, in the smallest common form. A face without one leaves it
 * out and the cases that need it are not defined for that face. Each throws
 * an error whose `code` is the POSIX code (the adapter maps an errno).
 */
export interface StoreFace {
  writeFile(path: string, text: string): Promise<void>;
  readFile(path: string): Promise<string>;
  stat(path: string): Promise<{ kind: EntryKind; size: number } | null>;
  mkdir?(path: string): Promise<void>;
  readdir?(path: string): Promise<string[]>;
  /** Removes a file. */
  unlink?(path: string): Promise<void>;
  /** Removes an empty directory. */
  rmdir?(path: string): Promise<void>;
  symlink?(target: string, path: string): Promise<void>;
  readlink?(path: string): Promise<string>;
  lstat?(path: string): Promise<{ kind: EntryKind; size: number } | null>;
}

export type Op = keyof StoreFace;

/** What an operation came to: its value, or the code it failed with. */
export type Outcome = { value: unknown } | { code: string };

interface FaceCase {
  readonly name: string;
  readonly needs: readonly Op[];
  readonly run: (face: Required<StoreFace>) => Promise<unknown>;
  readonly expected: Outcome;
}

async function outcome(body: () => Promise<unknown>): Promise<Outcome> {
  try {
    return { value: await body() };
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    if (typeof code === "string") return { code };
    throw error;
  }
}

const ok = (value: unknown): Outcome => ({ value });
const fails = (code: string): Outcome => ({ code });

/** Every case starts from an empty root `/` of its own face. */
export const FACE_CASES: readonly FaceCase[] = [
  {
    name: "a written file reads back and stats as a file of its size",
    needs: ["writeFile", "readFile", "stat"],
    run: async (fs) => {
      await fs.writeFile("/a.txt", "hello");
      return [await fs.readFile("/a.txt"), await fs.stat("/a.txt")];
    },
    expected: ok(["hello", { kind: "file", size: 5 }]),
  },
  {
    name: "a second write replaces the first",
    needs: ["writeFile", "readFile"],
    run: async (fs) => {
      await fs.writeFile("/a.txt", "first, longer");
      await fs.writeFile("/a.txt", "second");
      return fs.readFile("/a.txt");
    },
    expected: ok("second"),
  },
  { name: "reading a missing file", needs: ["readFile"], run: (fs) => fs.readFile("/nope"), expected: fails("ENOENT") },
  {
    name: "stat of a missing path",
    needs: ["stat"],
    run: (fs) => fs.stat("/nope"),
    expected: fails("ENOENT"),
  },
  {
    // The original's answer (docs/dofs.md: a path under a regular file is ENOENT); Linux says ENOTDIR.
    name: "stat through a file",
    needs: ["writeFile", "stat"],
    run: async (fs) => {
      await fs.writeFile("/f", "x");
      return fs.stat("/f/under");
    },
    expected: fails("ENOENT"),
  },
  {
    name: "writing into a missing directory",
    needs: ["writeFile"],
    run: (fs) => fs.writeFile("/missing/a.txt", "x"),
    expected: fails("ENOENT"),
  },
  {
    name: "reading a directory",
    needs: ["mkdir", "readFile"],
    run: async (fs) => {
      await fs.mkdir("/d");
      return fs.readFile("/d");
    },
    expected: fails("EISDIR"),
  },
  {
    name: "writing over a directory",
    needs: ["mkdir", "writeFile"],
    run: async (fs) => {
      await fs.mkdir("/d");
      return fs.writeFile("/d", "x");
    },
    expected: fails("EISDIR"),
  },
  {
    name: "mkdir stats as a directory",
    needs: ["mkdir", "stat"],
    run: async (fs) => {
      await fs.mkdir("/d");
      return (await fs.stat("/d"))?.kind;
    },
    expected: ok("directory"),
  },
  {
    name: "mkdir of an existing directory",
    needs: ["mkdir"],
    run: async (fs) => {
      await fs.mkdir("/d");
      return fs.mkdir("/d");
    },
    expected: fails("EEXIST"),
  },
  {
    name: "mkdir under a missing directory",
    needs: ["mkdir"],
    run: (fs) => fs.mkdir("/missing/d"),
    expected: fails("ENOENT"),
  },
  {
    name: "mkdir under a file",
    needs: ["writeFile", "mkdir"],
    run: async (fs) => {
      await fs.writeFile("/f", "x");
      return fs.mkdir("/f/d");
    },
    expected: fails("ENOTDIR"),
  },
  {
    name: "readdir lists the names",
    needs: ["mkdir", "writeFile", "readdir"],
    run: async (fs) => {
      await fs.mkdir("/d");
      for (const name of ["c", "a", "b"]) await fs.writeFile(`/d/${name}`, name);
      await fs.mkdir("/d/sub");
      return (await fs.readdir("/d")).sort();
    },
    expected: ok(["a", "b", "c", "sub"]),
  },
  {
    name: "readdir of a file",
    needs: ["writeFile", "readdir"],
    run: async (fs) => {
      await fs.writeFile("/f", "x");
      return fs.readdir("/f");
    },
    expected: fails("ENOTDIR"),
  },
  {
    name: "readdir of a missing path",
    needs: ["readdir"],
    run: (fs) => fs.readdir("/nope"),
    expected: fails("ENOENT"),
  },
  {
    name: "unlink removes a file",
    needs: ["writeFile", "unlink", "stat"],
    run: async (fs) => {
      await fs.writeFile("/f", "x");
      await fs.unlink("/f");
      return fs.stat("/f");
    },
    expected: fails("ENOENT"),
  },
  { name: "unlink of a missing path", needs: ["unlink"], run: (fs) => fs.unlink("/nope"), expected: fails("ENOENT") },
  {
    name: "rmdir removes an empty directory",
    needs: ["mkdir", "rmdir", "stat"],
    run: async (fs) => {
      await fs.mkdir("/d");
      await fs.rmdir("/d");
      return fs.stat("/d");
    },
    expected: fails("ENOENT"),
  },
  {
    name: "rmdir of a directory that is not empty",
    needs: ["mkdir", "writeFile", "rmdir"],
    run: async (fs) => {
      await fs.mkdir("/d");
      await fs.writeFile("/d/f", "x");
      return fs.rmdir("/d");
    },
    expected: fails("ENOTEMPTY"),
  },
  {
    name: "a symlink reads back its target; lstat sees the link, stat the file",
    needs: ["writeFile", "symlink", "readlink", "lstat", "stat"],
    run: async (fs) => {
      await fs.writeFile("/a.txt", "hello");
      await fs.symlink("/a.txt", "/link");
      return [await fs.readlink("/link"), (await fs.lstat("/link"))?.kind, await fs.stat("/link")];
    },
    expected: ok(["/a.txt", "symlink", { kind: "file", size: 5 }]),
  },
  {
    name: "readlink of a file",
    needs: ["writeFile", "readlink"],
    run: async (fs) => {
      await fs.writeFile("/f", "x");
      return fs.readlink("/f");
    },
    expected: fails("EINVAL"),
  },
  {
    name: "symlink over an existing path",
    needs: ["writeFile", "symlink"],
    run: async (fs) => {
      await fs.writeFile("/f", "x");
      return fs.symlink("/elsewhere", "/f");
    },
    expected: fails("EEXIST"),
  },
];

/** A face's documented difference from the contract: what it answers instead, and why. */
export interface FaceDifference {
  readonly outcome: Outcome;
  readonly why: string;
}

/**
 * Runs every case the face has the operations for. `ops` lists them (test
 * collection is synchronous, so they are given up front, and checked against
 * the adapter); `open` makes a fresh face over an empty store; `differences`
 * (by case name) are the face's recorded departures from the contract,
 * asserted exactly as recorded, so one that goes away or changes fails here.
 */
export function describeFace(
  name: string,
  ops: readonly Op[],
  open: () => Promise<StoreFace>,
  differences: Readonly<Record<string, FaceDifference>> = {},
): void {
  describe(`the store's face: ${name}`, () => {
    test("its adapter has exactly the operations it lists, and differences name cases of the contract", async () => {
      const face = await open();
      const offered = (Object.keys(face) as Op[]).filter((op) => typeof face[op] === "function").sort();
      expect(offered).toEqual([...ops].sort());
      expect(Object.keys(differences).filter((key) => !FACE_CASES.some((entry) => entry.name === key))).toEqual([]);
    });
    const cases = FACE_CASES.filter((entry) => entry.needs.every((op) => ops.includes(op)));
    test.each(cases)("$name", async (entry) => {
      const face = (await open()) as Required<StoreFace>;
      const expected = differences[entry.name]?.outcome ?? entry.expected;
      expect(await outcome(() => entry.run(face))).toEqual(expected);
    });
  });
}

/** Every operation of the contract. */
export const ALL_OPS = [
  "writeFile",
  "readFile",
  "stat",
  "lstat",
  "mkdir",
  "readdir",
  "unlink",
  "rmdir",
  "symlink",
  "readlink",
] as const satisfies readonly Op[];

/** A kind from a stat with flags (dofs' `Stat`, just-bash's) or with Node's predicates. */
export function kindOf(stat: { isFile: boolean | (() => boolean); isDirectory: boolean | (() => boolean) }): EntryKind {
  const file = typeof stat.isFile === "function" ? stat.isFile() : stat.isFile;
  const directory = typeof stat.isDirectory === "function" ? stat.isDirectory() : stat.isDirectory;
  return file ? "file" : directory ? "directory" : "symlink";
}

/** The verbs of `WorkspaceFilesystem` a face over them uses (fs-client's in-isolate filesystem has the same). */
export type FilesystemVerbs = Pick<
  WorkspaceFilesystem,
  "writeFile" | "readFile" | "stat" | "lstat" | "mkdir" | "readdir" | "rm" | "symlink" | "readlink"
>;

/** Over `WorkspaceFilesystem`'s verbs: `rm` serves as both unlink and rmdir. */
export function filesystemFace(fs: FilesystemVerbs): StoreFace {
  return {
    writeFile: (path, text) => fs.writeFile(path, text),
    readFile: (path) => fs.readFile(path, "utf8"),
    stat: async (path) => {
      const stat = await fs.stat(path);
      return { kind: kindOf(stat), size: stat.size };
    },
    lstat: async (path) => {
      const stat = await fs.lstat(path);
      return { kind: kindOf(stat), size: stat.size };
    },
    mkdir: (path) => fs.mkdir(path),
    readdir: async (path) => (await fs.readdir(path)).map((entry) => entry.name),
    unlink: (path) => fs.rm(path),
    rmdir: (path) => fs.rm(path),
    symlink: (target, path) => fs.symlink(target, path),
    readlink: (path) => fs.readlink(path),
  };
}
