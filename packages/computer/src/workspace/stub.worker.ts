/**
 * The Workers RPC surface of a Workspace. `workspace.stub()` (and a
 * `withWorkspace` DO's `__getWorkspaceStub()`) hands a `WorkspaceStub` to
 * another isolate; its getters hand out one child stub per capability.
 *
 * Workers RPC exposes only prototype methods and getters of an `RpcTarget`
 * (never own properties), so everything here is a method or a getter.
 * Disposing a stub disposes the stubs it handed out (see DisposableStub).
 * Methods are async so that every failure is a rejection: workerd reports a
 * synchronous throw out of an RPC method as an uncaught exception.
 * Byte streams are the only streams RPC carries: execution events go out as
 * NDJSON (runtime/wire.ts) and are rebuilt into an `ExecHandle`-like stream by the
 * client (client.ts).
 */

import type {
  DirEntry,
  FindEntry,
  GrepMatch,
  GrepOptions,
  MkdirOptions,
  PageOptions,
  ReadFileOptions,
  RmOptions,
  Stat,
  WriteData,
  WriteFileOptions,
} from "@cloudflare/dofs";
import { WorkspaceFilesystem } from "@cloudflare/dofs";
import type { ArtifactClient } from "../artifacts/artifact.js";
import { toWorkspaceAssets } from "../assets/workspace-client.js";
import type {
  ArtifactsCliRequest,
  AssetsShareClient,
  GitCliRequest,
  GitCliResult,
  PublishOptions,
  WorkspaceAssetsClient,
  WorkspaceGit,
} from "../contracts/capabilities.js";
import { exists, lstatOrNull, statOrNull, type WorkspaceFilesystemVerbs } from "../contracts/fs-client.js";
import { WorkspaceError } from "../runtime/errors.js";
import type { WorkspaceRuntimeExecHandle } from "../runtime/handle.js";
import { WorkspaceRuntime } from "../runtime/runtime.js";
import type {
  ExecEncoding,
  ExecOptions,
  GetExecOptions,
  KillSignal,
  WorkspaceRuntimeExecOptions,
  WorkspaceRuntimeGetOptions,
  WorkspaceRuntimeResult,
} from "../runtime/types.js";
import { encodeRuntimeEvents } from "../runtime/wire.js";
import { DisposableStub } from "./disposable-stub.worker.js";
import { type ThinkFileInfo, type ThinkFilesystem, type ThinkWorkspaceCompatibility, thinkMethods } from "./think.js";

/**
 * What the filesystem stub calls, structurally: our `WorkspaceFilesystem` (a nominal class) fits, and so
 * does any object with these members, the original's Workspace filesystem included.
 */
export type StubFilesystem = WorkspaceFilesystemVerbs & ThinkFilesystem;

/** What the filesystem stub is built over: a Workspace (anything with such an `fs`) or the filesystem. */
export type FilesystemStubSource = StubFilesystem | { readonly fs: StubFilesystem };

export class WorkspaceFilesystemStub extends DisposableStub {
  readonly #fs: StubFilesystem;

  /** Takes the Workspace, as the original's does, or its filesystem. */
  constructor(source: FilesystemStubSource) {
    super();
    this.#fs = source instanceof WorkspaceFilesystem || !("fs" in source) ? source : source.fs;
  }

  readFile(path: string): Promise<ReadableStream<Uint8Array>>;
  readFile(path: string, encoding: "utf8"): Promise<string>;
  readFile(path: string, options: ReadFileOptions & { encoding?: undefined }): Promise<ReadableStream<Uint8Array>>;
  readFile(path: string, options: ReadFileOptions & { encoding: "utf8" }): Promise<string>;
  readFile(path: string, options: ReadFileOptions): Promise<string | ReadableStream<Uint8Array>>;
  async readFile(path: string, options?: "utf8" | ReadFileOptions): Promise<ReadableStream<Uint8Array> | string> {
    this.live("fs.readFile");
    // One overload per option shape on WorkspaceFilesystem; at run time it takes either.
    return this.#fs.readFile(path, options as ReadFileOptions);
  }

  async writeFile(path: string, data: WriteData, options?: WriteFileOptions): Promise<void> {
    this.live("fs.writeFile");
    return this.#fs.writeFile(path, data, options);
  }

  async mkdir(path: string, options?: MkdirOptions): Promise<void> {
    this.live("fs.mkdir");
    return this.#fs.mkdir(path, options);
  }

