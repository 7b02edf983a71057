import { describe, expect, test } from "vitest";
import { BAD_EXEC_REQUESTS, GOOD_EXEC_REQUESTS } from "../../../rpc/test/bad-exec-requests.js";
import { validateCwd, validateExecId, validateExecOptions } from "./validate.js";

/** What `runtime.exec` checks of its options, in its order (runtime.ts). */
function validateAll(fields: Readonly<Record<string, unknown>>): void {
  if (fields.id !== undefined) validateExecId(fields.id);
  validateCwd(fields.cwd as string | undefined);
  validateExecOptions(fields);
}

/** The runtime holds to the wire package's one check: the same table the shell server and computerd are tested on. */
describe("the runtime refuses every bad exec request with a TypeError", () => {
  test.each(BAD_EXEC_REQUESTS)("$name", (bad) => {
    expect(() => validateAll(bad.fields)).toThrow(TypeError);
  });

  test.each(GOOD_EXEC_REQUESTS)("accepts %o", (fields) => {
    expect(() => validateAll(fields)).not.toThrow();
  });
});
