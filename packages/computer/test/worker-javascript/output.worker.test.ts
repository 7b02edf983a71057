/**
 * Bounded output on worker-javascript: a module's console output past the
 * limits is cut to its tail in the result and saved whole by the Durable
 * Object; the module's return value is untouched.
 */
import { describe, expect, it } from "vitest";
import { inJsWorkspace, JS } from "./harness.worker.js";

describe("bounded output on worker-javascript", () => {
  it("keeps the tail of console output and saves all of it; the value is untouched", async () => {
    await inJsWorkspace(async ({ workspace }) => {
      const source = `export default async function () {
        for (let i = 1; i <= 500; i++) console.log("row " + i);
        return { rows: 500 };
      }`;
      const result = await (
        await workspace.runtime.exec(source, { ...JS, id: "rows", output: { maxLines: 3 } })
      ).result();
      expect(result.value).toEqual({ rows: 500 });
      expect(result.stdout).toBe("row 498\nrow 499\nrow 500\n");
      const path = "/.computer/output/worker-javascript.rows.stdout.log";
      expect(result.truncated?.stdout).toMatchObject({ status: "saved", path, totalLines: 500, firstLine: 498 });
      const saved = await workspace.fs.readFile(path, "utf8");
      expect(saved.split("\n").length).toBe(501);
      expect(saved.startsWith("row 1\nrow 2\n")).toBe(true);
    });
  });
});
