/**
 * Where each edit of an `edit` call applies. Every `oldText` is looked up in
 * the ORIGINAL text — never in the result of an earlier edit — exactly first;
 * only when that finds nothing, fuzzily. The fuzzy pass compares normalized
 * copies (NFKC, no trailing whitespace, straight quotes, ASCII dashes and
 * spaces) but only to find the range: the bytes replaced are the original's,
 * and everything outside the ranges is left as it was.
 *
 * A match must be unique, non-empty, must change something, and must not
 * overlap another edit's range; each failure is an error naming the edit.
 */

export interface Edit {
  oldText: string;
  newText: string;
}

/** A located edit: replace `[start, end)` of the original with `newText`. */
export interface Located {
  index: number;
  start: number;
  end: number;
  newText: string;
  fuzzy: boolean;
}

const QUOTES_SINGLE = /[\u2018\u2019\u201a\u201b\u2032\u2035]/g;
const QUOTES_DOUBLE = /[\u201c\u201d\u201e\u201f\u2033\u2036]/g;
const DASHES = /[\u2010\u2011\u2012\u2013\u2014\u2015\u2212\u2043\ufe58\ufe63\uff0d]/g;
const SPACES = /[\u00a0\u1680\u2000-\u200a\u202f\u205f\u3000]/g;
const BLANK = /^[ \t\r\f\v\u00a0\u1680\u2000-\u200a\u202f\u205f\u3000\ufeff]$/u;
// A base character with its combining marks: NFKC composes across them, so they normalize as one unit.
const SEGMENT = /[^\p{M}]\p{M}*|\p{M}+/gu;

/** A normalized copy of a text, with each UTF-16 unit mapped back to the original segment it came from. */
interface Normalized {
  text: string;
  /** Original [start, end) of the segment that produced each unit. */
  from: number[];
  to: number[];
  /** Whether the unit is the first / last one its segment produced (a boundary may only fall there). */
  first: boolean[];
  last: boolean[];
}

function normalizeSegment(segment: string): string {
  return segment
    .replace(QUOTES_SINGLE, "'")
    .replace(QUOTES_DOUBLE, '"')
    .replace(DASHES, "-")
    .replace(SPACES, " ")
    .normalize("NFKC");
}

export function normalizeForMatch(text: string): Normalized {
  const out: Normalized = { text: "", from: [], to: [], first: [], last: [] };
  const segments = [...text.matchAll(SEGMENT)];
  // Trailing whitespace of a line is dropped: find, per segment, whether only blanks follow it up to the newline.
  const trailing = new Array<boolean>(segments.length).fill(false);
  let blanksToEol = true;
  for (let i = segments.length - 1; i >= 0; i--) {
    const value = (segments[i] as RegExpExecArray)[0];
    if (value === "\n") blanksToEol = true;
    else if (BLANK.test(value)) trailing[i] = blanksToEol;
    else blanksToEol = false;
  }
  const parts: string[] = [];
  segments.forEach((match, i) => {
    if (trailing[i]) return;
    const start = match.index;
    const end = start + match[0].length;
    const normalized = normalizeSegment(match[0]);
    parts.push(normalized);
    for (let u = 0; u < normalized.length; u++) {
      out.from.push(start);
      out.to.push(end);
      out.first.push(u === 0);
      out.last.push(u === normalized.length - 1);
    }
  });
  out.text = parts.join("");
  return out;
}

function occurrences(haystack: string, needle: string): number[] {
  const found: number[] = [];
  for (let at = haystack.indexOf(needle); at >= 0; at = haystack.indexOf(needle, at + 1)) found.push(at);
  return found;
}

export class EditError extends Error {
  override readonly name = "EditError";
}

/** Locates every edit in `original` (both already LF-normalized), sorted by position. Throws EditError. */
export function locateEdits(original: string, edits: readonly Edit[], path: string): Located[] {
  let fuzzyText: Normalized | undefined;
  const located = edits.map((edit, index): Located => {
    const label = edits.length === 1 ? "oldText" : `edits[${index}].oldText`;
    if (edit.oldText === "") throw new EditError(`${label} is empty; give the exact text to replace`);
    const exact = occurrences(original, edit.oldText);
    if (exact.length > 1) {
      throw new EditError(
        `${label} matches ${exact.length} times in ${path}; include more surrounding lines so it matches once`,
      );
    }
    if (exact.length === 1) {
      const start = exact[0] as number;
      return { index, start, end: start + edit.oldText.length, newText: edit.newText, fuzzy: false };
    }
    fuzzyText ??= normalizeForMatch(original);
    const needle = normalizeForMatch(edit.oldText).text;
    const fuzzy = needle === "" ? [] : occurrences(fuzzyText.text, needle);
    if (fuzzy.length === 0) {
      throw new EditError(
        `Could not find ${label} in ${path}. It must match the file's text exactly, whitespace included; read the file again`,
      );
    }
    if (fuzzy.length > 1) {
      throw new EditError(
        `${label} matches ${fuzzy.length} times in ${path} (ignoring quotes, dashes and trailing spaces); include more surrounding lines so it matches once`,
      );
    }
    const p = fuzzy[0] as number;
    const q = p + needle.length - 1;
    if (!fuzzyText.first[p] || !fuzzyText.last[q]) {
      throw new EditError(
        `${label} starts or ends inside a character that only matches after normalization (e.g. a ligature); include the whole character`,
      );
    }
    return {
      index,
      start: fuzzyText.from[p] as number,
      end: fuzzyText.to[q] as number,
      newText: edit.newText,
      fuzzy: true,
    };
  });
  for (const edit of located) {
    if (original.slice(edit.start, edit.end) === edit.newText) {
      const label = edits.length === 1 ? "the edit" : `edits[${edit.index}]`;
      throw new EditError(`No changes made to ${path}: ${label} replaces the text with identical text`);
    }
  }
  located.sort((a, b) => a.start - b.start);
  for (let i = 1; i < located.length; i++) {
    const before = located[i - 1] as Located;
    const after = located[i] as Located;
    if (after.start < before.end) {
      throw new EditError(
        `edits[${before.index}] and edits[${after.index}] overlap in ${path}; merge them into one edit`,
      );
    }
  }
  return located;
}

/** Applies located (sorted, disjoint) edits to the text they were located in. */
export function applyEdits(original: string, located: readonly Located[]): string {
  let out = "";
  let at = 0;
  for (const edit of located) {
    out += original.slice(at, edit.start) + edit.newText;
    at = edit.end;
  }
  return out + original.slice(at);
}
