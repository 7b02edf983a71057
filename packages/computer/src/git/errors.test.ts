import { describe, expect, it } from "vitest";
import {
  AlreadyInitializedError,
  exitCodeOf,
  GitError,
  MissingIdentityError,
  NotARepositoryError,
  PathOutsideRepoError,
  PathspecNotFoundError,
} from "./errors.js";

describe("git error classes", () => {
  it("carry the original's codes, exit 128, and are GitErrors with their own name", () => {
    const cases: [GitError, string, string][] = [
      [new NotARepositoryError("/w"), "ENOTAREPO", "NotARepositoryError"],
      [new AlreadyInitializedError("/w"), "EALREADYINIT", "AlreadyInitializedError"],
      [new MissingIdentityError(), "EIDENTITY", "MissingIdentityError"],
      [new PathOutsideRepoError("../x", "/w"), "EPATHOUTSIDE", "PathOutsideRepoError"],
      [new PathspecNotFoundError("nope.txt"), "EPATHSPEC", "PathspecNotFoundError"],
    ];
    for (const [error, code, name] of cases) {
      expect(error).toBeInstanceOf(GitError);
      expect(error).toBeInstanceOf(Error);
      expect(error.code).toBe(code);
      expect(error.name).toBe(name);
      expect(exitCodeOf(error)).toBe(128);
    }
    expect(new PathspecNotFoundError("nope.txt").message).toBe("pathspec 'nope.txt' did not match any files");
    expect(new PathOutsideRepoError("../x", "/w").path).toBe("../x");
  });

  it("keeps a cause, and a code of the caller's own (exit 1)", () => {
    const cause = new Error("inner");
    expect(new NotARepositoryError("/w", { cause }).cause).toBe(cause);
    const custom = new GitError("EMYFAIL", "mine");
    expect(custom.code).toBe("EMYFAIL");
    expect(custom.exitCode).toBe(1);
  });
});
