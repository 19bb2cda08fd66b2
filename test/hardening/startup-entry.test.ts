/**
 * The built entry (dist/cli.js, from src/main/cli.ts) sets the process-wide runtime options before any
 * of the server's code is loaded: an ES module evaluates all of its static imports before its own
 * body, so whatever the entry imports statically is compiled (and grows the young generation) before
 * the options take effect. The server must therefore come through a dynamic import.
 */
import { readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const DIST = resolve(import.meta.dirname, '../../dist');

/** Relative modules that `source` imports statically (`import … from "./x.js"` or `import "./x.js"`). */
function staticImports(source: string): string[] {
  const found = [...source.matchAll(/(?:^|[;\s])import\s*(?:[^'"();]*?from\s*)?["'](\.\/[^"']+)["']/g)];
  return found.map((match) => match[1]);
}

describe("the command's entry", () => {
  const entry = readFileSync(join(DIST, 'cli.js'), 'utf8');

  it('loads nothing of the server before its body runs', () => {
    const imported = staticImports(entry);
    // The bundler's own helpers may come as a chunk of their own; nothing else.
    const bytes = imported.reduce((sum, file) => sum + statSync(join(DIST, file)).size, 0);
    expect(bytes).toBeLessThan(4096);
    for (const file of imported) expect(staticImports(readFileSync(join(DIST, file), 'utf8'))).toEqual([]);
  });

  it('sets the young generation and compile cache options, then imports the command', () => {
    const flag = entry.indexOf('--semi-space-growth-factor=1');
    const cache = entry.indexOf('enableCompileCache()');
    const command = entry.search(/await import\(["']\.\/[^"']+["']\)/);
    expect(flag).toBeGreaterThan(0);
    expect(cache).toBeGreaterThan(0);
    expect(command).toBeGreaterThan(flag);
    expect(command).toBeGreaterThan(cache);
  });
});
