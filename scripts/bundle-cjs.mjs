// What the build's generating steps share (scripts/bundle.mjs, scripts/parameter-validators.mjs,
// scripts/request-validators.mjs): importing a module of tsc's output, and writing one CommonJS file in dist/
// bundled from generated source (its requires resolved from the repository root).
import { build } from 'esbuild';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

/** A module of tsc's output (dist/<file>), imported: the build's plain-JavaScript steps run without tsx. */
export function importBuilt(root, file) {
  return import(pathToFileURL(join(root, 'dist', file)).href);
}

/** Writes dist/<fileName> from `contents`; returns esbuild's metafile. */
export async function bundleCommonJs(root, fileName, contents) {
  const result = await build({
    absWorkingDir: root,
    stdin: { contents, resolveDir: root, sourcefile: fileName, loader: 'js' },
    outfile: `dist/${fileName}`,
    bundle: true,
    metafile: true,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    logLevel: 'warning',
    minifyWhitespace: true,
  });
  return result.metafile;
}