  async rm(path: string, options?: RmOptions): Promise<void> {
    this.live("fs.rm");
    return this.#fs.rm(path, options);
  }

  async readdir(path: string, options?: PageOptions): Promise<DirEntry[]> {
    this.live("fs.readdir");
    return this.#fs.readdir(path, options);
  }

  async stat(path: string): Promise<Stat> {
    this.live("fs.stat");
    return this.#fs.stat(path);
  }

  async lstat(path: string): Promise<Stat> {
    this.live("fs.lstat");
    return this.#fs.lstat(path);
  }

  async readlink(path: string): Promise<string> {
    this.live("fs.readlink");
    return this.#fs.readlink(path);
  }

  async chmod(path: string, mode: number): Promise<void> {
    this.live("fs.chmod");
    return this.#fs.chmod(path, mode);
  }

  async symlink(target: string, path: string): Promise<void> {
    this.live("fs.symlink");
    return this.#fs.symlink(target, path);
  }

  async find(dir: string, pattern?: string, options?: PageOptions): Promise<FindEntry[]> {
    this.live("fs.find");
    return this.#fs.find(dir, pattern, options);
  }

  async ls(prefix: string): Promise<string[]> {
    this.live("fs.ls");
    return this.#fs.ls(prefix);
  }

  async grep(pattern: string, path: string, options?: GrepOptions): Promise<GrepMatch[]> {
    this.live("fs.grep");
    return this.#fs.grep(pattern, path, options);
  }

