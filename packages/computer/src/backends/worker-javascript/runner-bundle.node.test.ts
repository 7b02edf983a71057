/**
 * The committed runner bundle matches its sources: the build script, run in
 * `--check` mode, rebuilds the module strings and compares them with
 * `runner-bundle.generated.ts`.
 */
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { expect, it } from "vitest";

it("runner-bundle.generated.ts is up to date with the *.worker.ts sources", () => {
  const script = fileURLToPath(new URL("../../../scripts/build-worker-javascript.mjs", import.meta.url));
  const check = spawnSync(process.execPath, [script, "--check"], { encoding: "utf8" });
  expect(check.stderr).toBe("");
  expect(check.status).toBe(0);
});
