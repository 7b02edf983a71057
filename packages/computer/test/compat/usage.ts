/**
 * Code written against the published @cloudflare/computer@0.2.1's types,
 * compiled against ours (part of `tsconfig.compat.json`, so of `npm run
 * typecheck`). Where the per-name fixtures check a declared shape, these
 * check what a switching user writes: inference, overloads, mixins.
 */
import { DurableObject } from "cloudflare:workers";
import { getWorkspace, type Workspace, type WorkspaceRuntimeExecOptions, withWorkspace } from "../../src/index.js";
import { createAITools } from "../../src/tools/index.js";

type Env = { X: 1; NS: DurableObjectNamespace<Agent> };

// withWorkspace over DurableObject or a subclass: `self.ctx` is readable, statics and methods stay.
// (An exported class over an anonymous base fails declaration emit, ours and the original's alike.)
class Plain extends DurableObject<Env> {}
export class Agent extends withWorkspace(Plain, (self) => ({ storage: self.ctx.storage })) {
  m(): 1 {
    return this.env.X;
  }
}
class Base extends DurableObject<Env> {
  static kind = "base";
  hello(): number {
    return 1;
  }
}
export class Agent2 extends withWorkspace(Base, (self) => ({
  storage: self.ctx.storage,
  sessionId: String(self.hello()),
})) {}
export const kind: string = Agent2.kind;

export async function client(env: Env): Promise<string> {
  using ws = await getWorkspace(env.NS.get(env.NS.idFromName("x")));
  return ws.fs.readFile("/a", "utf8");
}

// exec's result types follow the encoding: strings for utf8 and templates, bytes without.
export async function exec(workspace: Workspace): Promise<[string, Uint8Array, string, number, number]> {
  const text = await (await workspace.runtime.exec("ls", { encoding: "utf8" })).result();
  const bytes = await (await workspace.runtime.exec("ls")).result();
  const template = await (await workspace.runtime.exec`echo ${"a b"}`).result();
  const pushed: number = await workspace.push();
  const { applied } = await workspace.pull("default");
  return [text.stdout.trim(), bytes.stdout, template.stderr, pushed, applied];
}

// The tools over a getWorkspace() client (fs over RPC), with the backends named for exec.
export async function tools(env: Env): Promise<string[]> {
  using ws = await getWorkspace(env.NS.get(env.NS.idFromName("x")));
  const set = createAITools({
    workspace: ws,
    shell: { backends: { "worker-shell": { description: "bash" } } },
  });
  return Object.keys(set);
}

// The client's runtime is typed by encoding as well; its Think methods are optional members, not a union to narrow.
export async function clientExec(env: Env): Promise<[string, Uint8Array, number, string | null | undefined]> {
  using ws = await getWorkspace(env.NS.get(env.NS.idFromName("x")));
  const text = await (await ws.runtime.exec`cat ${"/a b"}`).result();
  const bytes = await (await ws.runtime.exec("ls", { id: "ls-1" })).result();
  let code = -1;
  for await (const event of await ws.runtime.getExec("ls-1")) if (event.name === "exit") code = event.code;
  return [text.stdout.trim(), bytes.stdout, code, await ws.readFile?.("/notes.md")];
}

// find's entry type is declared as the original declares it, so code annotated with it compiles
// (a link is still listed as "symlink" at run time, with either package).
export async function findKinds(workspace: Workspace): Promise<Array<"file" | "dir">> {
  const entries: Array<{ path: string; type: "file" | "dir" }> = await workspace.fs.find("/");
  return entries.map((entry) => entry.type);
}

// Options held in a variable of the original's `WorkspaceRuntimeExecOptions<"utf8">` type the output as strings,
// as the original's overload does.
export async function execWithOptions(
  workspace: Workspace,
  options: WorkspaceRuntimeExecOptions<"utf8">,
): Promise<string> {
  return (await (await workspace.runtime.exec("ls", options)).result()).stdout.trim();
}

// withWorkspace returns the base class itself, hosting a Workspace: `Base & …` as in the original.
export const hosted: typeof Base = withWorkspace(Base, (self) => ({ storage: self.ctx.storage }));
