/**
 * Differential tests of the AI SDK tools (issue 19 row 12): every scenario
 * runs the same tool calls through the published `@cloudflare/computer@0.2.1`
 * (`computer-reference/tools`) and through ours, each over its own package's
 * Workspace in a fresh Durable Object, each call through the real AI SDK
 * (`generateText` with a scripted model, so inputs are validated against the
 * tool's schema and outputs go through `toModelOutput`). What each call
 * returned, what the model was shown, and the files afterwards must match.
 *
 * Normalized before comparing (see `normalize`): error texts (ours are our
 * own words; the tests of each tool check ours), times, and the AI SDK
 * part type of an attachment (the original emits the AI SDK 7 `file` part,
 * ours the AI SDK 6 `image-data` / `file-data` parts; see docs/tools.md).
 * A scenario with `differs` is a deliberate difference: it must still differ,
 * and `ours` states what we answer instead.
 */
import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import type { ToolSet } from "ai";
import { Workspace as ReferenceWorkspace } from "computer-reference";
import * as reference from "computer-reference/tools";
import { describe, expect, it } from "vitest";
import * as ours from "../../src/tools/index.js";
import { Workspace } from "../../src/workspace/workspace.worker.js";
import { modelOutputOf, runScript } from "../tools/scripted-model.js";
import { referenceStorage } from "./main.worker.js";
import { normalize as normalizeValue } from "./trace.js";

type Side = "reference" | "ours";
type Files = Record<string, string | Uint8Array | { text: string; mode: number }>;

interface Call {
  tool: string;
  input: unknown;
}

interface Scenario {
  files?: Files;
  dirs?: string[];
  /** createAITools options besides `workspace`, in the original's shapes. */
  options?: Record<string, unknown>;
  calls: Call[];
  /** Paths whose content and mode are recorded after the calls. */
  after?: string[];
  /** Why ours deliberately answers differently. */
  differs?: string;
  /** With `differs`: what ours answers. */
  ours?: (outcomes: unknown[]) => void;
}

/** One call as the SDK ran it: the tool's output and what the model saw, or the SDK's refusal of the input. */
async function sdkCall(tools: ToolSet, call: Call): Promise<unknown> {
  const { result, model } = await runScript(tools, [[call]]);
  const step = result.steps[0];
  const done = step?.toolResults[0];
  if (!done) {
    const refused = step?.content.find((part) => part.type === "tool-error");
    return { refused: refused === undefined ? "no result" : "invalid input" };
  }
  return { output: done.output, model: modelOutputOf(model, 1, "call-0-0") };
}

const ATTACHMENT_TYPES = new Set(["file", "image-data", "file-data"]);

/** The comparable form of an outcome (see the header). */
function normalize(value: unknown): unknown {
  const plain = normalizeValue(value);
  const walk = (node: unknown, key?: string): unknown => {
    if (Array.isArray(node)) return node.map((item) => walk(item));
    if (typeof node !== "object" || node === null) {
      return key === "error" && typeof node === "string" ? "<error>" : node;
    }
    const record = node as Record<string, unknown>;
    if (record.type === "error-text") return { type: "error-text", value: "<error>" };
    if (typeof record.type === "string" && ATTACHMENT_TYPES.has(record.type) && "mediaType" in record) {
      const data = typeof record.data === "string" ? record.data : (record.data as { data?: unknown })?.data;
      return { attachment: { mediaType: record.mediaType, data } };
    }
    if (record.type === "text" && typeof record.text === "string") return { type: "text", text: "<caption>" };
    return Object.fromEntries(Object.entries(record).map(([k, v]) => [k, walk(v, k)]));
  };
  return walk(plain);
}

