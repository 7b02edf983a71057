/** The pure parts of `edit`: locating (exact, fuzzy, refusals) and the diff built from the ranges. */
import { describe, expect, it } from "vitest";
import { utf8Length, utf8Prefix } from "../backends/worker-javascript/protocol/stdio.js";
import { editDiff } from "./diff.js";
import { applyEdits, locateEdits, normalizeForMatch } from "./edit-match.js";
import { truncateUtf8 } from "./truncate.js";

describe("locateEdits", () => {
  it("locates in the original, so an edit may match text another edit replaces elsewhere", () => {
    const located = locateEdits(
      "a b c",
      [
        { oldText: "a", newText: "c" },
        { oldText: "c", newText: "a" },
      ],
      "/f",
    );
    expect(applyEdits("a b c", located)).toBe("c b a");
  });

  it("fuzzy: dashes, non-breaking spaces, NFKC and trailing whitespace; the range is the original's", () => {
    const text = "x \u2014 y\u00a0z   \nﬁle\n";
    const [dash] = locateEdits(text, [{ oldText: "x - y z", newText: "Q" }], "/f");
    expect(text.slice(dash?.start, dash?.end)).toBe("x \u2014 y\u00a0z");
    const [lig] = locateEdits(text, [{ oldText: "file", newText: "F" }], "/f");
    expect(text.slice(lig?.start, lig?.end)).toBe("ﬁle");
    // "ile" starts inside the ligature: refused rather than cutting a character.
    expect(() => locateEdits(text, [{ oldText: "ile", newText: "F" }], "/f")).toThrow(/inside a character/);
  });

  it("combining marks normalize with their base character", () => {
    const decomposed = "cafe\u0301!";
    const [hit] = locateEdits(decomposed, [{ oldText: "café!", newText: "tea!" }], "/f");
    expect(applyEdits(decomposed, [hit as NonNullable<typeof hit>])).toBe("tea!");
    expect(normalizeForMatch("a\u00a0 \n").text).toBe("a\n");
  });
});

describe("editDiff", () => {
  it("trims equal lines, keeps 4 lines of context, splits hunks more than 8 lines apart", () => {
    const old = Array.from({ length: 16 }, (_, i) => `L${i + 1}`).join("\n");
    const located = locateEdits(
      old,
      [
        { oldText: "L2\n", newText: "two\n" },
        { oldText: "L14", newText: "fourteen\nand more" },
      ],
      "/f",
    );
    const updated = applyEdits(old, located);
    const { patch, firstChangedLine, diff } = editDiff("/f", old, updated, located);
    expect(firstChangedLine).toBe(2);
    expect(patch).toBe(
      [
        "Index: /f",
        "=".repeat(67),
        "--- /f",
        "+++ /f",
        "@@ -1,6 +1,6 @@",
        " L1",
        "-L2",
        "+two",
        " L3",
        " L4",
        " L5",
        " L6",
        "@@ -10,7 +10,8 @@",
        " L10",
        " L11",
        " L12",
        " L13",
        "-L14",
        "+fourteen",
        "+and more",
        " L15",
        " L16",
        "\\ No newline at end of file",
        "",
      ].join("\n"),
    );
    // Unchanged lines carry their old numbers; the gap between the hunks is one ` ...` line.
    expect(diff.split("\n")).toEqual([
      "  1 L1",
      "- 2 L2",
      "+ 2 two",
      ...[3, 4, 5, 6].map((n) => `  ${n} L${n}`),
      "    ...",
      ...[10, 11, 12, 13].map((n) => ` ${n} L${n}`),
      "-14 L14",
      "+14 fourteen",
      "+15 and more",
      " 15 L15",
      " 16 L16",
    ]);
  });

  it("a pure insertion and a pure deletion", () => {
    const old = "a\nb\nc";
    const header = `Index: /f\n${"=".repeat(67)}\n--- /f\n+++ /f\n`;
    const ins = locateEdits(old, [{ oldText: "b\n", newText: "b\nnew\n" }], "/f");
    expect(editDiff("/f", old, applyEdits(old, ins), ins).patch).toBe(
      `${header}@@ -1,3 +1,4 @@\n a\n b\n+new\n c\n\\ No newline at end of file\n`,
    );
    const del = locateEdits(`${old}\n`, [{ oldText: "b\n", newText: "" }], "/f");
    expect(editDiff("/f", `${old}\n`, applyEdits(`${old}\n`, del), del).patch).toBe(
      `${header}@@ -1,3 +1,2 @@\n a\n-b\n c\n`,
    );
  });
});

describe("truncate", () => {
  it("counts UTF-8 bytes and never splits a character", () => {
    expect(utf8Length("aé😀")).toBe(1 + 2 + 4);
    expect(utf8Prefix("a😀b", 4)).toBe("a");
    expect(truncateUtf8("éé", 3)).toBe("é\n\n[truncated, 2 more bytes]");
    expect(truncateUtf8("abc", 3)).toBe("abc");
  });
});
