/** `edit` through the AI SDK (`docs/tools.md`) and the input forms models send. */
import { describe, expect, it } from "vitest";
import { inToolsWorkspace } from "../../test/tools/harness.worker.js";
import { callTool } from "../../test/tools/scripted-model.js";
import { createAITools } from "./create-ai-tools.js";

const bytes = async (stream: ReadableStream<Uint8Array>): Promise<Uint8Array> =>
  new Uint8Array(await new Response(stream).arrayBuffer());

describe("edit", () => {
  it("(23) two disjoint edits in a BOM + CRLF 0755 file keep BOM, CRLF and mode; patch and firstChangedLine", async () => {
    await inToolsWorkspace(async ({ workspace }) => {
      await workspace.fs.mkdir("/workspace", { recursive: true });
      const original = "\ufeff#!/bin/sh\r\necho one\r\necho two\r\necho three\r\necho four\r\n";
      await workspace.fs.writeFile("/workspace/run.sh", original, { mode: 0o755 });
      const { output } = await callTool(createAITools({ workspace }), "edit", {
        path: "/workspace/run.sh",
        edits: [
          { oldText: "echo four", newText: "echo FOUR" },
          { oldText: "echo one\necho two", newText: "echo ONE\necho TWO" },
        ],
      });
      expect(output).toMatchObject({ path: "/workspace/run.sh", editsApplied: 2, firstChangedLine: 2 });
      const raw = await bytes(await workspace.fs.readFile("/workspace/run.sh"));
      expect([...raw.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
      expect(new TextDecoder().decode(raw.subarray(3))).toBe(
        "#!/bin/sh\r\necho ONE\r\necho TWO\r\necho three\r\necho FOUR\r\n",
      );
      expect((await workspace.fs.stat("/workspace/run.sh")).mode).toBe(0o755);
      const { patch, diff } = output as { patch: string; diff: string };
      expect(patch).toBe(
        [
          "--- a/workspace/run.sh",
          "+++ b/workspace/run.sh",
          "@@ -1,6 +1,6 @@",
          " #!/bin/sh",
          "-echo one",
          "-echo two",
          "+echo ONE",
          "+echo TWO",
          " echo three",
          "-echo four",
          "+echo FOUR",
          " ",
          "",
        ].join("\n"),
      );
      expect(diff).toContain("-2 echo one");
      expect(diff).toContain("+5 echo FOUR");
    });
  });

  it("(24) a non-unique oldText, overlapping edits and a no-op each fail and leave the file alone", async () => {
    await inToolsWorkspace(async ({ workspace }) => {
      await workspace.fs.mkdir("/workspace", { recursive: true });
      await workspace.fs.writeFile("/workspace/a.txt", "x = 1\nx = 1\ny = 2\n");
      const tools = createAITools({ workspace });
      const twice = await callTool(tools, "edit", {
        path: "/workspace/a.txt",
        edits: [{ oldText: "x = 1", newText: "x = 3" }],
      });
      expect(twice.output).toEqual({ error: expect.stringMatching(/matches 2 times/) });
      const overlap = await callTool(tools, "edit", {
        path: "/workspace/a.txt",
        edits: [
          { oldText: "1\ny", newText: "1\nz" },
          { oldText: "y = 2", newText: "y = 4" },
        ],
      });
      expect(overlap.output).toEqual({ error: expect.stringMatching(/edits\[0\] and edits\[1\] overlap/) });
      const noop = await callTool(tools, "edit", {
        path: "/workspace/a.txt",
        edits: [{ oldText: "y = 2", newText: "y = 2" }],
      });
      expect(noop.output).toEqual({ error: expect.stringMatching(/^No changes made/) });
      const missing = await callTool(tools, "edit", {
        path: "/workspace/a.txt",
        edits: [{ oldText: "q", newText: "r" }],
      });
      expect(missing.output).toEqual({ error: expect.stringMatching(/^Could not find oldText/) });
      const empty = await callTool(tools, "edit", { path: "/workspace/a.txt", edits: [{ oldText: "", newText: "r" }] });
      expect(empty.output).toEqual({ error: expect.stringMatching(/oldText is empty/) });
      expect(await workspace.fs.readFile("/workspace/a.txt", "utf8")).toBe("x = 1\nx = 1\ny = 2\n");
    });
  });

  it("(25) an oldText differing only in curly quotes matches fuzzily; other bytes stay as they were", async () => {
    await inToolsWorkspace(async ({ workspace }) => {
      await workspace.fs.mkdir("/workspace", { recursive: true });
      const original = "say(\u201chello\u201d);   \nkeep \u2018this\u2019 \u2014 too\n";
      await workspace.fs.writeFile("/workspace/q.js", original);
      const { output } = await callTool(createAITools({ workspace }), "edit", {
        path: "/workspace/q.js",
        edits: [{ oldText: 'say("hello");', newText: 'say("bye");' }],
      });
      expect(output).toMatchObject({ editsApplied: 1, firstChangedLine: 1 });
      expect(await workspace.fs.readFile("/workspace/q.js", "utf8")).toBe(
        'say("bye");   \nkeep \u2018this\u2019 \u2014 too\n',
      );
    });
  });

  it("accepts edits as a JSON string and the legacy top-level oldText/newText", async () => {
    await inToolsWorkspace(async ({ workspace }) => {
      await workspace.fs.mkdir("/workspace", { recursive: true });
      await workspace.fs.writeFile("/workspace/b.txt", "alpha beta\n");
      const tools = createAITools({ workspace });
      const json = await callTool(tools, "edit", {
        path: "/workspace/b.txt",
        edits: JSON.stringify([{ oldText: "alpha", newText: "ALPHA" }]),
      });
      expect(json.output).toMatchObject({ editsApplied: 1 });
      const legacy = await callTool(tools, "edit", { path: "/workspace/b.txt", oldText: "beta", newText: "BETA" });
      expect(legacy.output).toMatchObject({ editsApplied: 1 });
      expect(await workspace.fs.readFile("/workspace/b.txt", "utf8")).toBe("ALPHA BETA\n");
      const none = await callTool(tools, "edit", { path: "/workspace/b.txt" });
      expect(none.output).toEqual({ error: expect.stringMatching(/non-empty array/) });
    });
  });

  it("refuses files over 2 MiB and files that are not UTF-8", async () => {
    await inToolsWorkspace(async ({ workspace }) => {
      await workspace.fs.mkdir("/workspace", { recursive: true });
      await workspace.fs.writeFile("/workspace/big.txt", "a".repeat(2 * 1024 * 1024 + 1));
      await workspace.fs.writeFile("/workspace/bin", new Uint8Array([0xff, 0xfe, 0x41]));
      const tools = createAITools({ workspace });
      expect(
        (await callTool(tools, "edit", { path: "/workspace/big.txt", oldText: "a", newText: "b" })).output,
      ).toEqual({
        error: expect.stringMatching(/^EFBIG/),
      });
      expect((await callTool(tools, "edit", { path: "/workspace/bin", oldText: "A", newText: "B" })).output).toEqual({
        error: expect.stringMatching(/not UTF-8/),
      });
    });
  });
});