async function writeFiles(fs: Workspace["fs"], files: Files, dirs: readonly string[]): Promise<void> {
  await fs.mkdir("/workspace", { recursive: true });
  for (const dir of dirs) await fs.mkdir(dir, { recursive: true });
  for (const [path, content] of Object.entries(files)) {
    await fs.mkdir(path.slice(0, path.lastIndexOf("/")), { recursive: true });
    if (typeof content === "object" && !(content instanceof Uint8Array)) {
      await fs.writeFile(path, content.text, { mode: content.mode });
    } else {
      await fs.writeFile(path, content);
    }
  }
}

async function fileState(fs: Workspace["fs"], path: string): Promise<unknown> {
  try {
    const stat = await fs.stat(path);
    if (stat.isDirectory) return { dir: true };
    // Bytes, not readFile(path, "utf8"): the original's utf8 read drops a byte-order mark.
    const bytes = new Uint8Array(await new Response(await fs.readFile(path)).arrayBuffer());
    return { text: new TextDecoder("utf-8", { fatal: false, ignoreBOM: true }).decode(bytes), mode: stat.mode & 0o777 };
  } catch (error) {
    return { missing: (error as { code?: string }).code };
  }
}

async function runOn(side: Side, scenario: Scenario): Promise<unknown[]> {
  const stub = env.COMPAT_SCRATCH.get(env.COMPAT_SCRATCH.newUniqueId());
  return runInDurableObject(stub, async (_instance, state) => {
    const workspace =
      side === "reference"
        ? (new ReferenceWorkspace({ storage: referenceStorage(state.storage) }) as unknown as Workspace)
        : new Workspace({ storage: state.storage });
    await writeFiles(workspace.fs, scenario.files ?? {}, scenario.dirs ?? []);
    const options = { workspace, ...scenario.options };
    const tools =
      side === "reference"
        ? reference.createAITools(options as unknown as reference.CreateAIToolsOptions)
        : ours.createAITools(options as unknown as ours.CreateAIToolsOptions);
    const outcomes: unknown[] = [];
    for (const call of scenario.calls) outcomes.push(await sdkCall(tools, call));
    for (const path of scenario.after ?? []) outcomes.push({ [path]: await fileState(workspace.fs, path) });
    return outcomes.map(normalize);
  });
}

const lines = (count: number, from = 1): string =>
  Array.from({ length: count }, (_, i) => `line ${from + i}`).join("\n");
const PNG = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 1, 2, 3, 4]);
const read = (input: Record<string, unknown>): Call => ({ tool: "read", input });

