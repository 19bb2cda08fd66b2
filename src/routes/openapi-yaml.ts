/**
 * The API description as YAML, in a module of its own that the route imports on the first request for it:
 * the YAML library stays out of every start. The library is imported statically here because esbuild's
 * code splitting turns a dynamic `import('yaml')` of this CommonJS package into its module wrapper, whose
 * named exports are missing in the bundle (the sources, run by tsx, hide that difference).
 */
import { stringify } from 'yaml';

/**
 * Written with YAML 1.1's rules, so every scalar 1.1 would read as a boolean or number (OFF, on, yes, 0777, …)
 * is quoted: PyYAML, Ruby and many Go tools read YAML 1.1; quoted strings read the same in 1.2.
 */
export function openApiYaml(document: Record<string, unknown>): string {
  return stringify(document, { aliasDuplicateObjects: false, version: '1.1' });
}
