/**
 * Who the unit is: its factory data (src/store/factory-file.ts), never the configuration store.
 *
 * - The factory file is intact: its serial, MAC and calibration time. `--serial` with another serial
 *   reprograms a simulated unit's factory data; a real unit (`--hal linux`) refuses it.
 * - It is missing: a data directory of an earlier version kept the serial in the database; it moves
 *   to the factory file, the same serial. Otherwise `--serial` programs it, and a simulated unit makes
 *   up a new serial; a real unit refuses to invent one and says so.
 * - It is damaged: a real unit refuses to start and says so; a simulated unit keeps the damaged file
 *   aside and starts as a new unit.
 */
import { renameSync } from 'node:fs';
import type { Logger } from 'pino';
import { type FactoryData, factoryDataFor, generateSerial, utcIsoString } from '../model/index.js';
import { KV_KEYS, KvStore, readFactoryFile, type SqliteDatabase, writeFactoryFile } from '../store/index.js';

export class FactoryDataError extends Error {}

export interface FactoryIdentityOptions {
  dataDir: string;
  /** `--serial`, already checked. */
  serial: string | undefined;
  realUnit: boolean;
  log: Logger;
}

const HOW_TO_FIX = "restore it from the unit's backup, or program the serial once with --serial";

export function resolveFactoryData(db: SqliteDatabase, options: FactoryIdentityOptions): FactoryData {
  const file = readFactoryFile(options.dataDir);
  if (file.state === 'ok') {
    if (options.serial === undefined || options.serial === file.data.serialNumber) return file.data;
    if (options.realUnit)
      throw new FactoryDataError(
        `the factory data (${file.path}) says serial ${file.data.serialNumber}; --serial ${options.serial} cannot change the serial of a real unit`,
      );
    return program(options, factoryDataFor(options.serial));
  }
  if (file.state === 'damaged') {
    if (options.realUnit)
      throw new FactoryDataError(
        `the factory data ${file.path} is damaged (${file.problem}); a real unit does not invent a serial: ${HOW_TO_FIX}`,
      );
    const aside = `${file.path}.damaged-${utcIsoString(Date.now()).replace(/[-:]/g, '')}`;
    renameSync(file.path, aside);
    options.log.warn(
      { file: file.path, keptAs: aside, problem: file.problem },
      'factory data damaged; a new simulated unit',
    );
  }
  const kv = new KvStore(db);
  const legacy = kv.get<{ serialNumber: string }>(KV_KEYS.legacyIdentity)?.serialNumber;
  const serial = options.serial ?? legacy;
  if (serial === undefined && options.realUnit)
    throw new FactoryDataError(`no factory data (${file.path}); a real unit does not invent a serial: ${HOW_TO_FIX}`);
  const data = program(options, factoryDataFor(serial ?? generateSerial()));
  if (legacy !== undefined) kv.delete(KV_KEYS.legacyIdentity);
  return data;
}

function program(options: FactoryIdentityOptions, data: FactoryData): FactoryData {
  writeFactoryFile(options.dataDir, data);
  options.log.info({ serial: data.serialNumber }, 'factory data written');
  return data;
}
