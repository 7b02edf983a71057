/**
 * The test shell's grammar: lists of and-or chains of pipelines of simple
 * commands, with quoting, `$VAR` expansion and file redirections. Anything
 * past that (subshells, `$(…)`, backticks, `&`, globs, control flow) is a
 * syntax error rather than a silent misreading, so a test that needs more
 * fails loudly instead of passing for the wrong reason.
 */

/** `quoted` matters only for spotting assignments (`X=1`) and fd numbers (`2>`), which must be bare. */
export type WordPart = { kind: "text"; text: string; quoted: boolean } | { kind: "var"; name: string };
export type Word = WordPart[];

export type RedirectOp = ">" | ">>" | "<" | ">&";

export interface Redirect {
  fd: 0 | 1 | 2;
  op: RedirectOp;
  /** A file for `>`, `>>`, `<`; the fd to copy ("1" or "2") for `>&`. */
  target: Word;
}

export interface SimpleCommand {
  assigns: { name: string; value: Word }[];
  words: Word[];
  redirects: Redirect[];
}

export interface Pipeline {
  commands: SimpleCommand[];
  negated: boolean;
}

export interface AndOr {
  head: Pipeline;
  tail: { op: "&&" | "||"; pipeline: Pipeline }[];
}

export type Script = AndOr[];

export class ShellSyntaxError extends Error {
  override readonly name = "ShellSyntaxError";
}

type Operator = ";" | "\n" | "&&" | "||" | "|" | RedirectOp;
type Token = { kind: "word"; word: Word } | { kind: "op"; op: Operator; fd?: number };

const NAME = /^[A-Za-z_][A-Za-z0-9_]*/;

export function parse(source: string): Script {
  return new Parser(tokenize(source)).script();
}

function tokenize(source: string): Token[] {
  const tokens: Token[] = [];
  let word: Word = [];
  let started = false;
  let i = 0;

  const text = (value: string, quoted: boolean): void => {
    started = true;
    const last = word[word.length - 1];
    if (last?.kind === "text" && last.quoted === quoted) last.text += value;
    else word.push({ kind: "text", text: value, quoted });
  };
  const flush = (): void => {
    if (started) tokens.push({ kind: "word", word });
    word = [];
    started = false;
  };
  /** `$` at `i`: pushes a variable part (or a literal `$`) and moves `i` past it. */
  const dollar = (quoted: boolean): void => {
    const rest = source.slice(i + 1);
    if (rest.startsWith("(")) throw new ShellSyntaxError("command substitution is not supported");
    if (rest.startsWith("{")) {
      const end = rest.indexOf("}");
      const name = end === -1 ? "" : rest.slice(1, end);
      if (!/^([A-Za-z_][A-Za-z0-9_]*|\?)$/.test(name)) {
        throw new ShellSyntaxError(`bad substitution: \${${end === -1 ? rest.slice(1) : name}}`);
      }
      started = true;
      word.push({ kind: "var", name });
      i += end + 2;
      return;
    }
    const special = rest[0];
    const name = special === "?" || (special !== undefined && /[0-9]/.test(special)) ? special : NAME.exec(rest)?.[0];
    if (name === undefined) {
      text("$", quoted);
      i += 1;
      return;
    }
    started = true;
    word.push({ kind: "var", name });
    i += 1 + name.length;
  };

  while (i < source.length) {
    const c = source[i] as string;
    if (c === " " || c === "\t") {
      flush();
      i += 1;
    } else if (c === "\n") {
      flush();
      tokens.push({ kind: "op", op: "\n" });
      i += 1;
    } else if (c === "#" && !started) {
      while (i < source.length && source[i] !== "\n") i += 1;
    } else if (c === "\\") {
      const next = source[i + 1];
      if (next !== "\n" && next !== undefined) text(next, true);
      i += 2;
    } else if (c === "'") {
      const end = source.indexOf("'", i + 1);
      if (end === -1) throw new ShellSyntaxError("unterminated quoted string");
      text(source.slice(i + 1, end), true);
      i = end + 1;
    } else if (c === '"') {
      started = true;
      i += 1;
      for (;;) {
        const d = source[i];
        if (d === undefined) throw new ShellSyntaxError("unterminated quoted string");
        if (d === '"') break;
        if (d === "`") throw new ShellSyntaxError("command substitution is not supported");
        if (d === "$") {
          dollar(true);
          continue;
        }
        if (d === "\\" && i + 1 < source.length && '$`"\\\n'.includes(source[i + 1] as string)) {
          if (source[i + 1] !== "\n") text(source[i + 1] as string, true);
          i += 2;
          continue;
        }
        text(d, true);
        i += 1;
      }
      i += 1;
    } else if (c === "$") {
      dollar(false);
    } else if (c === "`" || c === "(" || c === ")") {
      throw new ShellSyntaxError(c === "`" ? "command substitution is not supported" : "subshells are not supported");
    } else if (c === ";" || c === "&" || c === "|" || c === "<" || c === ">") {
      let fd: number | undefined;
      const only = word[0];
      if ((c === "<" || c === ">") && word.length === 1 && only?.kind === "text" && !only.quoted) {
        if (/^[0-9]+$/.test(only.text)) {
          fd = Number(only.text);
          word = [];
          started = false;
        }
      }
      flush();
      const two = source.slice(i, i + 2);
      let op: Operator;
      if (two === "&&" || two === "||" || two === ">>" || two === ">&") op = two;
      else if (c === "&") throw new ShellSyntaxError("background jobs (&) are not supported");
      else op = c;
      tokens.push(fd === undefined ? { kind: "op", op } : { kind: "op", op, fd });
      i += op.length;
    } else {
      text(c, false);
      i += 1;
    }
  }
  flush();
  return tokens;
}

