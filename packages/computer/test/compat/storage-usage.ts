/**
 * Storage, provider and mount code written against the published
 * @cloudflare/computer@0.2.1, compiled against ours (part of
 * `tsconfig.compat.json`). The per-name fixtures cannot pass for
 * `SQLiteWorkspaceProvider`, `MountContext` and `MountFactory`: the
 * original's provider has `db: Database`, a class with `#private` fields,
 * which no other declaration can satisfy. So the provider's members are
 * checked here one by one, the nominal `db` and two deliberate differences
 * aside: the reads return bytes as `Uint8Array` (a `Buffer` where the
 * platform has one), and there is no `watch` (`supportsWatch` is false,
 * `watch` is ENOSYS; docs/migration.md).
 */
import type * as R from "computer-reference";
import { type MountContext, R2Bucket, type SQLiteWorkspaceProvider, Workspace } from "../../src/index.js";
import type { Assignable, Fits, Public } from "./check.js";

type Differences = "db" | "readFile" | "readFileSync" | "readRangeSync" | "supportsWatch" | "watch" | "watchAsync";
type Members<T> = Omit<Public<T>, Differences>;

// Every other member of the original's provider is on ours, with a type its callers accept.
type _ProviderMembers = Fits<Assignable<Members<SQLiteWorkspaceProvider>, Members<R.SQLiteWorkspaceProvider>>>;
// Its options and ours are the same both ways.
type _ProviderOptions = Fits<
  Assignable<
    ConstructorParameters<typeof R.SQLiteWorkspaceProvider>[1],
    ConstructorParameters<typeof SQLiteWorkspaceProvider>[1]
  >
>;
// A mount factory's context has the original's fields, `vfs` the provider.
type _MountContext = Fits<Assignable<Omit<MountContext, "vfs">, Omit<R.MountContext, "vfs">>>;
type _MountVfs = Fits<Assignable<Members<MountContext["vfs"]>, Members<R.MountContext["vfs"]>>>;

interface Env {
  BUCKET: R2Bucket;
}

// A Workspace over a storage of the original's shape, a factory that reads through `vfs`, and `provider()`.
export function workspace(storage: R.DurableObjectStorageLike, env: Env): [Workspace, number] {
  const ws = new Workspace({
    storage,
    mounts: {
      "/data": (ctx) => {
        const seen: string[] = ctx.vfs.existsSync(ctx.root) ? ctx.vfs.readdirSync(ctx.root).map(String) : [];
        return R2Bucket(env.BUCKET, { prefix: `${ctx.sessionId}/${seen.length}` });
      },
    },
  });
  const provider: SQLiteWorkspaceProvider = ws.provider();
  provider.mkdirSync("/workspace", { recursive: true });
  provider.writeFileSync("/workspace/a.txt", "hello");
  return [ws, provider.statSync("/workspace/a.txt").size];
}
