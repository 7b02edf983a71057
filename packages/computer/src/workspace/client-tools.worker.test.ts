/**
 * The AI tools over a `getWorkspace()` client, as the original allows: the
 * filesystem tools work over Workers RPC, and exec needs its backends named
 * (a client's runtime does not list them).
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { callTool } from "../../test/tools/scripted-model.js";
import { createAITools } from "../tools/create-ai-tools.js";
import { getWorkspace } from "./client.js";

describe("createAITools over a getWorkspace() client", () => {
  it("writes, reads, lists and greps through the client", async () => {
    using ws = await getWorkspace(env.PLAIN_WORKSPACE.get(env.PLAIN_WORKSPACE.newUniqueId()));
    const tools = createAITools({ workspace: ws });
    expect(Object.keys(tools).sort()).toEqual(["delete", "edit", "find", "grep", "ls", "read", "write"]);
    expect(
      (await callTool(tools, "write", { path: "/notes/a.md", content: "alpha\nbeta\n" })).output,
    ).not.toHaveProperty("error");
    expect(await ws.fs.readFile("/notes/a.md", "utf8")).toBe("alpha\nbeta\n");
    expect(JSON.stringify((await callTool(tools, "read", { path: "/notes/a.md" })).output)).toContain("beta");
    expect(JSON.stringify((await callTool(tools, "ls", { path: "/notes" })).output)).toContain("a.md");
    expect(JSON.stringify((await callTool(tools, "grep", { path: "/notes", query: "beta" })).output)).toContain("a.md");
  });

  it("exec needs the backends named, with a clear message", async () => {
    using ws = await getWorkspace(env.PLAIN_WORKSPACE.get(env.PLAIN_WORKSPACE.newUniqueId()));
    expect(() => createAITools({ workspace: ws, shell: true })).toThrow(/createExecTool needs backends/);
    const tools = createAITools({ workspace: ws, shell: { backends: { none: { description: "no such backend" } } } });
    expect(Object.keys(tools)).toContain("exec");
  });
});
