/**
 * `getWorkspace(handle)`: one client shape for a Workspace wherever it lives.
 *
 * - In the same isolate (a `withWorkspace` Durable Object passing itself, or
 *   `runInDurableObject`'s instance) the client calls the Workspace directly
 *   and disposing it does nothing.
 * - Anywhere else (a DO stub, a `WorkspaceServiceProxy` in a Dynamic Worker)
 *   it asks for a `WorkspaceStub` over Workers RPC and wraps it: the child
 *   stubs are fetched once, fs errors get their class back, and execution
 *   handles are rebuilt as `ExecHandle`-like streams (remote-handle.ts).
 *   Disposing the client releases every stub it holds.
 *
 * This file is runtime-neutral: it knows the Workspace and its stubs only by
 * shape, so it type-checks without `cloudflare:workers`.
 */
import type { WorkspaceFilesystem } from "@cloudflare/dofs";
import type { ArtifactClient } from "../artifacts/artifact.js";
import type { WorkspaceAssetsPublisher, WorkspaceGit } from "../contracts/capabilities.js";
import {
  localFilesystem,
  type RemoteFilesystem,
  rebuildFsError,
  remoteFilesystem,
  type WorkspaceClientFilesystem,
} from "../contracts/fs-client.js";
import { type ShellValue, sh } from "../contracts/sh.js";
import type { WorkspaceRuntimeExecHandle } from "../runtime/handle.js";
import type { WorkspaceRuntime } from "../runtime/runtime.js";
import type {
  ExecEncoding,
  ExecOptions,
  GetExecOptions,
  KillSignal,
  RuntimeExecOptions,
  RuntimeGetOptions,
  RuntimeKillOptions,
} from "../runtime/types.js";
import { RemoteExecHandle, type RemoteExecHandleStub } from "./remote-handle.js";
import { type ThinkWorkspaceCompatibility, thinkMethods } from "./think.js";

/**
 * Where `withWorkspace` keeps a Durable Object's Workspace. Module-private in
 * spirit: exported only so with-workspace can set it. Symbols do not cross
 * RPC, so finding one proves the Workspace is in this isolate.
 */
/** The Artifacts client as a `getWorkspace()` client offers it, in isolate or over RPC (the original's stub has no `sessionId`). */
export type WorkspaceClientArtifacts = Omit<ArtifactClient, "sessionId">;

export const WORKSPACE_INSTANCE: unique symbol = Symbol("@cloudflare/computer.workspace");

/** What the in-isolate client needs of a Workspace. */
export interface LocalWorkspace {
  readonly fs: WorkspaceFilesystem;
  readonly runtime: WorkspaceRuntime;
  readonly git: WorkspaceGit;
  readonly assets: WorkspaceAssetsPublisher | undefined;
  readonly artifacts: ArtifactClient;
  readonly useThink: boolean;
  ready(): Promise<void>;
}

/**
 * Anything `getWorkspace` accepts: a `withWorkspace` Durable Object (the
 * instance itself, or its stub), a `WorkspaceServiceProxy` stub, or any
 * object with `__getWorkspaceStub()`. As wide as the original's
 * `{ [WORKSPACE]?: unknown } | WorkspaceStubHost`, which takes any object
 * too; what it is is checked at run time, with a TypeError saying what is
 * missing.
 */
export type WorkspaceHandle = object;

/**
 * `getWorkspace(...).runtime`: the original's overloads. A tagged template
 * is shell-quoted here, before anything is sent, and decodes utf8; a UUID id
 * is assigned when none is given.
 */
