/**
 * Moves repositories between the dofs store and the real disk, so real
 * `git` can check what workspace git wrote and workspace git can read what
 * real git wrote. Modes (the exec bit) and symlinks are kept.
 */
import {
  chmodSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import type { WorkspaceFilesystem } from "@cloudflare/dofs";

/** Copies the dofs tree under `from` into the disk directory `to`. */
export async function materialize(fs: WorkspaceFilesystem, from: string, to: string): Promise<void> {
  mkdirSync(to, { recursive: true });
  for (const entry of await fs.readdir(from)) {
    const source = from === "/" ? `/${entry.name}` : `${from}/${entry.name}`;
    const target = join(to, entry.name);
    if (entry.isDirectory) await materialize(fs, source, target);
    else if (entry.isSymbolicLink) symlinkSync(await fs.readlink(source), target);
    else {
      const stat = await fs.stat(source);
      const bytes = new Uint8Array(await new Response(await fs.readFile(source)).arrayBuffer());
      writeFileSync(target, bytes);
      chmodSync(target, stat.mode);
    }
  }
}

/** Copies the disk directory `from` into the dofs tree at `to`. */
export async function ingest(from: string, fs: WorkspaceFilesystem, to: string): Promise<void> {
  await fs.mkdir(to, { recursive: true });
  for (const name of readdirSync(from)) {
    const source = join(from, name);
    const target = to === "/" ? `/${name}` : `${to}/${name}`;
    const stat = lstatSync(source);
    if (stat.isDirectory()) await ingest(source, fs, target);
    else if (stat.isSymbolicLink()) await fs.symlink(readlinkSync(source), target);
    else await fs.writeFile(target, new Uint8Array(readFileSync(source)), { mode: stat.mode & 0o7777 });
  }
}
