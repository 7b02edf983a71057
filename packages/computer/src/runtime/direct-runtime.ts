/**
 * A direct backend behind the runtime's interface: it runs executions
 * itself on the workspace's own storage, so there is no bracket, no fencing
 * and no connection to manage — only handles to build.
 */
import type { DirectBackend, DirectExec, DirectExecRequest } from "./backend.js";
import { ignoredExecIdError } from "./errors.js";
import { ExecHandle, type ExecHandleOptions } from "./handle.js";
import { refusedOf } from "./refused.js";
import { safeErrorMessage } from "./transport.js";
import type { ExecEncoding, ExecSyncSummary, KillSignal } from "./types.js";

/** The handle's finish hook for an execution that reports its own sync; it never throws. */
function finishWith(sync: DirectExec["sync"]): Pick<ExecHandleOptions, "finish"> {
  if (!sync) return {};
  return {
    finish: async (): Promise<ExecSyncSummary> => {
      try {
        const outcome = await sync.outcome;
        const { applied, skipped, sync: result } = outcome;
        return { pushed: sync.pushed, pulled: applied, skipped, ...refusedOf(outcome), sync: result };
      } catch (error) {
        const message = safeErrorMessage(error);
        return {
          pushed: sync.pushed,
          pulled: 0,
          skipped: [],
          sync: { status: "pending", applied: 0, skipped: [], error: message },
        };
      }
    },
  };
}

export class DirectRuntime {
  readonly kind = "direct";
  readonly #backend: DirectBackend;

  constructor(backend: DirectBackend) {
    this.#backend = backend;
  }

  get id(): string {
    return this.#backend.id;
  }

  get type(): string {
    return this.#backend.type;
  }

  get callable(): boolean {
    return this.#backend.callable;
  }

  /** `idGiven: false`: the runtime minted the id, so the backend's own id is accepted (see CommandExecRequest). */
  async exec(
    source: string,
    request: DirectExecRequest & { encoding?: ExecEncoding; idGiven?: boolean },
  ): Promise<ExecHandle> {
    const { encoding, idGiven, ...rest } = request;
    const exec = await this.#backend.exec(source, rest);
    if (exec.id !== request.id && (idGiven !== false || typeof exec.id !== "string" || exec.id === "")) {
      await exec.events.cancel().catch(() => {});
      throw ignoredExecIdError(this.id, exec.id, request.id);
    }
    return new ExecHandle(exec.events, {
      id: exec.id,
      backend: this.id,
      ...(encoding === undefined ? {} : { encoding }),
      kill: (signal) => this.killExec(exec.id, signal),
      ...finishWith(exec.sync),
    });
  }

  async getExec(
    id: string,
    options: { encoding?: ExecEncoding; resume?: "tail" | "full" | number },
  ): Promise<ExecHandle> {
    const after = options.resume === undefined || options.resume === "full" ? 0 : options.resume;
    const exec = await this.#backend.getExec(id, { after });
    return new ExecHandle(exec.events, {
      id,
      backend: this.id,
      ...(options.encoding === undefined ? {} : { encoding: options.encoding }),
      kill: (signal) => this.killExec(id, signal),
      ...finishWith(exec.sync),
      ...(after === 0 ? {} : { replay: async () => (await this.#backend.getExec(id, { after: 0 })).events }),
    });
  }

  killExec(id: string, signal?: KillSignal): Promise<void> {
    return this.#backend.killExec(id, signal);
  }

  disposeExec(id: string): Promise<void> {
    return this.#backend.disposeExec(id);
  }

  async ready(): Promise<void> {
    await this.#backend.ready?.();
  }

  async close(): Promise<void> {
    await this.#backend.close?.();
  }
}
