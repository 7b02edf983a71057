import { describe, expect, it } from "vitest";
import { ArtifactError, InvalidRepoNameError, InvalidSessionIdError, NotFoundError } from "./index.js";

describe("artifacts errors under the original's names and constructor shapes", () => {
  it("ArtifactError is the base class, and keeps a code of the caller's", () => {
    const error = new ArtifactError("EMINE", "custom", { cause: "x" });
    expect(error.code).toBe("EMINE");
    expect(error.message).toBe("EMINE: custom");
    expect(error.cause).toBe("x");
    expect(new NotFoundError('repository "r"')).toBeInstanceOf(ArtifactError);
  });

  it("the subclasses take (value, reason?, { cause }?)", () => {
    const cause = new Error("inner");
    const name = new InvalidRepoNameError("a__b", "no '__'", { cause });
    expect(name).toMatchObject({
      code: "EINVALIDNAME",
      message: `EINVALIDNAME: invalid repository name "a__b": no '__'`,
    });
    expect(name.cause).toBe(cause);
    expect(new InvalidSessionIdError("").message).toMatch(
      /^EINVALIDSESSION: invalid Artifacts session id "": use letters/,
    );
    expect(new NotFoundError('repository "r"', { cause }).message).toBe('ENOTFOUND: repository "r" not found');
  });
});