const scenarios: Record<string, Scenario> = {
  // read: pages and continuations
  "read: pages by maxLines, continues from nextOffset + nextByteOffset, or scans by offset alone": {
    files: { "/workspace/n.txt": `${lines(7)}\n` },
    options: { read: { maxLines: 3 } },
    calls: [
      read({ path: "/workspace/n.txt" }),
      read({ path: "/workspace/n.txt", offset: 4, byteOffset: 21 }),
      read({ path: "/workspace/n.txt", offset: 7, byteOffset: 42 }),
      read({ path: "/workspace/n.txt", offset: 6 }),
      read({ path: "/workspace/n.txt", offset: 2, limit: 2 }),
    ],
  },
  "read: a page that ends exactly at the end of the file is not truncated": {
    files: { "/workspace/three.txt": "a\nb\nc\n", "/workspace/four.txt": "a\nb\nc\nd" },
    options: { read: { maxLines: 3 } },
    calls: [read({ path: "/workspace/three.txt" }), read({ path: "/workspace/four.txt" })],
  },
  "read: keeps carriage returns, blank last lines and a missing final newline as they are": {
    files: {
      "/workspace/crlf.txt": "one\r\ntwo\r\n",
      "/workspace/blank.txt": "a\nb\n\n",
      "/workspace/bare.txt": "a\nb",
      "/workspace/newline.txt": "\n",
    },
    calls: ["crlf", "blank", "bare", "newline"].map((name) => read({ path: `/workspace/${name}.txt` })),
  },
  "read: an empty file, also with an offset": {
    files: { "/workspace/empty.txt": "" },
    calls: [read({ path: "/workspace/empty.txt" }), read({ path: "/workspace/empty.txt", offset: 5 })],
  },
  "read: offset past the end, a stale byte continuation, byteOffset without offset": {
    files: { "/workspace/b.txt": "a\nb\n" },
    calls: [
      read({ path: "/workspace/b.txt", offset: 9 }),
      read({ path: "/workspace/b.txt", offset: 3 }),
      read({ path: "/workspace/b.txt", offset: 2, byteOffset: 99 }),
      read({ path: "/workspace/b.txt", offset: 2, byteOffset: 4 }),
      read({ path: "/workspace/b.txt", byteOffset: 2 }),
      read({ path: "/workspace/b.txt", byteOffset: 0 }),
    ],
  },
  "read: the byte budget counts the newlines between lines and stops before the line that does not fit": {
    files: { "/workspace/w.txt": "aaaa\nbbbb\ncccc\ndddd\n" },
    options: { read: { maxBytes: 14 } },
    calls: [read({ path: "/workspace/w.txt" }), read({ path: "/workspace/w.txt", offset: 3, byteOffset: 10 })],
  },
  "read: a first line longer than the page is an error, not a silent cut": {
    files: {
      "/workspace/wide.txt": `${"x".repeat(50)}\nshort\n`,
      "/workspace/later.txt": `short\n${"y".repeat(50)}\n`,
    },
    options: { read: { maxBytes: 20 } },
    calls: [read({ path: "/workspace/wide.txt" }), read({ path: "/workspace/later.txt" })],
  },
  "read: lineTruncation by bytes (on a UTF-8 boundary) and by characters, with line numbers": {
    files: { "/workspace/u.txt": `${"é".repeat(10)}\nshort\n${"ab".repeat(10)}\n` },
    options: { read: { lineTruncation: { bytes: 5 }, includeLineNumbers: true } },
    calls: [read({ path: "/workspace/u.txt" })],
  },
  "read: lineTruncation by characters counts code points": {
    files: { "/workspace/u.txt": `${"😀".repeat(6)}\nabc\n` },
    options: { read: { lineTruncation: { chars: 4 } } },
    calls: [read({ path: "/workspace/u.txt" }), read({ path: "/workspace/u.txt", offset: 2 })],
  },
  "read: line numbers count toward the byte budget": {
    files: { "/workspace/n.txt": `${lines(12)}\n` },
    options: { read: { includeLineNumbers: true, maxBytes: 40 } },
    calls: [read({ path: "/workspace/n.txt" })],
  },
  "read: images, PDFs, sniffed media, svg, binary and lenient text": {
    files: {
      "/workspace/pic.png": PNG,
      "/workspace/noext": PNG,
      "/workspace/doc.pdf": "%PDF-1.4 fake",
      "/workspace/anim": "GIF89a....",
      "/workspace/icon.svg": "<svg/>",
      "/workspace/blob.bin": new Uint8Array([0, 1, 2, 0xff]),
      "/workspace/latin": new Uint8Array([0x63, 0x61, 0x66, 0xe9]),
      "/workspace/Makefile": "all:\n\techo\n",
      "/workspace/data.json": new Uint8Array([0x7b, 0, 0x7d]),
    },
    calls: ["pic.png", "noext", "doc.pdf", "anim", "icon.svg", "blob.bin", "latin", "Makefile", "data.json"].map(
      (name) => read({ path: `/workspace/${name}` }),
    ),
  },
  "read: the sniff looks at the first 512 bytes only": {
    files: {
      "/workspace/late-nul": new Uint8Array([...new TextEncoder().encode("t".repeat(600)), 0, 0]),
      "/workspace/early-nul": new Uint8Array([...new TextEncoder().encode("t".repeat(100)), 0]),
    },
    calls: [read({ path: "/workspace/late-nul" }), read({ path: "/workspace/early-nul" })],
  },
  "read: an empty image is an error; media over maxModelBytes reaches the model as error-text": {
    files: { "/workspace/empty.png": "", "/workspace/pic.png": PNG },
    options: { read: { maxModelBytes: 5 } },
    calls: [read({ path: "/workspace/empty.png" }), read({ path: "/workspace/pic.png" })],
  },
  "read: a missing path and a directory": {
    dirs: ["/workspace/dir"],
    calls: [read({ path: "/workspace/missing" }), read({ path: "/workspace/dir" })],
  },

  // ls, find, grep
  "ls: name order, paging with nextOffset, a missing directory": {
    files: Object.fromEntries(Array.from({ length: 5 }, (_, i) => [`/workspace/d/f${i}`, `${i}`])),
    dirs: ["/workspace/d/sub"],
    calls: [
      { tool: "ls", input: { path: "/workspace/d" } },
      { tool: "ls", input: { path: "/workspace/d", limit: 4 } },
      { tool: "ls", input: { path: "/workspace/d", limit: 4, offset: 4 } },
      { tool: "ls", input: { path: "/workspace/missing" } },
      { tool: "ls", input: { path: "/workspace/d", limit: 0 } },
    ],
  },
  "find: globs from /workspace by default, paging": {
    files: {
      "/workspace/src/a.ts": "",
      "/workspace/src/lib/b.ts": "",
      "/workspace/src/c.js": "",
      "/workspace/x.ts": "",
    },
    calls: [
      { tool: "find", input: { pattern: "**/*.ts" } },
      { tool: "find", input: { path: "/workspace/src", pattern: "*.?s" } },
      { tool: "find", input: { pattern: "**/*.ts", limit: 2 } },
      { tool: "find", input: { pattern: "**/*.ts", limit: 2, offset: 2 } },
    ],
  },
  "grep: literal and case-sensitive by default, regex, ignoreCase, context, include, paging": {
    files: {
      "/workspace/a.txt": "A.B\nAxB\na.b\nzzz\nA.B again\n",
      "/workspace/src/b.ts": "const A = 1;\n",
    },
    calls: [
      { tool: "grep", input: { query: "A.B" } },
      { tool: "grep", input: { query: "A.B", regex: true } },
      { tool: "grep", input: { query: "a.b", ignoreCase: true } },
      { tool: "grep", input: { query: "zzz", context: 1 } },
      { tool: "grep", input: { query: "A", include: "**/*.ts" } },
      { tool: "grep", input: { query: "A", limit: 2 } },
      { tool: "grep", input: { path: "/workspace/a.txt", query: "again" } },
    ],
  },
  "grep: an empty query matches every line; a bad regex is an error": {
    files: { "/workspace/a.txt": "x\n\ny\n" },
    calls: [
      { tool: "grep", input: { query: "" } },
      { tool: "grep", input: { query: "(", regex: true } },
    ],
  },

  // write, edit, delete
  "write: creates parents, keeps an existing mode, refuses over write.maxBytes and over a directory": {
    files: { "/workspace/x.sh": { text: "old", mode: 0o755 } },
    dirs: ["/workspace/dir"],
    options: { write: { maxBytes: 8 } },
    calls: [
      { tool: "write", input: { path: "/workspace/x.sh", content: "héllo" } },
      { tool: "write", input: { path: "/workspace/new/deep/f.txt", content: "n" } },
      { tool: "write", input: { path: "/workspace/big.txt", content: "123456789" } },
      { tool: "write", input: { path: "/workspace/dir", content: "x" } },
    ],
    after: ["/workspace/x.sh", "/workspace/new/deep/f.txt", "/workspace/big.txt", "/workspace/dir"],
  },
  "edit: two disjoint edits in a BOM + CRLF 0755 file keep the BOM, the line endings and the mode": {
    files: {
      "/workspace/s.sh": {
        text: `\ufeff${["#!/bin/sh", "a=1", "b=2", "c=3", "d=4", "e=5", "f=6"].join("\r\n")}\r\n`,
        mode: 0o755,
      },
    },
    calls: [
      {
        tool: "edit",
        input: {
          path: "/workspace/s.sh",
          edits: [
            { oldText: "a=1", newText: "a=10" },
            { oldText: "f=6", newText: "f=60\ng=7" },
          ],
        },
      },
    ],
    after: ["/workspace/s.sh"],
  },
  "edit: the diff and patch of one change with the file's last line unterminated": {
    files: { "/workspace/c.txt": "a\nb" },
    calls: [{ tool: "edit", input: { path: "/workspace/c.txt", edits: [{ oldText: "a", newText: "z" }] } }],
    after: ["/workspace/c.txt"],
  },
  "edit: context lines, far-apart changes and an appended line": {
    files: { "/workspace/long.txt": `${lines(30)}\n` },
    calls: [
      {
        tool: "edit",
        input: {
          path: "/workspace/long.txt",
          edits: [
            { oldText: "line 3\n", newText: "line three\n" },
            { oldText: "line 20\n", newText: "" },
            { oldText: "line 30\n", newText: "line 30\nline 31\n" },
          ],
        },
      },
    ],
    after: ["/workspace/long.txt"],
  },
  "edit: hunks more than 8 lines apart, changes 8 lines apart in one hunk, an unterminated last line": {
    files: {
      "/workspace/far.txt": Array.from({ length: 16 }, (_, i) => `L${i + 1}`).join("\n"),
      "/workspace/near.txt": Array.from({ length: 12 }, (_, i) => `L${i + 1}`).join("\n"),
    },
    calls: [
      {
        tool: "edit",
        input: {
          path: "/workspace/far.txt",
          edits: [
            { oldText: "L2\n", newText: "two\n" },
            { oldText: "L14", newText: "fourteen\nand more" },
          ],
        },
      },
      {
        tool: "edit",
        input: {
          path: "/workspace/near.txt",
          edits: [
            { oldText: "L2\n", newText: "two\n" },
            { oldText: "L11", newText: "eleven" },
          ],
        },
      },
    ],
  },
  "edit: a pure insertion, a pure deletion, a change of the last line without a newline": {
    files: { "/workspace/i.txt": "a\nb\nc", "/workspace/d.txt": "a\nb\nc\n", "/workspace/l.txt": "a\nb" },
    calls: [
      { tool: "edit", input: { path: "/workspace/i.txt", edits: [{ oldText: "b\n", newText: "b\nnew\n" }] } },
      { tool: "edit", input: { path: "/workspace/d.txt", edits: [{ oldText: "b\n", newText: "" }] } },
      { tool: "edit", input: { path: "/workspace/l.txt", edits: [{ oldText: "b", newText: "B" }] } },
    ],
  },
  "edit: not unique, overlapping, no change, not found, empty edits, missing file": {
    files: { "/workspace/e.txt": "x = 1\nx = 1\ny = 2\n" },
    calls: [
      { tool: "edit", input: { path: "/workspace/e.txt", edits: [{ oldText: "x = 1", newText: "x = 3" }] } },
      {
        tool: "edit",
        input: {
          path: "/workspace/e.txt",
          edits: [
            { oldText: "1\ny", newText: "z" },
            { oldText: "y = 2", newText: "w" },
          ],
        },
      },
      { tool: "edit", input: { path: "/workspace/e.txt", edits: [{ oldText: "y = 2", newText: "y = 2" }] } },
      { tool: "edit", input: { path: "/workspace/e.txt", edits: [{ oldText: "nope", newText: "z" }] } },
      { tool: "edit", input: { path: "/workspace/e.txt", edits: [] } },
      { tool: "edit", input: { path: "/workspace/none.txt", edits: [{ oldText: "a", newText: "b" }] } },
    ],
    after: ["/workspace/e.txt"],
  },
  "edit: the schema takes only the strict array (a JSON string, a top-level pair or extra keys are refused)": {
    files: { "/workspace/c.txt": "a\nb\n" },
    calls: [
      { tool: "edit", input: { path: "/workspace/c.txt", edits: JSON.stringify([{ oldText: "a", newText: "z" }]) } },
      { tool: "edit", input: { path: "/workspace/c.txt", oldText: "a", newText: "z" } },
      { tool: "edit", input: { path: "/workspace/c.txt", edits: [{ oldText: "a", newText: "z", why: "x" }] } },
    ],
    after: ["/workspace/c.txt"],
  },
  "edit: over edit.maxBytes is refused and writes nothing": {
    files: { "/workspace/c.txt": "0123456789" },
    options: { edit: { maxBytes: 8 } },
    calls: [{ tool: "edit", input: { path: "/workspace/c.txt", edits: [{ oldText: "0", newText: "z" }] } }],
    after: ["/workspace/c.txt"],
  },
  "edit: a fuzzy match (curly quotes) rewrites only the matched range": {
    files: { "/workspace/q.txt": "say “hi”\nkeep ‘this’ — as is\n" },
    calls: [
      { tool: "edit", input: { path: "/workspace/q.txt", edits: [{ oldText: 'say "hi"', newText: 'say "bye"' }] } },
    ],
    after: ["/workspace/q.txt"],
    differs:
      "the original writes the whole file back normalized once a fuzzy match is used (every curly quote and dash " +
      "in it becomes ASCII); ours replaces only the matched range and leaves the rest of the bytes as they were",
    ours: (outcomes) => {
      expect(outcomes.at(-1)).toEqual({
        "/workspace/q.txt": { text: 'say "bye"\nkeep ‘this’ — as is\n', mode: 0o644 },
      });
    },
  },
  "edit: a replacement that keeps some of its own lines": {
    files: { "/workspace/k.txt": "top\na\nx\nb\nend\n" },
    calls: [{ tool: "edit", input: { path: "/workspace/k.txt", edits: [{ oldText: "a\nx\nb", newText: "c\nx\nd" }] } }],
    after: ["/workspace/k.txt"],
    differs:
      "the diff is built from the edit's range, not by a general line diff: a replacement that keeps a line of " +
      "its own (x here) shows as one block of removed and added lines, where the original's line diff keeps x as " +
      "an unchanged line between two changes; the file written is the same",
    ours: (outcomes) => {
      expect(outcomes[0]).toMatchObject({ output: { diff: " 1 top\n-2 a\n-3 x\n-4 b\n+2 c\n+3 x\n+4 d\n 5 end" } });
      expect(outcomes[1]).toEqual({ "/workspace/k.txt": { text: "top\nc\nx\nd\nend\n", mode: 0o644 } });
    },
  },
  "delete: a missing path, a non-empty directory without and with recursive": {
    files: { "/workspace/t/u/f": "x" },
    calls: [
      { tool: "delete", input: { path: "/workspace/nope" } },
      { tool: "delete", input: { path: "/workspace/t" } },
      { tool: "delete", input: { path: "/workspace/t", recursive: true } },
    ],
    after: ["/workspace/t"],
  },
  "createAITools: readonly has only the reading tools": {
    files: { "/workspace/a.txt": "a" },
    options: { readonly: true },
    calls: [
      { tool: "write", input: { path: "/workspace/a.txt", content: "b" } },
      { tool: "read", input: { path: "/workspace/a.txt" } },
    ],
  },
};