export interface WorkspaceRuntimeClient {
  exec(strings: TemplateStringsArray, ...values: ShellValue[]): Promise<WorkspaceRuntimeExecHandle<"utf8">>;
  exec(source: string): Promise<WorkspaceRuntimeExecHandle<undefined>>;
  exec(source: string, options: RuntimeExecOptions & { encoding: "utf8" }): Promise<WorkspaceRuntimeExecHandle<"utf8">>;
  exec(
    source: string,
    options: RuntimeExecOptions & { encoding?: undefined },
  ): Promise<WorkspaceRuntimeExecHandle<undefined>>;
  exec(source: string, options: RuntimeExecOptions): Promise<WorkspaceRuntimeExecHandle<ExecEncoding>>;
  getExec(id: string): Promise<WorkspaceRuntimeExecHandle<undefined>>;
  getExec(id: string, options: RuntimeGetOptions & { encoding: "utf8" }): Promise<WorkspaceRuntimeExecHandle<"utf8">>;
  getExec(id: string, options?: RuntimeGetOptions): Promise<WorkspaceRuntimeExecHandle<ExecEncoding>>;
  killExec(id: string, options?: RuntimeKillOptions): Promise<void>;
  disposeExec(id: string, options?: { backend?: string }): Promise<void>;
}

/** Our earlier name for the client's runtime. */
export type WorkspaceClientRuntime = WorkspaceRuntimeClient;

/**
 * What `getWorkspace` returns, one shape wherever the Workspace lives. The
 * Think methods are there when the workspace was built with `useThink: true`
 * (`client.useThink` says so), as in the original.
 */
export interface WorkspaceClient extends Partial<ThinkWorkspaceCompatibility> {
  readonly fs: WorkspaceClientFilesystem;
  readonly runtime: WorkspaceRuntimeClient;
  /** The git CLI; calls fail with the not-configured error when the workspace has no git. */
  readonly git: WorkspaceGit;
  /** Undefined when the workspace has no assets client. */
  readonly assets: WorkspaceAssetsPublisher | undefined;
  /** The workspace's Artifacts client (all but `sessionId`); calls fail with ENOCONFIG without a binding. */
  readonly artifacts: WorkspaceClientArtifacts;
  /** Whether the Think methods are there. */
  readonly useThink: boolean;
  /** Releases the RPC stubs (a no-op for an in-isolate client). */
  [Symbol.dispose](): void;
}

type WorkspaceClientBase = Omit<WorkspaceClient, keyof ThinkWorkspaceCompatibility | "useThink">;

export async function getWorkspace(handle: WorkspaceHandle): Promise<WorkspaceClient> {
  if ((typeof handle !== "object" && typeof handle !== "function") || handle === null) {
    throw new TypeError("getWorkspace(handle) needs a withWorkspace Durable Object, its stub, or a workspace proxy");
  }
  const local = (handle as { [WORKSPACE_INSTANCE]?: unknown })[WORKSPACE_INSTANCE];
  if (typeof local === "object" && local !== null) {
    const workspace = local as LocalWorkspace;
    await workspace.ready();
    return localClient(workspace);
  }
  const host = handle as { __getWorkspaceStub?: unknown };
  if (typeof host.__getWorkspaceStub !== "function") {
    throw new TypeError(
      "getWorkspace(handle): the handle has no __getWorkspaceStub(); wrap the class in withWorkspace",
    );
  }
  return remoteClient((await (host as { __getWorkspaceStub(): unknown }).__getWorkspaceStub()) as RemoteWorkspaceStub);
}

function localClient(workspace: LocalWorkspace): WorkspaceClient {
  const { runtime } = workspace;
  const local = {
    exec: (
      first: string | TemplateStringsArray,
      ...rest: unknown[]
    ): Promise<WorkspaceRuntimeExecHandle<ExecEncoding>> => {
      const { source, options } = execArguments(first, rest);
      return runtime.exec(source, options);
    },
    getExec: (id: string, options?: GetExecOptions): Promise<WorkspaceRuntimeExecHandle<ExecEncoding>> =>
      runtime.getExec(id, options),
    killExec: (id: string, options?: RuntimeKillOptions) => runtime.killExec(id, options),
    disposeExec: (id: string, options?: { backend?: string }) => runtime.disposeExec(id, options),
  };
  const base: WorkspaceClientBase = {
    fs: localFilesystem(workspace.fs),
    // One implementation behind the overloads: the encoding option decides the handle's chunk type at run time.
    runtime: local as WorkspaceRuntimeClient,
    // The Workspace getters throw when unconfigured: read them per call, in an async function, so the
    // client always builds and the failure is a rejection of the call, as it is over RPC.
    git: { cli: async (request) => workspace.git.cli(request) },
    assets: workspace.assets,
    artifacts: workspace.artifacts,
    [Symbol.dispose]: () => {},
  };
  if (workspace.useThink) return { ...base, useThink: true, ...thinkMethods(workspace.fs) };
  return { ...base, useThink: false };
}

