/**
 * `OutputStore` over the Workspace's SQLite provider: synchronous calls on
 * the Durable Object's own storage, so a save never leaves the isolate.
 */
import type { SQLiteWorkspaceProvider } from "@cloudflare/dofs";
import type { OutputStore } from "./spill.js";

export function providerOutputStore(provider: () => SQLiteWorkspaceProvider): OutputStore {
  return {
    mkdirp: (dir) => {
      provider().mkdirSync(dir, { recursive: true });
    },
    create: (path) => provider().writeFileSync(path, new Uint8Array(0)),
    append: (path, bytes) => provider().appendFileSync(path, bytes),
    list: (dir) => {
      const vfs = provider();
      const names = vfs.readdirSync(dir) as string[];
      return names.map((name) => ({ name, mtimeMs: vfs.lstatSync(`${dir === "/" ? "" : dir}/${name}`).mtimeMs }));
    },
    remove: (path) => provider().unlinkSync(path),
  };
}
