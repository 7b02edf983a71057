import { describe, expect, it } from "vitest";
import { DEFAULT_SYNC_RETRY, resolveSyncRetryOptions, retryNotBefore } from "./retry.js";

describe("sync retry options", () => {
  it("defaults to 1 s doubling up to 60 s, 5 attempts", () => {
    expect(resolveSyncRetryOptions()).toEqual({ initialDelayMs: 1000, maxDelayMs: 60_000, maxAttempts: 5 });
  });

  it("computes notBefore = now + min(max, initial · 2^(attempt−1))", () => {
    const options = { ...DEFAULT_SYNC_RETRY };
    expect(retryNotBefore(0, 1, options)).toBe(1000);
    expect(retryNotBefore(0, 2, options)).toBe(2000);
    expect(retryNotBefore(0, 6, options)).toBe(32_000);
    expect(retryNotBefore(10, 7, options)).toBe(60_010);
    expect(retryNotBefore(0, 40, options)).toBe(60_000);
  });

  it.each([{ initialDelayMs: 0 }, { maxDelayMs: -1 }, { maxAttempts: 1.5 }, { initialDelayMs: Number.NaN }])(
    "rejects %j",
    (options) => {
      expect(() => resolveSyncRetryOptions(options)).toThrow(/must be a positive integer/);
    },
  );
});
