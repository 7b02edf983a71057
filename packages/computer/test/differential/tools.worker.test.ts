/**
 * Differential tests of the AI SDK tools (issue 19 row 12): every scenario
 * runs the same tool calls through the published `@cloudflare/computer@0.2.1`
 * (`computer-reference/tools`) and through ours, each over its own package's
 * Workspace in a fresh Durable Object, each call through the real AI SDK
 * (`generateText` with a scripted model, so inputs are validated against the
 * tool's schema and outputs go through `toModelOutput`). What each call
 * returned, what the model was shown, and the files afterwards must match.
 *
 * Normalized before comparing (tools-common.worker.ts): error texts (ours are our
 * own words; the tests of each tool check ours), times, and the AI SDK
 * part type of an attachment.
 * A scenario with `differs` is a deliberate difference: it must still differ,
 * and `ours` states what we answer instead.
 */
import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import * as reference from "computer-reference/tools";
import { describe, expect, it } from "vitest";
import * as ours from "../../src/tools/index.js";
import {
  type Call,
  type Files,
  fileState,
  normalize,
  type Side,
  sdkCall,
  workspaceOn,
  writeFiles,
} from "./tools-common.worker.js";

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

async function runOn(side: Side, scenario: Scenario): Promise<unknown[]> {
  const stub = env.COMPAT_SCRATCH.get(env.COMPAT_SCRATCH.newUniqueId());
  return runInDurableObject(stub, async (_instance, state) => {
    const workspace = workspaceOn(side, state.storage);
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
  "edit: a file that is not UTF-8": {
    files: { "/workspace/latin.txt": new Uint8Array([0x63, 0x61, 0x66, 0xe9, 0x0a, 0x78, 0x0a]) },
    calls: [{ tool: "edit", input: { path: "/workspace/latin.txt", edits: [{ oldText: "x", newText: "y" }] } }],
    after: ["/workspace/latin.txt"],
    differs:
      "ours refuses to edit a file that is not UTF-8; the original decodes it with replacement characters and " +
      "writes those back, so bytes the model never touched change",
    ours: (outcomes) => {
      expect(outcomes[0]).toMatchObject({ output: { error: "<error>" } });
      expect(outcomes[1]).toEqual({ "/workspace/latin.txt": { text: "caf\ufffd\nx\n", mode: 0o644 } });
    },
  },
  "paths: relative and unnormalized paths": {
    files: { "/workspace/a.txt": "a\n" },
    calls: [
      read({ path: "a.txt" }),
      read({ path: "/workspace/./sub/../a.txt" }),
      { tool: "write", input: { path: "notes/b.txt", content: "b" } },
    ],
    after: ["/workspace/notes/b.txt"],
    differs:
      "ours takes a relative path from /workspace and reports every path normalized and absolute; the original " +
      "passes the path to the filesystem as given and echoes it back",
    ours: (outcomes) => {
      expect(outcomes[0]).toMatchObject({ output: { path: "/workspace/a.txt", content: "a" } });
      expect(outcomes[1]).toMatchObject({ output: { path: "/workspace/a.txt", content: "a" } });
      expect(outcomes[3]).toEqual({ "/workspace/notes/b.txt": { text: "b", mode: 0o644 } });
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
