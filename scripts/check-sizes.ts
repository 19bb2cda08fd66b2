/**
 * Fails when a file of src/ grows past the size a reader can hold in mind (docs/architecture.md, "Sizes"):
 * a file over MAX_FILE_LINES lines or a function over MAX_FUNCTION_LINES lines, unless SIZE_EXCEPTIONS names
 * it with the reason it stays whole. Split an oversized file by concern (configuration lifecycle, power state,
 * preview), not by line count; a data table (the option table, the alert catalogue) may stay one file.
 * Run by `npm run check-layers`, which prints the exceptions, and by test/architecture/sizes.test.ts.
 */
import ts from 'typescript';

export const MAX_FILE_LINES = 300;
export const MAX_FUNCTION_LINES = 80;

/**
 * What may stay over the limits, each with why. A file is named by its path under src/; a function by
 * `path#name` (`Class.method`, the name of the variable or property an arrow function is assigned to,
 * or `name>callback N` for the N-th unnamed function inside `name`). An entry no longer over its limit
 * fails the check too, so the list only ever shrinks to what is true.
 */
export const SIZE_EXCEPTIONS: Readonly<Record<string, string>> = {
  // Data tables: one entry each, the one source of truth a new option or metric touches.
  'main/cli-options.ts': 'the option table CLI_OPTIONS, one entry per option (a data table)',
  'routes/metrics/unit-metrics.ts#createUnitMetrics': 'one gauge per unit figure, each a few lines (a data table)',
};

export interface SourceText {
  /** Path under src/, with forward slashes. */
  path: string;
  text: string;
}

export interface Sized {
  /** `path` for a file, `path#name` for a function. */
  name: string;
  lines: number;
  limit: number;
}

const lineCount = (text: string) => text.split('\n').length - (text.endsWith('\n') ? 1 : 0);

/** Every file and function of `files` with its size in lines and its limit. */
export function sizes(files: readonly SourceText[]): Sized[] {
  return files.flatMap(({ path, text }) => [
    { name: path, lines: lineCount(text), limit: MAX_FILE_LINES },
    ...functionSizes(path, text).map(({ name, lines }) => ({
      name: `${path}#${name}`,
      lines,
      limit: MAX_FUNCTION_LINES,
    })),
  ]);
}

function functionSizes(path: string, text: string): { name: string; lines: number }[] {
  const source = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true);
  const found: { name: string; lines: number }[] = [];
  const unnamedIn = new Map<string, number>();
  const visit = (node: ts.Node, enclosing: string): void => {
    let inside = enclosing;
    if (ts.isFunctionLike(node) && 'body' in node && node.body) {
      let name = functionName(node);
      if (name === undefined) {
        const count = (unnamedIn.get(enclosing) ?? 0) + 1;
        unnamedIn.set(enclosing, count);
        name = `${enclosing || '(top)'}>callback ${count}`;
      }
      const start = source.getLineAndCharacterOfPosition(node.getStart(source)).line;
      const end = source.getLineAndCharacterOfPosition(node.getEnd()).line;
      found.push({ name, lines: end - start + 1 });
      inside = name;
    }
    ts.forEachChild(node, (child) => visit(child, inside));
  };
  visit(source, '');
  return found;
}

function functionName(node: ts.SignatureDeclaration): string | undefined {
  const owner = (member: ts.Node) => {
    const parent = member.parent;
    return ts.isClassLike(parent) && parent.name ? `${parent.name.text}.` : '';
  };
  if (ts.isConstructorDeclaration(node)) return `${owner(node)}constructor`;
  if (node.name && (ts.isIdentifier(node.name) || ts.isStringLiteral(node.name) || ts.isPrivateIdentifier(node.name)))
    return `${owner(node)}${node.name.text}`;
  const parent = node.parent;
  if (
    (ts.isVariableDeclaration(parent) || ts.isPropertyDeclaration(parent) || ts.isPropertyAssignment(parent)) &&
    ts.isIdentifier(parent.name)
  )
    return `${ts.isPropertyDeclaration(parent) ? owner(parent) : ''}${parent.name.text}`;
  return undefined;
}

/** The files and functions over their limit that SIZE_EXCEPTIONS does not name, and the exceptions no longer needed. */
export function sizeViolations(
  measured: readonly Sized[],
  exceptions: Readonly<Record<string, string>> = SIZE_EXCEPTIONS,
): string[] {
  const over = measured.filter(({ lines, limit }) => lines > limit);
  const problems = over
    .filter(({ name }) => !(name in exceptions))
    .map(({ name, lines, limit }) =>
      name.includes('#')
        ? `src/${name.replace('#', ': function ')} has ${lines} lines, over ${limit}: split it by concern, or name it in SIZE_EXCEPTIONS (scripts/check-sizes.ts) with why`
        : `src/${name} has ${lines} lines, over ${limit}: split it by concern, or name it in SIZE_EXCEPTIONS (scripts/check-sizes.ts) with why`,
    );
  const overNames = new Set(over.map(({ name }) => name));
  for (const name of Object.keys(exceptions))
    if (!overNames.has(name)) problems.push(`SIZE_EXCEPTIONS names ${name}, which is not over its limit: remove it`);
  return problems;
}

/** The exceptions as the check prints them: what stays over its limit, and why. */
export function exceptionLines(
  measured: readonly Sized[],
  exceptions: Readonly<Record<string, string>> = SIZE_EXCEPTIONS,
): string[] {
  const linesOf = new Map(measured.map(({ name, lines }) => [name, lines]));
  return Object.entries(exceptions).map(([name, why]) => `  src/${name} (${linesOf.get(name) ?? '?'} lines): ${why}`);
}
