/**
 * Mount roots checked at construction, and indexing: what `ready()` runs.
 * All pending mounts materialize in parallel in one pass (concurrent
 * `ready()` calls share it). Each root is recorded read-write and created
 * first, so materializing can write into it; afterwards the configured mode
 * is set, `indexed` recorded and `mount_root` stamped on the subtree. A mount
 * that throws or exceeds its caps is removed (`rm -rf` of the root) and left
 * unindexed, and the pass rethrows. A mount indexed once is never indexed
 * again in that store: upstream changes are not picked up.
 */
import {
  type MountAccess,
  mountState,
  normalizePath,
  setMount,
  stampMountRoot,
  type WorkspaceFilesystem,
} from "@cloudflare/dofs";
import type { MaterializeContext, Mount, MountData, MountFactoryContext, MountsOption } from "./types.js";

export interface ResolvedMount {
  root: string;
  kind: string;
  mode: MountAccess;
  mount: Mount;
}

function isAtOrUnder(path: string, root: string): boolean {
  return path === root || root === "/" || path.startsWith(`${root}/`);
}

/** Validates roots and calls factories. Throws on a relative, non-normal (trailing `/`, `//`, `..`) or nested root. */
export function resolveMounts(
  mounts: MountsOption | undefined,
  context: Omit<MountFactoryContext, "root">,
): ResolvedMount[] {
  if (mounts === undefined) return [];
  if (typeof mounts !== "object" || mounts === null || Array.isArray(mounts)) {
    throw new TypeError("mounts must be an object keyed by mount root");
  }
  const roots = Object.keys(mounts);
  for (const root of roots) {
    if (!root.startsWith("/")) throw new Error(`Mount root ${JSON.stringify(root)} must be an absolute path`);
    if (root !== "/" && root.endsWith("/")) throw new Error(`Mount root ${JSON.stringify(root)} must not end with "/"`);
    if (normalizePath(root, "mount") !== root) {
      throw new Error(`Mount root ${JSON.stringify(root)} must be normalized (no "//", "." or "..")`);
    }
  }
  for (const a of roots) {
    for (const b of roots) {
      if (a !== b && isAtOrUnder(b, a))
        throw new Error(`Mount roots ${JSON.stringify(a)} and ${JSON.stringify(b)} are nested`);
    }
  }
  return roots.map((root) => {
    const option = mounts[root];
    const mount = typeof option === "function" ? option({ ...context, root }) : option;
    if (mount?.strategy !== "eager" || typeof mount.materialize !== "function") {
      throw new TypeError(`Mount ${JSON.stringify(root)} must be { strategy: "eager", materialize }`);
    }
    return { root, kind: mount.kind ?? "custom", mode: mount.mode ?? "read-only", mount };
  });
}

class CapExceeded extends Error {
  override readonly name = "MountCapExceeded";
}

/** The context one mount writes through: confined to its root, counting against its caps. */
function contextFor(fs: WorkspaceFilesystem, resolved: ResolvedMount): MaterializeContext {
  const { root, mount } = resolved;
  const made = new Set<string>([root]);
  let entries = 0;
  let bytes = 0;
  const inside = (path: string, syscall: string): string => {
    const p = normalizePath(path, syscall);
    if (!isAtOrUnder(p, root)) throw new Error(`Mount ${root}: ${p} is outside the mount root`);
    return p;
  };
  const count = (n: number, size: number): void => {
    entries += n;
    bytes += size;
    if (mount.maxEntries !== undefined && entries > mount.maxEntries) {
      throw new CapExceeded(`Mount ${root} has more than maxEntries (${mount.maxEntries}) entries`);
    }
    if (mount.maxBytes !== undefined && bytes > mount.maxBytes) {
      throw new CapExceeded(`Mount ${root} has more than maxBytes (${mount.maxBytes}) bytes`);
    }
  };
  const parents = async (p: string): Promise<void> => {
    const parent = p.slice(0, p.lastIndexOf("/")) || "/";
    if (made.has(parent)) return;
    await fs.mkdir(parent, { recursive: true });
    for (let at = parent; at.length > root.length; at = at.slice(0, at.lastIndexOf("/")) || "/") made.add(at);
  };
  const counted = (data: MountData): MountData => {
    if (!(data instanceof ReadableStream)) {
      count(0, typeof data === "string" ? new TextEncoder().encode(data).byteLength : data.byteLength);
      return data;
    }
    return data.pipeThrough(
      new TransformStream<Uint8Array, Uint8Array>({
        transform(chunk, controller) {
          count(0, chunk.byteLength);
          controller.enqueue(chunk);
        },
      }),
    );
  };
  return {
    root,
    async writeFile(path, data, mode) {
      const p = inside(path, "open");
      count(1, 0);
      await parents(p);
      await fs.writeFile(p, counted(data), mode === undefined ? {} : { mode });
    },
    async mkdir(path, mode) {
      const p = inside(path, "mkdir");
      if (made.has(p)) return;
      count(1, 0);
      await parents(p);
      await fs.mkdir(p, { recursive: true, ...(mode === undefined ? {} : { mode }) });
      made.add(p);
    },
  };
}

async function removeRoot(fs: WorkspaceFilesystem, root: string): Promise<void> {
  if (root !== "/") {
    await fs.rm(root, { recursive: true, force: true });
    return;
  }
  for (const entry of await fs.readdir("/")) await fs.rm(`/${entry.name}`, { recursive: true, force: true });
}

export async function indexMounts(fs: WorkspaceFilesystem, mounts: readonly ResolvedMount[]): Promise<void> {
  if (mounts.length === 0) return;
  const db = fs.db; // through fs: creates the schema on a fresh store
  const pending = mounts.filter((m) => mountState(db, m.root)?.indexed !== true);
  for (const m of pending) {
    setMount(db, m.root, m.kind, "read-write", false);
    if (m.root !== "/") await fs.mkdir(m.root, { recursive: true });
  }
  const outcomes = await Promise.allSettled(pending.map((m) => m.mount.materialize(contextFor(fs, m))));
  const failures: unknown[] = [];
  for (const [i, outcome] of outcomes.entries()) {
    const m = pending[i] as ResolvedMount;
    if (outcome.status === "fulfilled") {
      stampMountRoot(db, m.root);
      setMount(db, m.root, m.kind, m.mode, true);
    } else {
      failures.push(outcome.reason);
      await removeRoot(fs, m.root);
      setMount(db, m.root, m.kind, "read-write", false);
    }
  }
  if (failures.length === 1) throw failures[0];
  if (failures.length > 1) throw new AggregateError(failures, `${failures.length} mounts failed to index`);
}
