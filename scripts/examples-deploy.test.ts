/**
 * Every example can be deployed: each one with a wrangler config has a
 * test/deploy.test.ts that runs `wrangler deploy --dry-run` on it (through
 * examples/test-support/deploy.ts), collected by its `examples:<name>` project
 * (vitest.workspace.ts makes one per example with a test/ folder). A new
 * example without one fails here, so a config that cannot deploy cannot land
 * unnoticed. The README's Deploy section points at these dry runs.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { expect, it } from "vitest";

const examples = fileURLToPath(new URL("../examples", import.meta.url));
const deployable = readdirSync(examples, { withFileTypes: true })
  .filter((entry) => entry.isDirectory())
  .map((entry) => entry.name)
  .filter((name) =>
    ["wrangler.jsonc", "wrangler.json", "wrangler.toml"].some((file) => existsSync(join(examples, name, file))),
  )
  .sort();

it("finds the examples (a listing that finds none proves nothing)", () => {
  expect(deployable).toContain("container");
  expect(deployable).toContain("worker-shell");
  expect(deployable.length).toBeGreaterThanOrEqual(10);
});

it.each(deployable)("examples/%s has a wrangler deploy --dry-run test", (name) => {
  const test = join(examples, name, "test/deploy.test.ts");
  expect(existsSync(test), `examples/${name}/test/deploy.test.ts`).toBe(true);
  expect(readFileSync(test, "utf8")).toMatch(/\bdryRunDeploy(WithImage)?\(/);
});
