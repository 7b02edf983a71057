/**
 * A `WorkspaceObserver` over the Workers runtime's user tracing (`ctx.tracing`,
 * or `tracing` from `cloudflare:workers`). Its own subpath
 * (`@cloudflare/computer/observe/cloudflare`) so a Workspace that does not
 * trace imports nothing of it.
 *
 * `enterSpan` makes the span current for the callback and the runtime closes
 * it when the callback's promise settles, so work the callback starts (a
 * subrequest, an RPC) nests under it.
 */
import { noopObserver, type WorkspaceAttributes, type WorkspaceObserver, type WorkspaceSpan } from "./observer.js";

export interface CloudflareObserverOptions {
  /**
   * The runtime's tracing handle. `undefined` (a runtime without user tracing
   * leaves `ctx.tracing` out) gives an observer that only runs the work.
   */
  tracing: Tracing | undefined;
}

export function createCloudflareObserver(options: CloudflareObserverOptions): WorkspaceObserver {
  const tracing = options?.tracing;
  if (tracing === undefined) return noopObserver;
  return {
    span<T>(name: string, attributes: WorkspaceAttributes, run: (span: WorkspaceSpan) => Promise<T>): Promise<T> {
      return tracing.enterSpan(name, (span: Span) => {
        for (const [key, value] of Object.entries(attributes)) {
          if (value !== undefined) span.setAttribute(key, value);
        }
        const handle: WorkspaceSpan = {
          setAttribute(key, value) {
            if (value !== undefined) span.setAttribute(key, value);
          },
        };
        return run(handle);
      });
    },
  };
}

export type { WorkspaceAttributes, WorkspaceAttributeValue, WorkspaceObserver, WorkspaceSpan } from "./observer.js";
