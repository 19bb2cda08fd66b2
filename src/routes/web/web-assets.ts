/**
 * The web page's static files (the repository's `web/` folder, shipped with the package: a unit has no
 * internet, so nothing comes from a CDN). Read once, served from memory with an ETag.
 */
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { extname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The package's `web/` folder: three levels above this module in `src/routes/web/` and tsc's
 * `dist/routes/web/`, one
 * above the bundled `dist/cli.js` (scripts/bundle.mjs).
 */
export const WEB_ROOT =
  ['../../../web/', '../web/']
    .map((relative) => fileURLToPath(new URL(relative, import.meta.url)))
    .find((folder) => existsSync(join(folder, 'index.html'))) ??
  fileURLToPath(new URL('../../../web/', import.meta.url));

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
};

export interface WebAsset {
  body: Buffer;
  type: string;
  etag: string;
}

/** Every servable file of `root` by name (no subfolders: the page is a handful of files). */
export function loadWebAssets(root = WEB_ROOT): Map<string, WebAsset> {
  const assets = new Map<string, WebAsset>();
  // An install without the page's files still serves the API; the page then answers 404 saying so.
  if (!existsSync(root)) return assets;
  for (const name of readdirSync(root)) {
    const type = TYPES[extname(name)];
    if (!type) continue;
    const body = readFileSync(join(root, name));
    assets.set(name, { body, type, etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 16)}"` });
  }
  return assets;
}