/**
 * A thenable for a property read over RPC, or the value itself. Calls on a
 * stub return such thenables too; the client always awaits them inside its
 * own async functions; handing one straight back leaves a second, internal
 * rejection that workerd reports as unhandled when the call fails.
 */
type Remote<T> = T | PromiseLike<T>;

interface RemoteRuntimeStub {
  exec(source: string, options: ExecOptions): Promise<RemoteHandleStub>;
  getExec(id: string, options?: GetExecOptions): Promise<RemoteHandleStub>;
  killExec(id: string, options?: { backend?: string; signal?: KillSignal }): Promise<void>;
  disposeExec(id: string, options?: { backend?: string }): Promise<void>;
  [Symbol.dispose](): void;
}

interface RemoteHandleStub extends RemoteExecHandleStub {
  readonly backend: Remote<string>;
}

interface RemoteCliStub<T> {
  cli(request: T): ReturnType<WorkspaceGit["cli"]>;
  [Symbol.dispose](): void;
}

interface RemoteAssetsStub extends WorkspaceAssetsPublisher {
  [Symbol.dispose](): void;
}

/** A `WorkspaceStub` as this side of RPC sees it: getters are read by awaiting them. */
interface RemoteWorkspaceStub extends ThinkWorkspaceCompatibility {
  readonly fs: Remote<RemoteFilesystem & { [Symbol.dispose](): void }>;
  readonly runtime: Remote<RemoteRuntimeStub>;
  readonly git: Remote<RemoteCliStub<Parameters<WorkspaceGit["cli"]>[0]>>;
  /** `assets`, null when unset: RPC cannot read a property that is undefined (see `WorkspaceStub.assets`). */
  readonly assetsOrNull: Remote<RemoteAssetsStub | null>;
  readonly artifacts: Remote<WorkspaceClientArtifacts & { [Symbol.dispose](): void }>;
  readonly useThink: Remote<boolean>;
  [Symbol.dispose](): void;
}

