// One CommonJS file in dist/ bundled from generated source (its requires resolved from the repository
// root): how the build writes the files that units require on first use (scripts/bundle.mjs,
// scripts/parameter-validators.mjs). Returns esbuild's metafile.
import { build } from 'esbuild';

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