describe("differential: the AI SDK tools, same calls on the original and ours", () => {
  for (const [name, scenario] of Object.entries(scenarios)) {
    it(name, async () => {
      const theirs = await runOn("reference", scenario);
      const mine = await runOn("ours", scenario);
      if (scenario.differs === undefined) {
        expect(mine).toEqual(theirs);
      } else {
        expect(mine, scenario.differs).not.toEqual(theirs);
        scenario.ours?.(mine);
      }
    });
  }
});

/** A small seeded PRNG (mulberry32): the same seed gives the same files and settings on both sides. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

interface PagingCase {
  path: string;
  settings: Record<string, unknown>;
  limit?: number;
}

/** Random text files (short and long lines, multi-byte characters, CR, blank lines) and read settings. */
function pagingCases(seed: number, count: number): { files: Record<string, string>; cases: PagingCase[] } {
  const next = random(seed);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)] as T;
  const pieces = ["a", "bc", "é", "😀", " ", "\r", "xyz", "\t"];
  const files: Record<string, string> = {};
  const cases: PagingCase[] = [];
  for (let i = 0; i < count; i++) {
    const lineCount = Math.floor(next() * 12);
    const lines = Array.from({ length: lineCount }, () =>
      Array.from({ length: Math.floor(next() * (next() < 0.2 ? 30 : 6)) }, () => pick(pieces)).join(""),
    );
    const path = `/workspace/p${i}.txt`;
    files[path] = lines.join("\n") + (next() < 0.5 ? "\n" : "");
    const settings: Record<string, unknown> = {
      maxLines: 1 + Math.floor(next() * 5),
      maxBytes: 8 + Math.floor(next() * 40),
    };
    if (next() < 0.3) settings.includeLineNumbers = true;
    if (next() < 0.3)
      settings.lineTruncation =
        next() < 0.5 ? { bytes: 1 + Math.floor(next() * 8) } : { chars: 1 + Math.floor(next() * 5) };
    cases.push({ path, settings, ...(next() < 0.3 ? { limit: 1 + Math.floor(next() * 3) } : {}) });
  }
  return { files, cases };
}

