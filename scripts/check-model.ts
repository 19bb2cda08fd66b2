/**
 * Fails when src/model/ reaches out of the process's memory (docs/architecture.md, "Layers"): the model is plain
 * data and pure functions, so none of its files imports a `node:` module that reads or writes files, sockets,
 * threads, processes or the machine (NODE_IO_MODULES). Two of node:net's exports are pure (address parsing and
 * matching) and named in PURE_EXPORTS; what stays in the model for all that is MODEL_IO_EXCEPTIONS, with why.
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

/** Files of src/model/ (paths under src/) that do I/O all the same, each with why it stays. */
export const MODEL_IO_EXCEPTIONS: Readonly<Record<string, string>> = {
  'model/util/installed-package.ts':
    "requires a package on first use: the model's zone set check (zone-set-rules.ts) loads Ajv through it",
  'model/util/built-file.ts': 'finds the bundle of first-use packages beside the CLI, for installed-package.ts',
};

/** The `node:` I/O imports of one file of src/model/ (path under src/), as problems. */
export function modelIoImports(path: string, text: string): string[] {
  if (!path.startsWith('model/') || path in MODEL_IO_EXCEPTIONS) return [];
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
      `src/${path} imports node:${module}: the model does no I/O (move the file to the folder that does, or name it in MODEL_IO_EXCEPTIONS of scripts/check-model.ts with why)`,
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