async function remoteClient(stub: RemoteWorkspaceStub): Promise<WorkspaceClient> {
  const held: Array<{ [Symbol.dispose](): void } | undefined> = [];
  let released = false;
  const release = (): void => {
    if (released) return;
    released = true;
    for (const child of [...held, stub]) {
      try {
        child?.[Symbol.dispose]();
      } catch {
        // A stub already gone (its session ended) needs no releasing.
      }
    }
  };
  let children: [
    Awaited<RemoteWorkspaceStub["fs"]>,
    Awaited<RemoteWorkspaceStub["runtime"]>,
    Awaited<RemoteWorkspaceStub["git"]>,
    Awaited<RemoteWorkspaceStub["assetsOrNull"]>,
    Awaited<RemoteWorkspaceStub["artifacts"]>,
    boolean,
  ];
  try {
    // Each read settles on its own so a failure still leaves every stub that did arrive in `held`.
    const reads = [stub.fs, stub.runtime, stub.git, stub.assetsOrNull, stub.artifacts, stub.useThink].map(
      async (read) => {
        const value = await read;
        if (typeof value === "object" && value !== null) held.push(value as { [Symbol.dispose](): void });
        return value;
      },
    );
    const settled = await Promise.allSettled(reads);
    const failed = settled.find((outcome) => outcome.status === "rejected");
    if (failed) throw failed.reason;
    children = settled.map((outcome) => (outcome as PromiseFulfilledResult<unknown>).value) as typeof children;
  } catch (error) {
    release();
    throw error;
  }
  const [fs, runtime, git, assets, artifacts, useThink] = children;

  const handle = (remote: RemoteHandleStub, id: string, backend: string): WorkspaceRuntimeExecHandle<ExecEncoding> =>
    new RemoteExecHandle(remote, {
      id,
      backend,
      kill: async (signal) => {
        await runtime.killExec(id, { backend, ...(signal === undefined ? {} : { signal }) });
      },
    });
  // The backend is known up front when the caller named it; otherwise it is one more read from the handle stub.
  const backendOf = async (remote: RemoteHandleStub, requested: string | undefined): Promise<string> => {
    try {
      return requested ?? (await remote.backend);
    } catch (error) {
      remote[Symbol.dispose]();
      throw error;
    }
  };

  const remoteRuntime = {
    exec: async (first: string | TemplateStringsArray, ...rest: unknown[]) => {
      const { source, options } = execArguments(first, rest);
      const remote = await runtime.exec(source, options);
      return handle(remote, options.id, await backendOf(remote, options.backend));
    },
    getExec: async (id: string, options: GetExecOptions = {}) => {
      const remote = await runtime.getExec(id, options);
      return handle(remote, id, await backendOf(remote, options.backend));
    },
    killExec: async (id: string, options?: RuntimeKillOptions) => {
      await runtime.killExec(id, options);
    },
    disposeExec: async (id: string, options?: { backend?: string }) => {
      await runtime.disposeExec(id, options);
    },
  };
  const base: WorkspaceClientBase = {
    fs: remoteFilesystem(fs),
    runtime: remoteRuntime as WorkspaceRuntimeClient,
    git: { cli: async (request) => await git.cli(request) },
    assets: assets === null ? undefined : { publish: async (path, options) => await assets.publish(path, options) },
    artifacts: {
      create: async (name, options) => await artifacts.create(name, options),
      get: async (name) => await artifacts.get(name),
      list: async () => await artifacts.list(),
      import: async (name, source, options) => await artifacts.import(name, source, options),
      delete: async (name) => await artifacts.delete(name),
      createToken: async (name, scope, ttl) => await artifacts.createToken(name, scope, ttl),
      listTokens: async (name) => await artifacts.listTokens(name),
      getToken: async (name, id) => await artifacts.getToken(name, id),
      revokeToken: async (name, tokenOrId) => await artifacts.revokeToken(name, tokenOrId),
      cli: async (request) => await artifacts.cli(request),
    },
    [Symbol.dispose]: release,
  };
  if (!useThink) return { ...base, useThink: false };
  const think: ThinkWorkspaceCompatibility = {
    readFile: (path) => rethrow(stub.readFile(path)),
    readFileBytes: (path) => rethrow(stub.readFileBytes(path)),
    writeFile: (path, content, mimeType) => rethrow(stub.writeFile(path, content, mimeType)),
    readDir: (dir, options) => rethrow(stub.readDir(dir, options)),
    rm: (path, options) => rethrow(stub.rm(path, options)),
    glob: (pattern) => rethrow(stub.glob(pattern)),
    mkdir: (path, options) => rethrow(stub.mkdir(path, options)),
    stat: (path) => rethrow(stub.stat(path)),
  };
  return { ...base, useThink: true, ...think };
}

async function rethrow<T>(call: Promise<T>): Promise<T> {
  try {
    return await call;
  } catch (error) {
    throw rebuildFsError(error);
  }
}

/** `exec`'s two call shapes as `(source, options)`, with the id always set. */
function execArguments(
  first: string | TemplateStringsArray,
  rest: unknown[],
): { source: string; options: ExecOptions & { id: string } } {
  const isTemplate = typeof first === "object" && first !== null && Array.isArray((first as TemplateStringsArray).raw);
  const source = isTemplate ? sh(first as TemplateStringsArray, ...(rest as ShellValue[])) : first;
  if (typeof source !== "string") throw new TypeError("exec source must be a string or a tagged template");
  const options: unknown = isTemplate ? { encoding: "utf8" } : (rest[0] ?? {});
  if (typeof options !== "object" || options === null) throw new TypeError("exec options must be an object");
  const given = options as ExecOptions;
  return { source, options: { ...given, id: given.id ?? crypto.randomUUID() } };
}
