/**
 * Per-path locks for the mutating tools. A model may issue `edit` and `write`
 * on one file in the same step, and the AI SDK runs a step's tool calls
 * concurrently; without a lock the edit's read-modify-write would silently
 * drop the write. Locks live in memory, keyed by the store's `lockIdentity`
 * (for `WorkspaceFileStore` that is `workspace.fs`), so separately created
 * tool sets over one workspace share them. They are per isolate: another
 * isolate writing the same Durable Object is not serialized (there is none
 * today, the DO is single-threaded apart from awaits).
 *
 * Waiters are served in arrival order: a new lock waits for every earlier
 * lock it conflicts with. A subtree lock (recursive delete) conflicts with
 * locks on the path, its ancestors and its descendants.
 */

interface Held {
  path: string;
  subtree: boolean;
  released: Promise<void>;
}

const tables = new WeakMap<object, Held[]>();

function isAtOrUnder(path: string, root: string): boolean {
  return path === root || root === "/" || path.startsWith(`${root}/`);
}

function conflicts(a: Held, path: string, subtree: boolean): boolean {
  if (a.path === path) return true;
  if (a.subtree && isAtOrUnder(path, a.path)) return true;
  if (subtree && (isAtOrUnder(a.path, path) || isAtOrUnder(path, a.path))) return true;
  return false;
}

export interface LockOptions {
  /** Lock the whole subtree below `path` too (recursive delete). */
  subtree?: boolean;
}

/** Runs `body` while holding the lock on `path` (normalized, absolute) within `identity`'s table. */
export async function withPathLock<T>(
  identity: object,
  path: string,
  options: LockOptions,
  body: () => Promise<T>,
): Promise<T> {
  const subtree = options.subtree === true;
  let table = tables.get(identity);
  if (!table) {
    table = [];
    tables.set(identity, table);
  }
  const before = table.filter((held) => conflicts(held, path, subtree)).map((held) => held.released);
  let release!: () => void;
  const entry: Held = { path, subtree, released: new Promise<void>((resolve) => (release = resolve)) };
  table.push(entry);
  try {
    await Promise.all(before);
    return await body();
  } finally {
    const index = table.indexOf(entry);
    if (index >= 0) table.splice(index, 1);
    release();
  }
}