/** Reads each file page by page, following nextOffset + nextByteOffset, with each package's read tool. */
async function pageThrough(side: Side, files: Record<string, string>, cases: PagingCase[]): Promise<unknown[][]> {
  const stub = env.COMPAT_SCRATCH.get(env.COMPAT_SCRATCH.newUniqueId());
  return runInDurableObject(stub, async (_instance, state) => {
    const workspace =
      side === "reference"
        ? (new ReferenceWorkspace({ storage: referenceStorage(state.storage) }) as unknown as Workspace)
        : new Workspace({ storage: state.storage });
    await writeFiles(workspace.fs, files, []);
    const results: unknown[][] = [];
    for (const { path, settings, limit } of cases) {
      const tool =
        side === "reference"
          ? reference.createReadTool({
              store: new reference.WorkspaceFileStore(workspace as unknown as reference.WorkspaceLike),
              ...settings,
            })
          : ours.createReadTool({ store: new ours.WorkspaceFileStore(workspace), ...settings });
      const execute = tool.execute as (input: unknown, options: unknown) => Promise<Record<string, unknown>>;
      const pages: unknown[] = [];
      let input: Record<string, unknown> = { path, ...(limit === undefined ? {} : { limit }) };
      for (let page = 0; page < 40; page++) {
        const output = await execute(input, { toolCallId: "page", messages: [] });
        pages.push(normalize(output));
        if (output.truncated !== true) break;
        input = { ...input, offset: output.nextOffset, byteOffset: output.nextByteOffset };
      }
      results.push(pages);
    }
    return results;
  });
}

