/**
 * Compiles the find/grep glob dialect to an anchored RegExp over a relative
 * path: `*` is any run without `/`, `**` anything, `**` followed by `/` zero
 * or more whole directories, `?` one non-`/` character. Everything else,
 * `[]{}` included, is literal.
 */
export function compileGlob(pattern: string): RegExp {
  let source = "";
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i] as string;
    if (c === "*") {
      if (pattern[i + 1] === "*") {
        if (pattern[i + 2] === "/") {
          source += "(?:.*/)?";
          i += 2;
        } else {
          source += ".*";
          i += 1;
        }
      } else {
        source += "[^/]*";
      }
    } else if (c === "?") {
      source += "[^/]";
    } else {
      source += c.replace(/[\\^$.*+?()[\]{}|/-]/g, "\\$&");
    }
  }
  return new RegExp(`^${source}$`, "s");
}
