/**
 * The Cloudflare adapter over a recording `Tracing` (the runtime's tracing
 * handle is a Cloudflare-owned edge; user tracing is not on in the test
 * runtime), and the pass-through when `ctx.tracing` is absent.
 */
import { describe, expect, it } from "vitest";
import { createCloudflareObserver } from "./cloudflare.js";
import { noopObserver } from "./observer.js";

interface Recorded {
  name: string;
  attributes: Record<string, unknown>;
}

function recordingTracing(): { tracing: Tracing; spans: Recorded[] } {
  const spans: Recorded[] = [];
  const enterSpan = <T, A extends unknown[]>(name: string, callback: (span: Span, ...args: A) => T, ...args: A) => {
    const recorded: Recorded = { name, attributes: {} };
    spans.push(recorded);
    const span = {
      isTraced: true,
      setAttribute(key: string, value?: boolean | number | string) {
        recorded.attributes[key] = value;
      },
      end() {},
    } as unknown as Span;
    return callback(span, ...args);
  };
  return { tracing: { enterSpan, startActiveSpan: enterSpan } as unknown as Tracing, spans };
}

describe("createCloudflareObserver", () => {
  it("opens one span per call with the defined starting attributes and the ones set while running", async () => {
    const { tracing, spans } = recordingTracing();
    const observer = createCloudflareObserver({ tracing });
    const value = await observer.span("workspace.exec", { backend: "worker-shell", id: undefined }, async (span) => {
      span.setAttribute("exitCode", 0);
      span.setAttribute("missing", undefined);
      return "done";
    });
    expect(value).toBe("done");
    expect(spans).toEqual([{ name: "workspace.exec", attributes: { backend: "worker-shell", exitCode: 0 } }]);
  });

  it("lets the work's error through", async () => {
    const { tracing } = recordingTracing();
    const observer = createCloudflareObserver({ tracing });
    await expect(observer.span("op", {}, async () => Promise.reject(new Error("boom")))).rejects.toThrow("boom");
  });

  it("is the no-op observer when the runtime has no user tracing", () => {
    expect(createCloudflareObserver({ tracing: undefined })).toBe(noopObserver);
  });
});
