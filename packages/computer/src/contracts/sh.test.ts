import { describe, expect, it } from "vitest";
import { type ShellValue, sh, shellQuote } from "./sh.js";

describe("shellQuote", () => {
  it("leaves safe strings bare", () => {
    expect(shellQuote("src/a-b_c.ts")).toBe("src/a-b_c.ts");
    expect(shellQuote("user@host:/p,q%+1")).toBe("user@host:/p,q%+1");
    // As the original: `=` is plain in an argument (`--name=value`, `a=b`).
    expect(shellQuote("--color=never")).toBe("--color=never");
    expect(shellQuote("a=b")).toBe("a=b");
  });

  it("quotes the empty string so it stays an argument", () => {
    expect(shellQuote("")).toBe("''");
  });

  it("single-quotes anything else and escapes single quotes as '\\''", () => {
    expect(shellQuote("a b")).toBe("'a b'");
    expect(shellQuote("it's")).toBe("'it'\\''s'");
    expect(shellQuote("$(rm -rf /)")).toBe("'$(rm -rf /)'");
    expect(shellQuote("~")).toBe("'~'");
    expect(shellQuote("é")).toBe("'é'");
  });
});

describe("sh", () => {
  it("quotes each interpolated value and keeps the template text raw", () => {
    expect(sh`grep -n ${"a b"} ${"src"}`).toBe("grep -n 'a b' src");
    expect(sh`printf '%s\n' ${"x"}`).toBe("printf '%s\\n' x");
  });

  it("quotes each array element and joins them with spaces", () => {
    expect(sh`rm -- ${["a b", "c", ""]}`).toBe("rm -- 'a b' c ''");
    expect(sh`ls ${[]}`).toBe("ls ");
  });

  it("stringifies numbers and bigints", () => {
    expect(sh`head -n ${5} -c ${10n}`).toBe("head -n 5 -c 10");
  });

  it("refuses values that would print as undefined or [object Object]", () => {
    expect(() => sh`echo ${undefined as unknown as ShellValue}`).toThrow("sh: cannot interpolate undefined");
    expect(() => sh`echo ${{} as unknown as ShellValue}`).toThrow("sh: cannot interpolate object");
  });

  it("inserts { raw } verbatim, and only a string", () => {
    expect(sh`ls ${{ raw: "*.ts | wc -l" }} ${"a b"}`).toBe("ls *.ts | wc -l 'a b'");
    expect(sh`echo ${{ raw: "" }}x`).toBe("echo x");
    expect(() => sh`echo ${{ raw: 1 } as unknown as ShellValue}`).toThrow("sh: { raw } needs a string, got number");
  });
});
