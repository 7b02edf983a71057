/**
 * Reads the runnable parts of a doc section: the code blocks a consumer
 * pastes, the `npm install` lines, and the curl command with the output the
 * doc promises. The consumer test writes exactly these, so a doc that drifts
 * from what works fails it.
 */
import { readFileSync } from "node:fs";

export interface CodeBlock {
  lang: string;
  body: string;
}

export interface DocSection {
  blocks: CodeBlock[];
  /** Each `npm install [-D] a b` line: the names, and whether they are dev dependencies. */
  installs: { dev: boolean; names: string[] }[];
  /** The `$ curl …` line's URL path and the line the doc shows under it. */
  curl: { path: string; expected: string };
}

/** The section from `heading` (a whole `## …` line) to the next heading of the same level. */
export function readSection(file: string, heading: string): DocSection {
  const text = readFileSync(file, "utf8");
  const start = text.indexOf(`\n${heading}\n`);
  if (start < 0) throw new Error(`${file} has no section "${heading}"`);
  const level = heading.slice(0, heading.indexOf(" ") + 1);
  const next = text.indexOf(`\n${level}`, start + heading.length + 1);
  const section = text.slice(start, next < 0 ? undefined : next);
  const blocks = [...section.matchAll(/^```(\w+)\n([\s\S]*?)^```$/gm)].map(([, lang = "", body = ""]) => ({
    lang,
    body,
  }));
  const installs = blocks
    .filter((block) => block.lang === "sh")
    .flatMap((block) => block.body.split("\n"))
    .map((line) => line.trim().split(/\s+/))
    .filter((words) => words[0] === "npm" && words[1] === "install")
    .map((words) => ({ dev: words.includes("-D"), names: words.slice(2).filter((word) => !word.startsWith("-")) }));
  const consoleLines = blocks.filter((block) => block.lang === "console").flatMap((block) => block.body.split("\n"));
  const at = consoleLines.findIndex((line) => line.startsWith("$ curl "));
  const url = consoleLines[at]?.split(/\s+/).find((word) => word.startsWith("http://"));
  const expected = consoleLines[at + 1];
  if (url === undefined || expected === undefined) throw new Error(`${file} "${heading}": no "$ curl http://…" line`);
  return { blocks, installs, curl: { path: new URL(url).pathname, expected } };
}

export function block(section: DocSection, lang: string): string {
  const found = section.blocks.filter((candidate) => candidate.lang === lang);
  if (found.length !== 1) throw new Error(`expected one ${lang} block, found ${found.length}`);
  return (found[0] as CodeBlock).body;
}
