/**
 * The factory data file, `<data-dir>/factory.json` (src/model/factory-data.ts): written once,
 * atomically (a temporary file, fsync'd, renamed into place, the directory fsync'd), and never by
 * the configuration store, so a damaged or reset database cannot change the unit's identity.
 */
import { closeSync, fsyncSync, openSync, readFileSync, renameSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { decodeFactoryData, encodeFactoryData, type FactoryData } from '../model/index.js';

export const FACTORY_FILE = 'factory.json';

export type FactoryFile =
  | { state: 'ok'; data: FactoryData; path: string }
  | { state: 'missing'; path: string }
  | { state: 'damaged'; problem: string; path: string };

export function readFactoryFile(dataDir: string): FactoryFile {
  const path = join(dataDir, FACTORY_FILE);
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return { state: 'missing', path };
    return { state: 'damaged', problem: `it cannot be read (${code ?? (error as Error).message})`, path };
  }
  const decoded = decodeFactoryData(text);
  return 'problem' in decoded
    ? { state: 'damaged', problem: decoded.problem, path }
    : { state: 'ok', data: decoded, path };
}

export function writeFactoryFile(dataDir: string, data: FactoryData): void {
  const path = join(dataDir, FACTORY_FILE);
  const temporary = `${path}.tmp`;
  const fd = openSync(temporary, 'w', 0o644);
  try {
    writeSync(fd, encodeFactoryData(data));
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(temporary, path);
  const dir = openSync(dataDir, 'r');
  try {
    fsyncSync(dir);
  } finally {
    closeSync(dir);
  }
}
