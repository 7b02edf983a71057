import { describe, expect, it } from "vitest";
import { MISSING_EXIT_CODE, statusForExitCode } from "./status.js";

describe("statusForExitCode", () => {
  it("reads 0 as completed", () => {
    expect(statusForExitCode(0)).toBe("completed");
  });

  it.each([129, 130, 137, 143])("reads %i (128 + a kill signal) as cancelled", (code) => {
    expect(statusForExitCode(code)).toBe("cancelled");
  });

  it.each([1, 2, 126, 127, 128, 131, 255, MISSING_EXIT_CODE])("reads %i as failed", (code) => {
    expect(statusForExitCode(code)).toBe("failed");
  });
});
