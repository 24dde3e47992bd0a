/**
 * Every import of src/ and commands/, read with the TypeScript parser (multi-line imports, `import type`,
 * `export … from`, `import()`, `typeof import()`, and a package file found with `createRequire(…).resolve()`),
 * for the tests that check them: the layer rules (test/unit/architecture.test.ts) and what the published
 * package must depend on (test/unit/package.test.ts).
 */
import { existsSync, readFileSync, readdirSync, statSync } from "node:fs";
import { dirname, join, relative, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");

export interface Import {
  from: string; // importing file, repo-relative with "/" separators
  spec: string; // module specifier as written
  target: string | undefined; // repo-relative resolved file for relative specifiers
  pkg: string | undefined; // package name for bare specifiers
  typeOnly: boolean;
  /** Loaded when the code runs (`import()`, `createRequire(…).resolve()`), not when the module loads. */
  dynamic?: boolean;
  line: number;
}

export const isDynamic = (i: Import) => i.dynamic === true;

export function walk(dir: string): string[] {
  if (!existsSync(dir)) return [];
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) out.push(...walk(p));
    else if (/\.(ts|tsx|mts)$/.test(name) && !name.endsWith(".d.ts")) out.push(p);
  }
  return out;
}

export const rel = (p: string) => relative(ROOT, p).split(sep).join("/");

export function packageName(spec: string): string {
  const parts = spec.split("/");
  return spec.startsWith("@") ? parts.slice(0, 2).join("/") : (parts[0] ?? spec);
}

function resolveRelative(fromFile: string, spec: string): string | undefined {
  const base = resolve(dirname(fromFile), spec);
  const candidates = [base.replace(/\.(m?js|jsx)$/, ".ts"), base.replace(/\.(m?js|jsx)$/, ".tsx"), base, `${base}.ts`, join(base, "index.ts")];
  const found = candidates.find((c) => existsSync(c) && statSync(c).isFile());
  return found ? rel(found) : undefined;
}

/** `createRequire(…).resolve(…)` (directly on the call's result, as src/ writes it). */
function isRequireResolve(node: ts.CallExpression): boolean {
  const callee = node.expression;
  if (!ts.isPropertyAccessExpression(callee) || callee.name.text !== "resolve") return false;
  const target = callee.expression;
  return ts.isCallExpression(target) && ts.isIdentifier(target.expression) && target.expression.text === "createRequire";
}

export function importsOf(file: string): Import[] {
  const text = readFileSync(file, "utf8");
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, file.endsWith(".tsx") ? ts.ScriptKind.TSX : ts.ScriptKind.TS);
  const out: Import[] = [];
  const add = (node: ts.Node, specNode: ts.Expression | undefined, typeOnly: boolean, dynamic = false) => {
    if (!specNode || !ts.isStringLiteralLike(specNode)) return;
    const spec = specNode.text;
    const relativeSpec = spec.startsWith(".");
    out.push({
      from: rel(file),
      spec,
      target: relativeSpec ? (resolveRelative(file, spec) ?? `UNRESOLVED:${spec}`) : undefined,
      pkg: relativeSpec || spec.startsWith("node:") ? undefined : packageName(spec),
      typeOnly,
      dynamic,
      line: sf.getLineAndCharacterOfPosition(node.getStart()).line + 1,
    });
  };
  const visit = (node: ts.Node) => {
    if (ts.isImportDeclaration(node)) {
      const clause = node.importClause;
      let typeOnly = !!clause?.isTypeOnly;
      if (clause && !typeOnly && !clause.name && clause.namedBindings && ts.isNamedImports(clause.namedBindings)) {
        const els = clause.namedBindings.elements;
        typeOnly = els.length > 0 && els.every((e) => e.isTypeOnly);
      }
      add(node, node.moduleSpecifier, typeOnly);
    } else if (ts.isExportDeclaration(node)) {
      let typeOnly = node.isTypeOnly;
      if (!typeOnly && node.exportClause && ts.isNamedExports(node.exportClause)) {
        const els = node.exportClause.elements;
        typeOnly = els.length > 0 && els.every((e) => e.isTypeOnly);
      }
      add(node, node.moduleSpecifier, typeOnly);
    } else if (ts.isImportEqualsDeclaration(node) && ts.isExternalModuleReference(node.moduleReference)) {
      add(node, node.moduleReference.expression, node.isTypeOnly);
    } else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
      add(node, node.arguments[0], false, true);
    } else if (ts.isCallExpression(node) && isRequireResolve(node)) {
      add(node, node.arguments[0], false, true);
    } else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument)) {
      add(node, node.argument.literal as ts.Expression, true);
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return out;
}

/** The shipped code's files (src/ and commands/) and their imports. */
export const FILES = [...walk(join(ROOT, "src")), ...walk(join(ROOT, "commands"))];
export const IMPORTS = FILES.flatMap(importsOf);
