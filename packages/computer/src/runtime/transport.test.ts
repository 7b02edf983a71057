import { describe, expect, it } from "vitest";
import { WorkspaceTransportError } from "./errors.js";
import { isDisposedStubError, isTransportError, SAFE_MESSAGE_MAX_CHARS, safeErrorMessage } from "./transport.js";

describe("isTransportError", () => {
  it.each([
    "WebSocket is closed",
    "websocket not open",
    "RPC session was shut down by disposing the main stub",
    "Attempted to use RPC stub after it has been disposed.",
    "RPC canceled",
    "socket hang up",
    "connect ECONNREFUSED 127.0.0.1:8080",
    "read ECONNRESET",
    "Network is unreachable",
    "container exited: code 137",
  ])("matches %j", (message) => {
    expect(isTransportError(new Error(message))).toBe(true);
  });

  it("matches by class name and through a cause chain", () => {
    expect(isTransportError(new WorkspaceTransportError("connect failed at stage=health"))).toBe(true);
    const wrapped = new Error("push failed", { cause: new Error("outer", { cause: new Error("socket hang up") }) });
    expect(isTransportError(wrapped)).toBe(true);
  });

  it("leaves operation errors alone", () => {
    for (const message of ["ENOENT: no such file or directory, getExec: x", "EEXEC_BUSY: exec is busy", "boom"]) {
      expect(isTransportError(new Error(message))).toBe(false);
    }
    expect(isTransportError(undefined)).toBe(false);
  });

  it("stops following causes after 8 levels", () => {
    let error = new Error("socket hang up");
    for (let i = 0; i < 8; i++) error = new Error(`level ${i}`, { cause: error });
    expect(isTransportError(error)).toBe(false);
  });

  it("recognizes a stub disposed on this side", () => {
    expect(isDisposedStubError(new Error("Attempted to use RPC stub after it has been disposed."))).toBe(true);
    expect(isDisposedStubError(new Error("WebSocket is closed"))).toBe(false);
  });
});

describe("safeErrorMessage", () => {
  it("turns control characters into spaces", () => {
    expect(safeErrorMessage(new Error("a\nb\tc\u0000d"))).toBe("Error: a b c d");
  });

  it("redacts bearer tokens and token-like values", () => {
    const text = safeErrorMessage(
      new Error("GET /api?token=abc123&x=1 failed; Authorization: Bearer s3cr3t; secret=hunter2 api_key: 'k'"),
    );
    for (const secret of ["abc123", "s3cr3t", "hunter2", "'k'"]) expect(text).not.toContain(secret);
    expect(text).toContain("x=1");
    expect(safeErrorMessage("401 for Bearer abc.def")).toBe("401 for Bearer [redacted]");
  });

  it("caps the text at 512 characters", () => {
    const text = safeErrorMessage(new Error("x".repeat(2000)));
    expect(text.length).toBe(SAFE_MESSAGE_MAX_CHARS);
  });

  it("accepts non-errors", () => {
    expect(safeErrorMessage("plain")).toBe("plain");
  });
});