/** Set to a printed seed to replay a failure. */
const REPLAY_SEED: number | undefined = undefined;

describe("differential: read paging over random files", () => {
  const seeds = REPLAY_SEED === undefined ? [1, Date.now() % 1_000_000] : [REPLAY_SEED];
  for (const seed of seeds) {
    it(`every page of every file matches the original's, following the continuations (seed ${seed})`, async () => {
      console.log(`read paging seed ${seed}`);
      const { files, cases } = pagingCases(seed, 40);
      const theirs = await pageThrough("reference", files, cases);
      const mine = await pageThrough("ours", files, cases);
      cases.forEach((pagingCase, i) => {
        const label = `seed ${seed} (set REPLAY_SEED to replay): ${JSON.stringify({ ...pagingCase, text: files[pagingCase.path] })}`;
        expect(mine[i], label).toEqual(theirs[i]);
      });
    });
  }
});

interface EditCase {
  path: string;
  edits: { oldText: string; newText: string }[];
}

/**
 * Random files of distinct lines and 1–3 disjoint edits of whole lines, with
 * or without their newline, replaced by new lines or nothing, at the start,
 * the middle and the unterminated end of a file. Distinct lines keep the
 * line diff unambiguous, so the original's diff and ours must agree exactly.
 */
function editCases(seed: number, count: number): { files: Record<string, string>; cases: EditCase[] } {
  const next = random(seed);
  const files: Record<string, string> = {};
  const cases: EditCase[] = [];
  let fresh = 0;
  for (let i = 0; i < count; i++) {
    const lineCount = 1 + Math.floor(next() * 30);
    const lines = Array.from({ length: lineCount }, (_, n) => `l${n + 1}`);
    const terminated = next() < 0.6;
    const path = `/workspace/e${i}.txt`;
    files[path] = lines.join("\n") + (terminated ? "\n" : "");
    const edits: EditCase["edits"] = [];
    let from = 0;
    for (let k = 0; k < 3 && from < lineCount; k++) {
      const start = from + Math.floor(next() * Math.min(lineCount - from, 12));
      const length = Math.min(1 + Math.floor(next() * 2), lineCount - start);
      const last = start + length === lineCount;
      const withNewline = (!last || terminated) && next() < 0.7;
      const oldText = lines.slice(start, start + length).join("\n") + (withNewline ? "\n" : "");
      const added = Array.from({ length: Math.floor(next() * 3) }, () => `n${++fresh}`);
      const newText = added.length === 0 ? "" : added.join("\n") + (withNewline ? "\n" : "");
      if (newText === "" && !withNewline && length === lineCount) continue;
      edits.push({ oldText, newText });
      from = start + length + 1;
      if (next() < 0.4) break;
    }
    if (edits.length > 0) cases.push({ path, edits });
  }
  return { files, cases };
}

