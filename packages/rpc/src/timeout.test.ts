import { describe, expect, test } from "vitest";
import { withTimeout } from "./timeout.js";

describe("withTimeout", () => {
  test("settles as the promise does when it is in time", async () => {
    await expect(withTimeout(Promise.resolve(7), 1000, "late")).resolves.toBe(7);
    await expect(withTimeout(Promise.reject(new Error("own")), 1000, "late")).rejects.toThrow("own");
  });

  test("rejects with exactly the given message once the time is up", async () => {
    await expect(withTimeout(new Promise(() => {}), 5, "FUSE INIT did not come within 5 ms")).rejects.toThrow(
      /^FUSE INIT did not come within 5 ms$/,
    );
  });
});