class Parser {
  #at = 0;

  constructor(readonly tokens: Token[]) {}

  script(): Script {
    const list: AndOr[] = [];
    for (;;) {
      while (this.#isOp(";") || this.#isOp("\n")) this.#at += 1;
      if (this.#peek() === undefined) return list;
      list.push(this.#andOr());
      const next = this.#peek();
      if (next !== undefined && !(next.kind === "op" && (next.op === ";" || next.op === "\n"))) this.#unexpected();
    }
  }

  #andOr(): AndOr {
    const head = this.#pipeline();
    const tail: AndOr["tail"] = [];
    for (;;) {
      const op = this.#isOp("&&") ? "&&" : this.#isOp("||") ? "||" : undefined;
      if (op === undefined) return { head, tail };
      this.#at += 1;
      this.#skipNewlines();
      tail.push({ op, pipeline: this.#pipeline() });
    }
  }

  #pipeline(): Pipeline {
    let negated = false;
    const first = this.#peek();
    if (first?.kind === "word" && isBare(first.word, "!")) {
      negated = true;
      this.#at += 1;
    }
    const commands = [this.#command()];
    while (this.#isOp("|")) {
      this.#at += 1;
      this.#skipNewlines();
      commands.push(this.#command());
    }
    return { commands, negated };
  }

  #command(): SimpleCommand {
    const command: SimpleCommand = { assigns: [], words: [], redirects: [] };
    for (;;) {
      const token = this.#peek();
      if (token?.kind === "word") {
        this.#at += 1;
        const assign = command.words.length === 0 ? assignment(token.word) : undefined;
        if (assign) command.assigns.push(assign);
        else command.words.push(token.word);
      } else if (
        token?.kind === "op" &&
        (token.op === ">" || token.op === ">>" || token.op === "<" || token.op === ">&")
      ) {
        this.#at += 1;
        const target = this.#peek();
        if (target?.kind !== "word") this.#unexpected();
        this.#at += 1;
        const fd = token.fd ?? (token.op === "<" ? 0 : 1);
        if (fd !== 0 && fd !== 1 && fd !== 2) throw new ShellSyntaxError(`file descriptor ${fd} is not supported`);
        if (token.op === ">&" && !(isBare(target.word, "1") || isBare(target.word, "2"))) {
          throw new ShellSyntaxError(">& only copies fd 1 or 2");
        }
        command.redirects.push({ fd, op: token.op, target: target.word });
      } else {
        break;
      }
    }
    if (command.words.length === 0 && command.assigns.length === 0 && command.redirects.length === 0) {
      this.#unexpected();
    }
    return command;
  }

  #skipNewlines(): void {
    while (this.#isOp("\n")) this.#at += 1;
  }

  #peek(): Token | undefined {
    return this.tokens[this.#at];
  }

  #isOp(op: Operator): boolean {
    const token = this.#peek();
    return token?.kind === "op" && token.op === op;
  }

  #unexpected(): never {
    const token = this.#peek();
    const shown =
      token === undefined ? "end of file" : token.kind === "op" ? (token.op === "\n" ? "newline" : token.op) : "word";
    throw new ShellSyntaxError(`syntax error near unexpected token '${shown}'`);
  }
}

function isBare(word: Word, text: string): boolean {
  const only = word[0];
  return word.length === 1 && only?.kind === "text" && !only.quoted && only.text === text;
}

/** `NAME=value` where `NAME=` is unquoted; the value keeps its own quoting. */
function assignment(word: Word): { name: string; value: Word } | undefined {
  const first = word[0];
  if (first?.kind !== "text" || first.quoted) return undefined;
  const name = NAME.exec(first.text)?.[0];
  if (name === undefined || first.text[name.length] !== "=") return undefined;
  const rest = first.text.slice(name.length + 1);
  const value: Word = rest === "" ? [] : [{ kind: "text", text: rest, quoted: false }];
  return { name, value: [...value, ...word.slice(1)] };
}