async function editThrough(side: Side, files: Record<string, string>, cases: EditCase[]): Promise<unknown[]> {
  const stub = env.COMPAT_SCRATCH.get(env.COMPAT_SCRATCH.newUniqueId());
  return runInDurableObject(stub, async (_instance, state) => {
    const workspace =
      side === "reference"
        ? (new ReferenceWorkspace({ storage: referenceStorage(state.storage) }) as unknown as Workspace)
        : new Workspace({ storage: state.storage });
    await writeFiles(workspace.fs, files, []);
    const tool =
      side === "reference"
        ? reference.createEditTool({
            store: new reference.WorkspaceFileStore(workspace as unknown as reference.WorkspaceLike),
          })
        : ours.createEditTool({ store: new ours.WorkspaceFileStore(workspace) });
    const execute = tool.execute as (input: unknown, options: unknown) => Promise<unknown>;
    const results: unknown[] = [];
    for (const { path, edits } of cases) {
      const output = await execute({ path, edits }, { toolCallId: "edit", messages: [] });
      results.push({ output: normalize(output), after: await fileState(workspace.fs, path) });
    }
    return results;
  });
}

describe("differential: edit diffs over random files and edits", () => {
  const seeds = REPLAY_SEED === undefined ? [1, Date.now() % 1_000_000] : [REPLAY_SEED];
  for (const seed of seeds) {
    it(`the result, diff, patch and file match the original's (seed ${seed})`, async () => {
      console.log(`edit diff seed ${seed}`);
      const { files, cases } = editCases(seed, 40);
      const theirs = await editThrough("reference", files, cases);
      const mine = await editThrough("ours", files, cases);
      cases.forEach((editCase, i) => {
        const label = `seed ${seed} (set REPLAY_SEED to replay): ${JSON.stringify({ ...editCase, text: files[editCase.path] })}`;
        expect(mine[i], label).toEqual(theirs[i]);
      });
    });
  }
});
