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
  it("merges edits on one line, trims equal lines, numbers hunks", () => {
    const old = ["L1", "L2", "L3", "L4", "L5", "L6", "L7", "L8", "L9", "L10", "L11", "L12"].join("\n");
    const located = locateEdits(
      old,
      [
        { oldText: "L2\n", newText: "two\n" },
        { oldText: "L11", newText: "eleven\nand more" },
      ],
      "/f",
    );
    const updated = applyEdits(old, located);
    const { patch, firstChangedLine, diff } = editDiff("/f", old, updated, located);
    expect(firstChangedLine).toBe(2);
    expect(patch).toBe(
      [
        "--- a/f",
        "+++ b/f",
        "@@ -1,5 +1,5 @@",
        " L1",
        "-L2",
        "+two",
        " L3",
        " L4",
        " L5",
        "@@ -8,5 +8,6 @@",
        " L8",
        " L9",
        " L10",
        "-L11",
        "+eleven",
        "+and more",
        " L12",
        "",
      ].join("\n"),
    );
    expect(diff).toContain(" ...");
    expect(diff).toContain("+12 and more");
  });

  it("a pure insertion and a pure deletion", () => {
    const old = "a\nb\nc";
    const ins = locateEdits(old, [{ oldText: "b\n", newText: "b\nnew\n" }], "/f");
    expect(editDiff("/f", old, applyEdits(old, ins), ins).patch).toBe(
      "--- a/f\n+++ b/f\n@@ -1,3 +1,4 @@\n a\n b\n+new\n c\n",
    );
    const del = locateEdits(old, [{ oldText: "b\n", newText: "" }], "/f");
    expect(editDiff("/f", old, applyEdits(old, del), del).patch).toBe(
      "--- a/f\n+++ b/f\n@@ -1,3 +1,2 @@\n a\n-b\n c\n",
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
