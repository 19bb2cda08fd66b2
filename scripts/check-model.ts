/**
 * Fails when src/model/ reaches out of the process's memory (docs/architecture.md, "Layers"): the model is plain
 * data and pure functions, so none of its files imports a `node:` module that reads or writes files, sockets,
 * threads, processes or the machine (NODE_IO_MODULES). Two of node:net's exports are pure (address parsing and
 * matching) and named in PURE_EXPORTS. What loads packages or built files on first use is src/first-use/, a layer above.
 * Run by `npm run check-layers` (scripts/check-layers.ts) and test/architecture/layers.test.ts.
 */
import ts from 'typescript';

/** `node:` modules of I/O (files, sockets, threads, processes, the machine, the module loader). */
export const NODE_IO_MODULES: readonly string[] = [
  'child_process',
  'cluster',
  'dgram',
  'dns',
  'dns/promises',
  'fs',
  'fs/promises',
  'http',
  'http2',
  'https',
  'inspector',
  'module',
  'net',
  'os',
  'process',
  'readline',
  'tls',
  'worker_threads',
];

/** Exports of an I/O module that do no I/O: node:net's address parsing and CIDR matching (model/address-list.ts). */
const PURE_EXPORTS: Readonly<Record<string, readonly string[]>> = {
  net: ['BlockList', 'isIP', 'isIPv4', 'isIPv6'],
};

/** The `node:` I/O imports of one file of src/model/ (path under src/), as problems. */
export function modelIoImports(path: string, text: string): string[] {
  if (!path.startsWith('model/')) return [];
  const source = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, false);
  const problems: string[] = [];
  for (const statement of source.statements) {
    if (!ts.isImportDeclaration(statement) && !ts.isExportDeclaration(statement)) continue;
    const specifier = statement.moduleSpecifier;
    if (!specifier || !ts.isStringLiteral(specifier)) continue;
    const module = specifier.text.replace(/^node:/, '');
    if (!NODE_IO_MODULES.includes(module)) continue;
    const names = importedNames(statement);
    const pure = PURE_EXPORTS[module] ?? [];
    if (names?.every((name) => pure.includes(name))) continue;
    problems.push(
      `src/${path} imports node:${module}: the model does no I/O (move the file to the folder that does: src/first-use/ for what is loaded on first use)`,
    );
  }
  return problems;
}

/** The names an import or re-export takes; undefined for a namespace, default or side-effect import (all of it). */
function importedNames(statement: ts.ImportDeclaration | ts.ExportDeclaration): string[] | undefined {
  const bindings = ts.isImportDeclaration(statement)
    ? statement.importClause?.name
      ? undefined
      : statement.importClause?.namedBindings
    : statement.exportClause;
  if (!bindings || !(ts.isNamedImports(bindings) || ts.isNamedExports(bindings))) return undefined;
  return bindings.elements.map((element) => (element.propertyName ?? element.name).text);
}
