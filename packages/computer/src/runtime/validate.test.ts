import { describe, expect, it } from "vitest";
import { validateCwd, validateExecId, validateInput } from "./validate.js";

describe("validateExecId", () => {
  it("accepts an id of up to 256 UTF-8 bytes", () => {
    expect(validateExecId("a")).toBe("a");
    expect(validateExecId("a".repeat(256))).toHaveLength(256);
  });

  it("rejects an empty id or a non-string", () => {
    expect(() => validateExecId("")).toThrow(TypeError);
    expect(() => validateExecId("")).toThrow("Execution id must be a non-empty string");
    expect(() => validateExecId(undefined)).toThrow(TypeError);
  });

  it("rejects 257 bytes", () => {
    expect(() => validateExecId("a".repeat(257))).toThrow("Execution id must be at most 256 UTF-8 bytes; got 257");
  });

  it("counts bytes, not characters", () => {
    // "é" is 2 bytes: 128 fit exactly, 129 (129 characters, 258 bytes) do not.
    expect(validateExecId("é".repeat(128))).toHaveLength(128);
    expect(() => validateExecId("é".repeat(129))).toThrow("got 258");
    // 64 four-byte emoji are 256 bytes; one more ASCII byte tips it over.
    expect(() => validateExecId("😀".repeat(64))).not.toThrow();
    expect(() => validateExecId(`${"😀".repeat(64)}a`)).toThrow("got 257");
  });
});

describe("validateInput", () => {
  it("lets callable backends take input, and anyone omit it", () => {
    expect(() => validateInput({ id: "worker-javascript", callable: true }, { a: 1 })).not.toThrow();
    expect(() => validateInput({ id: "container-shell", callable: false }, undefined)).not.toThrow();
  });

  it("rejects input for a backend that is not callable", () => {
    expect(() => validateInput({ id: "container-shell", callable: false }, { a: 1 })).toThrow(
      /^Backend "container-shell" is not callable;/,
    );
    expect(() => validateInput({ id: "worker-shell", callable: false }, null)).toThrow(TypeError);
  });
});

describe("validateCwd", () => {
  it("accepts an absolute path or nothing", () => {
    expect(() => validateCwd("/workspace")).not.toThrow();
    expect(() => validateCwd(undefined)).not.toThrow();
  });

  it("rejects a relative path", () => {
    expect(() => validateCwd("workspace/src")).toThrow('cwd must be an absolute path; got "workspace/src"');
    expect(() => validateCwd("")).toThrow(TypeError);
  });
});
