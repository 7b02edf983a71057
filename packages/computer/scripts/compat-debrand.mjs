/**
 * The de-branded copy of the reference's declarations that
 * tsconfig.compat.json reads (compat-surface.mjs --prepare, and every other
 * mode of it first).
 */
import { mkdirSync, readdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, relative, sep } from "node:path";

const require = createRequire(import.meta.url);
const ts = require("typescript");

const referenceName = "computer-reference";

// ---------------------------------------------------------------------------
// The de-branded reference
//
// A class with a `#private` or `private` member is nominal: only its own
// declaration is assignable to it. User code that switches its imports never
// names the original's classes, so their brands cannot matter to it, yet a
// brand deep inside a member's type (a stub's `fs`, a provider's `db`) would
// fail the whole name. The fixtures therefore compare against a copy of the
// reference's `.d.ts` files with those members removed from every class, at
// every depth, and with members keyed by a unique symbol the package never
// exports (user code cannot name the key); public and protected members, and
// everything else, are kept.

function isPrivateMember(member) {
  if (member.name && ts.isPrivateIdentifier(member.name)) return true;
  return (ts.getCombinedModifierFlags(member) & ts.ModifierFlags.Private) !== 0;
}

/**
 * `declare const X: unique symbol` that its file does not export: no other
 * file can import it, so user code can never name a member keyed by it
 * (`WorkspaceLocalHost`'s `[WORKSPACE]`). Such members are private too.
 */
function hiddenSymbols(source) {
  const declared = new Set();
  const exported = new Set();
  for (const statement of source.statements) {
    if (ts.isVariableStatement(statement)) {
      const isExported = statement.modifiers?.some((m) => m.kind === ts.SyntaxKind.ExportKeyword);
      for (const d of statement.declarationList.declarations) {
        const unique = d.type && ts.isTypeOperatorNode(d.type) && d.type.operator === ts.SyntaxKind.UniqueKeyword;
        if (unique && ts.isIdentifier(d.name)) (isExported ? exported : declared).add(d.name.text);
      }
    } else if (
      ts.isExportDeclaration(statement) &&
      statement.exportClause &&
      ts.isNamedExports(statement.exportClause)
    ) {
      for (const e of statement.exportClause.elements) exported.add((e.propertyName ?? e.name).text);
    }
  }
  return new Set([...declared].filter((name) => !exported.has(name)));
}

/** `text` with the private members of its classes (and members keyed by hidden symbols) removed. */
function debrand(fileName, text) {
  const source = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true);
  const hidden = hiddenSymbols(source);
  const keyedByHidden = (member) =>
    member.name !== undefined &&
    ts.isComputedPropertyName(member.name) &&
    ts.isIdentifier(member.name.expression) &&
    hidden.has(member.name.expression.text);
  const strip = (context) => {
    const { factory } = context;
    const visit = (node) => {
      if (ts.isClassDeclaration(node)) {
        return factory.updateClassDeclaration(
          node,
          node.modifiers,
          node.name,
          node.typeParameters,
          node.heritageClauses,
          node.members
            .filter((member) => !isPrivateMember(member) && !keyedByHidden(member))
            .map((m) => ts.visitEachChild(m, visit, context)),
        );
      }
      if (ts.isInterfaceDeclaration(node)) {
        return factory.updateInterfaceDeclaration(
          node,
          node.modifiers,
          node.name,
          node.typeParameters,
          node.heritageClauses,
          node.members.filter((member) => !keyedByHidden(member)).map((m) => ts.visitEachChild(m, visit, context)),
        );
      }
      if (ts.isTypeLiteralNode(node)) {
        return factory.updateTypeLiteralNode(
          node,
          factory.createNodeArray(
            node.members.filter((member) => !keyedByHidden(member)).map((m) => ts.visitEachChild(m, visit, context)),
          ),
        );
      }
      return ts.visitEachChild(node, visit, context);
    };
    return (file) => ts.visitNode(file, visit);
  };
  const [stripped] = ts.transform(source, [strip]).transformed;
  return ts.createPrinter().printFile(stripped);
}

function declarationFiles(dir) {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((d) => d.isFile() && d.name.endsWith(".d.ts"))
    .map((d) => join(d.parentPath, d.name));
}

/**
 * A bare specifier the copy would resolve from its own directory to another
 * package than the original does (capnweb: ours and theirs are different
 * versions) is pointed at the original's resolution.
 */
function pinBareImports(text, fromOriginal, toCopy, compilerOptions) {
  return text.replace(/(from |import\()"([^".][^":]*)"/g, (whole, lead, specifier) => {
    const theirs = ts.resolveModuleName(specifier, fromOriginal, compilerOptions, ts.sys).resolvedModule;
    if (theirs === undefined) return whole;
    const ours = ts.resolveModuleName(specifier, toCopy, compilerOptions, ts.sys).resolvedModule;
    if (ours !== undefined && realpathSync(ours.resolvedFileName) === realpathSync(theirs.resolvedFileName))
      return whole;
    let target = relative(dirname(toCopy), theirs.resolvedFileName).split(sep).join("/");
    target = target.replace(/\.d\.([cm]?)ts$/, ".$1js");
    return `${lead}"${target.startsWith(".") ? target : `./${target}`}"`;
  });
}

/** The subpath's entry module in the copy: `computer-reference/<subpath>` maps to `<subpath>.d.ts`. */
function debrandedEntry(debrandedRoot, subpath) {
  return join(debrandedRoot, `${subpath === "." ? "index" : subpath.slice(2)}.d.ts`);
}

/**
 * Writes the de-branded copy: `dist/` mirrors the reference's declarations,
 * and one entry file per subpath re-exports its module (so one `paths`
 * pattern covers every subpath): the package at `referenceRoot` into
 * `debrandedRoot`. `subpaths` are the reference's (`{ subpath, dts }`),
 * `compilerOptions` tsconfig.compat.json's, which resolve the bare imports
 * the copy pins.
 */
export function prepareDebrandedReference({ referenceRoot, debrandedRoot, subpaths, compilerOptions }) {
  const dist = join(referenceRoot, "dist");
  rmSync(debrandedRoot, { recursive: true, force: true });
  for (const file of declarationFiles(dist)) {
    const copy = join(debrandedRoot, "dist", relative(dist, file));
    mkdirSync(dirname(copy), { recursive: true });
    const text = debrand(file, readFileSync(file, "utf8"));
    writeFileSync(copy, pinBareImports(text, realpathSync(file), copy, compilerOptions));
  }
  for (const { subpath, dts } of subpaths) {
    const entry = debrandedEntry(debrandedRoot, subpath);
    const target = join(debrandedRoot, "dist", relative(dist, dts)).replace(/\.d\.ts$/, ".js");
    let spec = relative(dirname(entry), target).split(sep).join("/");
    if (!spec.startsWith(".")) spec = `./${spec}`;
    const hasDefault = /\bas default\b|export default/.test(readFileSync(dts, "utf8"));
    mkdirSync(dirname(entry), { recursive: true });
    writeFileSync(
      entry,
      [
        `// Generated by scripts/compat-surface.mjs: ${referenceName}'s ${subpath}, without private members.`,
        `export * from "${spec}";`,
        ...(hasDefault ? [`export { default } from "${spec}";`] : []),
        "",
      ].join("\n"),
    );
  }
}
