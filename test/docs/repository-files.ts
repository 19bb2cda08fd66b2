/** The repository's own text files the docs tests read: code, tests, scripts, benchmarks, docs and deployments. */
import { existsSync, readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';

export const ROOT = resolve(import.meta.dirname, '../..');
const FOLDERS = ['src', 'test', 'scripts', 'bench', 'docs', 'deploy', 'web', '.ci'];
const ROOT_FILES = ['README.md', 'CONTRIBUTING.md', 'CHANGELOG.md', 'Dockerfile', 'package.json'];
const TEXT = /\.(ts|mts|mjs|cjs|js|sh|md|ya?ml|json|service|conf|html|css|c|path)$|^run$/;
/** Samples carried as they were received (test/fixtures/recordings/README.md): not the project's own text. */
const NOT_OURS = /^test\/fixtures\//;

function filesUnder(folder: string): string[] {
  if (!existsSync(join(ROOT, folder))) return [];
  const found: string[] = [];
  for (const entry of readdirSync(join(ROOT, folder), { withFileTypes: true })) {
    const path = join(folder, entry.name);
    if (entry.isDirectory()) found.push(...filesUnder(path));
    else if (TEXT.test(entry.name) && !NOT_OURS.test(path)) found.push(path);
  }
  return found;
}

/** Every such file, as a path from the repository's root. */
export function repositoryFiles(): string[] {
  return [...ROOT_FILES.filter((file) => existsSync(join(ROOT, file))), ...FOLDERS.flatMap(filesUnder)];
}
