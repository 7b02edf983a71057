import { describe, expect, it } from "vitest";
import {
  ArtifactError,
  ArtifactsError,
  createUnconfiguredArtifact,
  InvalidRepoNameError,
  InvalidSessionIdError,
  NotFoundError,
} from "./index.js";

describe("artifacts errors under the original's names and constructor shapes", () => {
  it("ArtifactError is the base class; its code is the caller's and the message is the message", () => {
    const error = new ArtifactError("EMINE", "custom", { cause: "x" });
    expect(error).toMatchObject({ name: "ArtifactError", code: "EMINE", message: "custom", cause: "x" });
    expect(new NotFoundError("no token 't' in repository 'r'")).toBeInstanceOf(ArtifactError);
    expect(ArtifactsError).toBe(ArtifactError);
  });

  it("the subclasses take (value, reason?, { cause }?)", () => {
    const cause = new Error("inner");
    const name = new InvalidRepoNameError("a__b", "no '__'", { cause });
    expect(name).toMatchObject({
      name: "InvalidRepoNameError",
      code: "EINVALIDNAME",
      message: "invalid repository name 'a__b': no '__'",
    });
    expect(name.cause).toBe(cause);
    expect(new InvalidSessionIdError("").message).toMatch(/^invalid session id '': use letters/);
    expect(new NotFoundError("gone", { cause })).toMatchObject({ code: "ENOTFOUND", message: "gone" });
  });

  it("the unconfigured client rejects every call with ENOCONFIG and its CLI says so with exit 1", async () => {
    const client = createUnconfiguredArtifact();
    expect(client.sessionId).toBe("");
    await expect(client.get("x")).rejects.toMatchObject({ name: "ArtifactError", code: "ENOCONFIG" });
    await expect(client.list()).rejects.toThrow(/Artifacts binding is not configured/);
    expect(await client.cli({ argv: ["repo", "list"] })).toEqual({
      stdout: "",
      stderr: "artifacts repo list: Workspace Artifacts binding is not configured\n",
      exitCode: 1,
    });
  });
});
