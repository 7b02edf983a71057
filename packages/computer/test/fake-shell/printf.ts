/**
 * `printf FORMAT [ARG…]` producing raw bytes: `\xHH` and `\NNN` escapes emit
 * single bytes (not code points), so a test can split a UTF-8 character
 * across events. Conversions: `%s`, `%d`/`%i`, `%%`, with `-`/`0` flags and a
 * width. As in POSIX, the format is reused while arguments remain.
 */

const encoder = new TextEncoder();

const SIMPLE_ESCAPES: Readonly<Record<string, number>> = {
  "\\": 0x5c,
  '"': 0x22,
  "'": 0x27,
  a: 0x07,
  b: 0x08,
  f: 0x0c,
  n: 0x0a,
  r: 0x0d,
  t: 0x09,
  v: 0x0b,
};

export function formatPrintf(format: string, args: string[]): { bytes: Uint8Array; errors: string[] } {
  const out: number[] = [];
  const errors: string[] = [];
  const push = (text: string): void => {
    for (const byte of encoder.encode(text)) out.push(byte);
  };
  let next = 0;
  for (;;) {
    const before = next;
    let i = 0;
    while (i < format.length) {
      const c = format[i] as string;
      if (c === "\\") {
        i = writeEscape(format, i + 1, out);
      } else if (c === "%") {
        const spec = /^%([-0]*)([0-9]*)([sdi%])/.exec(format.slice(i));
        if (spec === null) {
          errors.push(`${format.slice(i, i + 2)}: invalid directive`);
          push(format.slice(i));
          break;
        }
        i += spec[0].length;
        const [, flagText = "", widthText = "", conversion] = spec;
        if (conversion === "%") {
          push("%");
          continue;
        }
        const arg = args[next++] ?? "";
        let text = arg;
        if (conversion !== "s") {
          const number = arg === "" ? 0 : Number(arg);
          if (!Number.isInteger(number)) errors.push(`${arg}: invalid number`);
          text = String(Number.isInteger(number) ? number : 0);
        }
        push(pad(text, Number(widthText || 0), flagText.includes("-"), flagText.includes("0") && conversion !== "s"));
      } else {
        // Whole code points, so a non-BMP character in the format is encoded correctly.
        const point = format.codePointAt(i) as number;
        const char = String.fromCodePoint(point);
        push(char);
        i += char.length;
      }
    }
    if (next >= args.length || next === before) break;
  }
  return { bytes: Uint8Array.from(out), errors };
}

/** Handles the escape after a backslash at `i`; returns the index after it. */
function writeEscape(format: string, i: number, out: number[]): number {
  const c = format[i];
  if (c === undefined) {
    out.push(0x5c);
    return i;
  }
  if (c === "x") {
    const hex = /^[0-9a-fA-F]{1,2}/.exec(format.slice(i + 1))?.[0];
    if (hex === undefined) {
      out.push(0x5c, 0x78);
      return i + 1;
    }
    out.push(Number.parseInt(hex, 16));
    return i + 1 + hex.length;
  }
  if (/[0-7]/.test(c)) {
    // `\0NNN` (echo's form) and `\NNN` (printf's): up to three octal digits after an optional leading 0.
    const octal = /^0?([0-7]{1,3})/.exec(format.slice(i));
    const [whole, digits] = octal as RegExpExecArray;
    out.push(Number.parseInt(digits as string, 8) & 0xff);
    return i + whole.length;
  }
  const simple = SIMPLE_ESCAPES[c];
  if (simple !== undefined && Object.hasOwn(SIMPLE_ESCAPES, c)) {
    out.push(simple);
    return i + 1;
  }
  out.push(0x5c, ...encoder.encode(c));
  return i + 1;
}

function pad(text: string, width: number, left: boolean, zeros: boolean): string {
  if (text.length >= width) return text;
  if (left) return text.padEnd(width);
  if (zeros && text.startsWith("-")) return `-${text.slice(1).padStart(width - 1, "0")}`;
  return text.padStart(width, zeros ? "0" : " ");
}
