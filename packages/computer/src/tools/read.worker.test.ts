/** `read` through the AI SDK: paging, model output, media and binary files. */
import { describe, expect, it } from "vitest";
import { inToolsWorkspace } from "../../test/tools/harness.worker.js";
import { callTool, runScript } from "../../test/tools/scripted-model.js";
import { createAITools } from "./create-ai-tools.js";
import { createReadTool } from "./read.js";

const lines = (from: number, to: number): string[] => {
  const out: string[] = [];
  for (let n = from; n <= to; n++) out.push(`line ${n}`);
  return out;
};

describe("read", () => {
  it("(20) 3000 lines: 2000 first, truncated, then the rest from nextOffset/nextByteOffset", async () => {
    await inToolsWorkspace(async ({ workspace }) => {
      await workspace.fs.mkdir("/workspace", { recursive: true });
      await workspace.fs.writeFile("/workspace/big.txt", `${lines(1, 3000).join("\n")}\n`);
      const tools = createAITools({ workspace });
      const first = await callTool(tools, "read", { path: "/workspace/big.txt" });
      const page = first.output as { content: string; nextByteOffset: number };
      expect(page).toMatchObject({ startLine: 1, endLine: 2000, truncated: true, totalLines: null, nextOffset: 2001 });
      expect(page.content.split("\n")).toEqual(lines(1, 2000));
      const byteOffset = new TextEncoder().encode(`${lines(1, 2000).join("\n")}\n`).byteLength;
      expect(page.nextByteOffset).toBe(byteOffset);
      // Partial pages reach the model as JSON, so it sees where to continue.
      expect(first.modelOutput).toMatchObject({ type: "json", value: { nextOffset: 2001, truncated: true } });

      const second = await callTool(tools, "read", { path: "/workspace/big.txt", offset: 2001, byteOffset });
      expect(second.output).toMatchObject({ startLine: 2001, endLine: 3000, truncated: false, totalLines: 3000 });
      expect((second.output as { content: string }).content.split("\n")).toEqual(lines(2001, 3000));
      expect(second.output).not.toHaveProperty("nextOffset");
      // Without byteOffset, offset alone scans to the line.
      const third = await callTool(tools, "read", { path: "/workspace/big.txt", offset: 2999 });
      expect(third.output).toMatchObject({ content: "line 2999\nline 3000", totalLines: 3000 });

      // byteOffset without offset: the schema refuses it, so the SDK reports a tool error and execute never runs.
      const bad = await runScript(tools, [[{ tool: "read", input: { path: "/workspace/big.txt", byteOffset: 10 } }]]);
      expect(bad.result.steps[0]?.content.find((part) => part.type === "tool-error")).toMatchObject({
        error: expect.stringMatching(/byteOffset needs offset/),
      });
      // Past the end of the file: the page it came from is stale.
      const stale = await callTool(tools, "read", { path: "/workspace/big.txt", offset: 2001, byteOffset: 10 ** 6 });
      expect(stale.output).toEqual({ error: expect.stringMatching(/^byteOffset 1000000 is past the end/) });
      expect(stale.modelOutput).toEqual({ type: "error-text", value: (stale.output as { error: string }).error });
    });
  });

  it("stops at 256 KiB before 2000 lines", async () => {
    await inToolsWorkspace(async ({ workspace }) => {
      const line = "x".repeat(1023);
      await workspace.fs.mkdir("/workspace", { recursive: true });
      await workspace.fs.writeFile("/workspace/wide.txt", `${Array(300).fill(line).join("\n")}\n`);
      const { output } = await callTool(createAITools({ workspace }), "read", { path: "/workspace/wide.txt" });
      expect(output).toMatchObject({
        startLine: 1,
        endLine: 256,
        truncated: true,
        nextOffset: 257,
        nextByteOffset: 256 * 1024,
      });
    });
  });

  it("a whole file reaches the model as plain text; line numbers and limits are options", async () => {
    await inToolsWorkspace(async ({ workspace }) => {
      await workspace.fs.mkdir("/workspace", { recursive: true });
      await workspace.fs.writeFile("/workspace/a.txt", "one\r\ntwo\r\nthree");
      const plain = await callTool(createAITools({ workspace }), "read", { path: "/workspace/a.txt" });
      // Carriage returns stay: the model sees the bytes that are there.
      expect(plain.output).toMatchObject({ content: "one\r\ntwo\r\nthree", totalLines: 3, truncated: false });
      expect(plain.modelOutput).toEqual({ type: "text", value: "one\r\ntwo\r\nthree" });
      const numbered = await callTool(
        { read: createReadTool({ workspace, includeLineNumbers: true, lineTruncation: { chars: 2 } }) },
        "read",
        { path: "/workspace/a.txt", offset: 2, limit: 1 },
      );
      expect(numbered.output).toMatchObject({ content: "2\ttw... (truncated)", truncated: true });
      expect(numbered.modelOutput).toMatchObject({ type: "json" });
      await workspace.fs.writeFile("/workspace/empty.txt", "");
      const empty = await callTool(createAITools({ workspace }), "read", { path: "/workspace/empty.txt" });
      expect(empty.output).toMatchObject({ content: "", totalLines: 0 });
      expect(empty.modelOutput).toMatchObject({ type: "json" });
    });
  });

  it("images and PDFs go to the model as media; svg is text; binary is unsupported", async () => {
    await inToolsWorkspace(async ({ workspace }) => {
      const png = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 1, 2, 3]);
      await workspace.fs.mkdir("/workspace", { recursive: true });
      await workspace.fs.writeFile("/workspace/pic.png", png);
      await workspace.fs.writeFile("/workspace/noext", png);
      await workspace.fs.writeFile("/workspace/doc.pdf", "%PDF-1.4 fake");
      await workspace.fs.writeFile("/workspace/icon.svg", "<svg/>");
      await workspace.fs.writeFile("/workspace/blob.bin", new Uint8Array([0, 1, 2, 0xff]));
      const tools = createAITools({ workspace });
      const image = await callTool(tools, "read", { path: "/workspace/pic.png" });
      expect(image.output).toEqual({
        kind: "image",
        path: "/workspace/pic.png",
        name: "pic.png",
        mediaType: "image/png",
        sizeBytes: 11,
        data: btoa(String.fromCharCode(...png)),
      });
      expect(image.modelOutput).toEqual({
        type: "content",
        value: [
          { type: "text", text: "Attached: /workspace/pic.png (image/png, 11 bytes)." },
          { type: "image-data", mediaType: "image/png", data: btoa(String.fromCharCode(...png)) },
        ],
      });
      expect((await callTool(tools, "read", { path: "/workspace/noext" })).output).toMatchObject({ kind: "image" });
      const pdf = await callTool(tools, "read", { path: "/workspace/doc.pdf" });
      expect(pdf.modelOutput).toMatchObject({
        type: "content",
        value: [{ type: "text" }, { type: "file-data", mediaType: "application/pdf", filename: "doc.pdf" }],
      });
      expect((await callTool(tools, "read", { path: "/workspace/icon.svg" })).modelOutput).toEqual({
        type: "text",
        value: "<svg/>",
      });
      expect((await callTool(tools, "read", { path: "/workspace/blob.bin" })).output).toEqual({
        kind: "binary",
        path: "/workspace/blob.bin",
        name: "blob.bin",
        mediaType: "application/octet-stream",
        sizeBytes: 4,
        unsupported: true,
      });
      // Over maxModelBytes: the result says what the file is (no bytes read), the model is told why it gets none.
      const small = { read: createReadTool({ workspace, maxModelBytes: 4 }) };
      const big = await callTool(small, "read", { path: "/workspace/pic.png" });
      expect(big.output).toEqual({
        kind: "image",
        path: "/workspace/pic.png",
        name: "pic.png",
        mediaType: "image/png",
        sizeBytes: 11,
      });
      expect(big.modelOutput).toEqual({
        type: "error-text",
        value: "/workspace/pic.png (image/png, 11 bytes) is over the 4-byte limit for media sent to the model",
      });
      await workspace.fs.writeFile("/workspace/empty.png", "");
      expect((await callTool(tools, "read", { path: "/workspace/empty.png" })).output).toEqual({
        error: "/workspace/empty.png is empty: there is nothing to attach",
      });
    });
  });
});