  async exists(path: string): Promise<boolean> {
    this.live("fs.exists");
    return exists(this.#fs, path);
  }

  async statOrNull(path: string): Promise<Stat | null> {
    this.live("fs.statOrNull");
    return statOrNull(this.#fs, path);
  }

  async lstatOrNull(path: string): Promise<Stat | null> {
    this.live("fs.lstatOrNull");
    return lstatOrNull(this.#fs, path);
  }
}

/**
 * One execution over RPC. `result()` and `stream()` are two ways to consume
 * the same events, so each may be called once and only one of them.
 */
export class WorkspaceRuntimeExecHandleStub<E extends ExecEncoding = undefined> extends DisposableStub {
  readonly #handle: WorkspaceRuntimeExecHandle<E>;
  #consumed: "result" | "stream" | undefined;

  /**
   * Throws when the runtime answered for another execution or backend than
   * the one requested (a backend that ignored the id it was given).
   */
  constructor(handle: WorkspaceRuntimeExecHandle<E>, requested: { id?: string; backend?: string } = {}) {
    super();
    if (requested.id !== undefined && handle.id !== requested.id) {
      throw new Error(`backend ran exec as ${handle.id}, not the requested id ${requested.id}`);
    }
    if (requested.backend !== undefined && handle.backend !== requested.backend) {
      throw new Error(
        `Execution "${handle.id}": asked for backend "${requested.backend}" but it runs on "${handle.backend}"`,
      );
    }
    this.#handle = handle;
  }

  get id(): string {
    return this.#handle.id;
  }

  get backend(): string {
    return this.#handle.backend;
  }

  async result(): Promise<WorkspaceRuntimeResult<E>> {
    this.#consume("result");
    return this.#handle.result();
  }

  /**
   * The events as NDJSON bytes (the runtime wire, runtime/wire.ts), one line
   * per event. Not async, as in the original: a refusal (a second consumer,
   * a disposed stub) is thrown, which the caller across RPC receives as a
   * rejection with this message (an errored stream would arrive only as
   * "disconnected prematurely").
   */
  stream(): ReadableStream<Uint8Array> {
    this.#consume("stream");
    return encodeRuntimeEvents(this.#handle);
  }

  async kill(signal?: KillSignal): Promise<void> {
    this.live("exec.kill");
    return this.#handle.kill(signal);
  }

  /** Detaches from the events when nothing consumed them; the execution keeps running. */
  protected override released(): void {
    if (this.#consumed === undefined) this.#handle[Symbol.dispose]();
  }

  #consume(way: "result" | "stream"): void {
    this.live(`exec.${way}`);
    if (this.#consumed !== undefined) {
      throw new TypeError(
        `Execution "${this.#handle.id}": ${way}() cannot be called after ${this.#consumed}() over RPC; each handle is consumed once`,
      );
    }
    this.#consumed = way;
  }
}

/**
 * What the runtime stub calls, structurally: our `WorkspaceRuntime` (a nominal class) fits, and so does
 * any runtime with these members, the original's included (it has no `backends`).
 */
export interface StubRuntime extends Pick<WorkspaceRuntime, "killExec" | "disposeExec" | "isCallable"> {
  exec(source: string, options: ExecOptions): Promise<WorkspaceRuntimeExecHandle<ExecEncoding>>;
  getExec(id: string, options: GetExecOptions): Promise<WorkspaceRuntimeExecHandle<ExecEncoding>>;
  readonly backends?: string[];
}

/** What the runtime stub needs of a Workspace: the runtime, or a Workspace holding one. */
export type RuntimeStubSource = StubRuntime | { readonly runtime: StubRuntime };

export class WorkspaceRuntimeStub extends DisposableStub {
  readonly #runtime: StubRuntime;

  /** Takes the Workspace, as the original's does, or its runtime. */
  constructor(source: RuntimeStubSource) {
    super();
    this.#runtime = source instanceof WorkspaceRuntime || !("runtime" in source) ? source : source.runtime;
  }

  /** Backend ids, the default first (none known for a runtime that does not list them). */
  get backends(): string[] {
    return this.#runtime.backends ?? [];
  }

  exec(source: string): Promise<WorkspaceRuntimeExecHandleStub<undefined>>;
  exec(source: string, options: WorkspaceRuntimeExecOptions<"utf8">): Promise<WorkspaceRuntimeExecHandleStub<"utf8">>;
  exec(
    source: string,
    options: WorkspaceRuntimeExecOptions<undefined>,
  ): Promise<WorkspaceRuntimeExecHandleStub<undefined>>;
  exec(source: string, options?: ExecOptions): Promise<WorkspaceRuntimeExecHandleStub<ExecEncoding>>;
  async exec(source: string, options: ExecOptions = {}): Promise<WorkspaceRuntimeExecHandleStub<ExecEncoding>> {
    this.live("runtime.exec");
    // The id is fixed here so the handle can be checked against it (the runtime would mint one as well).
    const id = options.id ?? crypto.randomUUID();
    const handle = await this.#runtime.exec(source, { ...options, id });
    return this.adopt(handleStub(handle, { id, backend: options.backend }));
  }

  getExec(id: string): Promise<WorkspaceRuntimeExecHandleStub<undefined>>;
  getExec(id: string, options: WorkspaceRuntimeGetOptions<"utf8">): Promise<WorkspaceRuntimeExecHandleStub<"utf8">>;
  getExec(
    id: string,
    options: WorkspaceRuntimeGetOptions<undefined>,
  ): Promise<WorkspaceRuntimeExecHandleStub<undefined>>;
  getExec(id: string, options?: GetExecOptions): Promise<WorkspaceRuntimeExecHandleStub<ExecEncoding>>;
  async getExec(id: string, options: GetExecOptions = {}): Promise<WorkspaceRuntimeExecHandleStub<ExecEncoding>> {
    this.live("runtime.getExec");
    return this.adopt(handleStub(await this.#runtime.getExec(id, options), { id, backend: options.backend }));
  }

  async killExec(id: string, options?: { backend?: string; signal?: KillSignal }): Promise<void> {
    this.live("runtime.killExec");
    return this.#runtime.killExec(id, options);
  }

  async disposeExec(id: string, options?: { backend?: string }): Promise<void> {
    this.live("runtime.disposeExec");
    return this.#runtime.disposeExec(id, options);
  }

  async isCallable(backend: string): Promise<boolean> {
    this.live("runtime.isCallable");
    return this.#runtime.isCallable(backend);
  }
}

/** A mismatched handle is detached before the error goes back, so its events are not left pending. */
function handleStub<E extends ExecEncoding>(
  handle: WorkspaceRuntimeExecHandle<E>,
  requested: { id: string; backend: string | undefined },
): WorkspaceRuntimeExecHandleStub<E> {
  try {
    return new WorkspaceRuntimeExecHandleStub(
      handle,
      requested.backend === undefined ? { id: requested.id } : requested,
    );
  } catch (error) {
    handle[Symbol.dispose]();
    throw error;
  }
}

/** `git` over RPC: the CLI only. Calls fail with the not-configured error when the workspace has no git. */
/** What the git stub is built over: the original's `new WorkspaceGitStub(ws)`, or a factory of the client. */
export type GitStubSource = { readonly git: WorkspaceGit } | (() => WorkspaceGit);

export class WorkspaceGitStub extends DisposableStub {
  readonly #git: () => WorkspaceGit;

  constructor(source: GitStubSource) {
    super();
    if (typeof source === "function") this.#git = source;
    else if (typeof source === "object" && source !== null) this.#git = () => source.git;
    else throw new TypeError("WorkspaceGitStub needs a Workspace or a function returning its git client");
  }

  async cli(request: GitCliRequest): Promise<GitCliResult> {
    this.live("git.cli");
    return this.#git().cli(request);
  }
}

/**
 * What the assets stub is built over: the original's `new WorkspaceAssetsStub(ws)` (its assets are read
 * at each call, so a factory runs on first use), or the assets client itself.
 */
export type AssetsStubSource =
  | { readonly assets: AssetsShareClient | WorkspaceAssetsClient | undefined }
  | AssetsShareClient
  | WorkspaceAssetsClient;

export class WorkspaceAssetsStub extends DisposableStub {
  readonly #assets: () => AssetsShareClient | WorkspaceAssetsClient | undefined;

  constructor(source: AssetsStubSource) {
    super();
    if (typeof source !== "object" || source === null) {
      throw new TypeError("WorkspaceAssetsStub needs a Workspace or its assets client");
    }
    if (isAssetsClient(source)) this.#assets = () => source;
    else this.#assets = () => source.assets;
  }

  /** The URL, as the original's stub answers (by `share` without a prefix). */
  async publish(path: string, options: PublishOptions): Promise<string> {
    this.live("assets.publish");
    const assets = this.#assets();
    if (assets === undefined) {
      throw new WorkspaceError(
        "ENOTCONFIGURED",
        "assets.publish: the workspace has no assets (new Workspace({ assets }))",
      );
    }
    // The original's Workspace holds a share-only client: publish is share by expiry alone.
    return toWorkspaceAssets(assets).publish(path, options);
  }
}

function isAssetsClient(source: AssetsStubSource): source is AssetsShareClient | WorkspaceAssetsClient {
  const client = source as Partial<WorkspaceAssetsClient>;
  return typeof client.publish === "function" || typeof client.share === "function";
}

/**
 * The workspace's Artifacts client over RPC: every method of the original's
 * stub (`ArtifactClient` but `sessionId`). Calls fail with ENOCONFIG when the
 * workspace has no Artifacts binding.
 */
export class WorkspaceArtifactsStub extends DisposableStub {
  readonly #artifacts: () => ArtifactClient;

  constructor(artifacts: () => ArtifactClient) {
    super();
    this.#artifacts = artifacts;
  }

  create(...args: Parameters<ArtifactClient["create"]>): ReturnType<ArtifactClient["create"]> {
    this.live("artifacts.create");
    return this.#artifacts().create(...args);
  }

  get(name: string): ReturnType<ArtifactClient["get"]> {
    this.live("artifacts.get");
    return this.#artifacts().get(name);
  }

  list(): ReturnType<ArtifactClient["list"]> {
    this.live("artifacts.list");
    return this.#artifacts().list();
  }

  import(...args: Parameters<ArtifactClient["import"]>): ReturnType<ArtifactClient["import"]> {
    this.live("artifacts.import");
    return this.#artifacts().import(...args);
  }

  delete(name: string): Promise<boolean> {
    this.live("artifacts.delete");
    return this.#artifacts().delete(name);
  }

  createToken(...args: Parameters<ArtifactClient["createToken"]>): ReturnType<ArtifactClient["createToken"]> {
    this.live("artifacts.createToken");
    return this.#artifacts().createToken(...args);
  }

  listTokens(name: string): ReturnType<ArtifactClient["listTokens"]> {
    this.live("artifacts.listTokens");
    return this.#artifacts().listTokens(name);
  }

  getToken(name: string, id: string): ReturnType<ArtifactClient["getToken"]> {
    this.live("artifacts.getToken");
    return this.#artifacts().getToken(name, id);
  }

  revokeToken(name: string, tokenOrId: string): Promise<boolean> {
    this.live("artifacts.revokeToken");
    return this.#artifacts().revokeToken(name, tokenOrId);
  }

  async cli(request: ArtifactsCliRequest): Promise<GitCliResult> {
    this.live("artifacts.cli");
    return this.#artifacts().cli(request);
  }
}

/**
 * A Workspace as another isolate sees it. The Think methods are always on the
 * prototype (RPC cannot add methods per instance) and fail unless the
 * workspace was built with `useThink: true`; clients mirror them only then.
 */
/**
 * What a `WorkspaceStub` uses of its Workspace, structurally: ours (a nominal class) fits, and so does
 * any object with these members, the original's Workspace included.
 */
export interface StubWorkspace {
  readonly fs: StubFilesystem;
  readonly runtime: StubRuntime;
  readonly git: WorkspaceGit;
  readonly assets: AssetsShareClient | WorkspaceAssetsClient | undefined;
  readonly artifacts: ArtifactClient;
  readonly useThink: boolean;
  readonly sessionId: string;
}

export class WorkspaceStub extends DisposableStub implements ThinkWorkspaceCompatibility {
  readonly #workspace: StubWorkspace;
  #think: ThinkWorkspaceCompatibility | undefined;

  constructor(workspace: StubWorkspace) {
    super();
    this.#workspace = workspace;
  }

  get fs(): WorkspaceFilesystemStub {
    return this.#child("fs", () => new WorkspaceFilesystemStub(this.#workspace));
  }

  get runtime(): WorkspaceRuntimeStub {
    return this.#child("runtime", () => new WorkspaceRuntimeStub(this.#workspace));
  }

  get git(): WorkspaceGitStub {
    return this.#child("git", () => new WorkspaceGitStub(() => this.#workspace.git));
  }

  /**
   * Undefined when the workspace has no assets client, as the original's. Over RPC a property that is
   * undefined fails to read ("does not implement"), the original's too: `assetsOrNull` is the read
   * that works either way (our client uses it).
   */
  get assets(): WorkspaceAssetsStub | undefined {
    return this.assetsOrNull ?? undefined;
  }

  /** `assets`, or null when the workspace has none: an absent capability that RPC can carry. */
  get assetsOrNull(): WorkspaceAssetsStub | null {
    const assets = this.#workspace.assets;
    return assets === undefined ? null : this.#child("assets", () => new WorkspaceAssetsStub(assets));
  }

  get artifacts(): WorkspaceArtifactsStub {
    return this.#child("artifacts", () => new WorkspaceArtifactsStub(() => this.#workspace.artifacts));
  }

  get useThink(): boolean {
    return this.#workspace.useThink;
  }

  /** Null when unset, for the same reason as `assets`. */
  get sessionId(): string | null {
    return this.#workspace.sessionId === "" ? null : this.#workspace.sessionId;
  }

  async readFile(path: string): Promise<string | null> {
    return this.#thinkMethods("readFile").readFile(path);
  }

  async readFileBytes(path: string): Promise<Uint8Array | null> {
    return this.#thinkMethods("readFileBytes").readFileBytes(path);
  }

  async writeFile(path: string, content: string | Uint8Array, mimeType?: string): Promise<void> {
    return this.#thinkMethods("writeFile").writeFile(path, content, mimeType);
  }

  async readDir(dir?: string, options?: { limit?: number; offset?: number }): Promise<ThinkFileInfo[]> {
    return this.#thinkMethods("readDir").readDir(dir, options);
  }

  async rm(path: string, options?: { recursive?: boolean; force?: boolean }): Promise<void> {
    return this.#thinkMethods("rm").rm(path, options);
  }

  async glob(pattern: string): Promise<ThinkFileInfo[]> {
    return this.#thinkMethods("glob").glob(pattern);
  }

  async mkdir(path: string, options?: { recursive?: boolean }): Promise<void> {
    return this.#thinkMethods("mkdir").mkdir(path, options);
  }

  async stat(path: string): Promise<ThinkFileInfo | null> {
    return this.#thinkMethods("stat").stat(path);
  }

  #child<T extends DisposableStub>(name: string, create: () => T): T {
    this.live(`workspace.${name}`);
    return this.adopt(create());
  }

  #thinkMethods(method: string): ThinkWorkspaceCompatibility {
    this.live(`workspace.${method}`);
    if (!this.#workspace.useThink) {
      throw new WorkspaceError(
        "ENOTCONFIGURED",
        `workspace.${method}: the Think methods need new Workspace({ useThink: true })`,
      );
    }
    this.#think ??= thinkMethods(this.#workspace.fs);
    return this.#think;
  }
}
