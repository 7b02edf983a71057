/** `edit` through the AI SDK (`docs/tools.md`) and the input forms models send. */
import { describe, expect, it } from "vitest";
import { inToolsWorkspace } from "../../test/tools/harness.worker.js";
import { callTool, runScript } from "../../test/tools/scripted-model.js";
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
          "Index: /workspace/run.sh",
          "=".repeat(67),
          "--- /workspace/run.sh",
          "+++ /workspace/run.sh",
          "@@ -1,5 +1,5 @@",
          " #!/bin/sh",
          "-echo one",
          "-echo two",
          "+echo ONE",
          "+echo TWO",
          " echo three",
          "-echo four",
          "+echo FOUR",
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

  it("the schema holds the model to the strict array; a direct execute also takes a JSON string and a top-level pair", async () => {
    await inToolsWorkspace(async ({ workspace }) => {
      await workspace.fs.mkdir("/workspace", { recursive: true });
      await workspace.fs.writeFile("/workspace/b.txt", "alpha beta gamma\n");
      const tools = createAITools({ workspace });
      // Through the SDK the input is checked against the schema first: these never reach execute.
      const refused = await runScript(tools, [
        [
          { tool: "edit", input: { path: "/workspace/b.txt", edits: "[]" } },
          { tool: "edit", input: { path: "/workspace/b.txt", oldText: "beta", newText: "BETA" } },
          { tool: "edit", input: { path: "/workspace/b.txt", edits: [{ oldText: "a", newText: "b", note: "x" }] } },
        ],
      ]);
      const parts = refused.result.steps[0]?.content.filter((part) => part.type === "tool-error") ?? [];
      expect(parts).toHaveLength(3);
      const execute = tools.edit?.execute as (input: unknown, options: unknown) => Promise<unknown>;
      const options = { toolCallId: "direct", messages: [] };
      const json = await execute(
        { path: "/workspace/b.txt", edits: JSON.stringify([{ oldText: "alpha", newText: "ALPHA" }]) },
        options,
      );
      expect(json).toMatchObject({ editsApplied: 1 });
      // A top-level pair is added after the array's edits.
      const both = await execute(
        { path: "/workspace/b.txt", edits: [{ oldText: "gamma", newText: "GAMMA" }], oldText: "beta", newText: "BETA" },
        options,
      );
      expect(both).toMatchObject({ editsApplied: 2 });
      expect(await workspace.fs.readFile("/workspace/b.txt", "utf8")).toBe("ALPHA BETA GAMMA\n");
      expect(await execute({ path: "/workspace/b.txt" }, options)).toEqual({
        error: expect.stringMatching(/edits must be an array/),
      });
      expect(await execute({ path: "/workspace/b.txt", edits: [] }, options)).toEqual({
        error: expect.stringMatching(/edits is empty/),
      });
    });
  });

  it("refuses files over 2 MiB and files that are not UTF-8", async () => {
    await inToolsWorkspace(async ({ workspace }) => {
      await workspace.fs.mkdir("/workspace", { recursive: true });
      await workspace.fs.writeFile("/workspace/big.txt", "a".repeat(2 * 1024 * 1024 + 1));
      await workspace.fs.writeFile("/workspace/bin", new Uint8Array([0xff, 0xfe, 0x41]));
      const tools = createAITools({ workspace });
      expect(
        (await callTool(tools, "edit", { path: "/workspace/big.txt", edits: [{ oldText: "a", newText: "b" }] })).output,
      ).toEqual({
        error: expect.stringMatching(/^EFBIG/),
      });
      const binary = await callTool(tools, "edit", { path: "/workspace/bin", edits: [{ oldText: "A", newText: "B" }] });
      expect(binary.output).toEqual({
        error: expect.stringMatching(/not UTF-8/),
      });
    });
  });
});
