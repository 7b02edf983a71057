import { describe, expect, it } from "vitest";
import { noopObserver, type WorkspaceSpan } from "./observer.js";

describe("noopObserver", () => {
  it("returns the work's own promise, with its value", async () => {
    const work = Promise.resolve(42);
    const returned = noopObserver.span("op", { a: 1 }, () => work);
    expect(returned).toBe(work);
    expect(await returned).toBe(42);
  });

  it("lets the work's error through and hands it a span that ignores attributes", async () => {
    let seen: WorkspaceSpan | undefined;
    const failing = noopObserver.span("op", {}, async (span) => {
      seen = span;
      span.setAttribute("bytes", 3);
      span.setAttribute("skipped", undefined);
      throw new Error("boom");
    });
    await expect(failing).rejects.toThrow("boom");
    expect(seen).toBeDefined();
  });
});
