import { describe, expect, it } from 'vitest';
import {
  FACTORY_FIRMWARE,
  INIT_ID_LIMIT,
  SERIAL_LIMIT,
  buildRev,
  generateSerial,
  imageRev,
  makeIdentity,
  nextInitializationId,
  serialProblem,
} from '../../src/model/identity.js';
import { findProduct } from '../../src/model/products.js';

describe('serial number', () => {
  it('is generated as a 12-digit decimal string that fits 40 bits', () => {
    for (const random of [() => 0, () => 0.999999999, Math.random]) {
      const serial = generateSerial(new Date('2099-12-31T23:59:59Z'), random);
      expect(serial).toMatch(/^12\d{10}$/);
      expect(serialProblem(serial)).toBeUndefined();
      expect(BigInt(serial) < SERIAL_LIMIT).toBe(true);
    }
  });

  it.each(['', 'abc', '-1', '0x12', '1.5', '0', '1099511627776', '99999999999999'])('rejects %j', (value) => {
    expect(serialProblem(value)).toBeTypeOf('string');
    expect(() => makeIdentity(findProduct('OS-1-128')!, value)).toThrow(/serial number/);
  });

  it('accepts the largest 40-bit value', () => {
    expect(serialProblem('1099511627775')).toBeUndefined();
  });
});

describe('firmware identity strings', () => {
  it('has the forms clients parse', () => {
    expect(imageRev(FACTORY_FIRMWARE)).toBe('ousteros-image-prod-bootes-v3.1.0+20240426041747');
    expect(imageRev(FACTORY_FIRMWARE)).toMatch(/^ousteros-image-prod-[a-z]+-v3\.1\.\d+\+\d{14}$/);
    expect(buildRev(FACTORY_FIRMWARE)).toBe('v3.1.0');
    expect(FACTORY_FIRMWARE.buildDate).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/);
  });

  it('derives a stable calibration timestamp without zone from the serial', () => {
    const a = makeIdentity(findProduct('OS-0-64')!, '122201000998');
    const b = makeIdentity(findProduct('OS-0-64')!, '122201000998');
    const c = makeIdentity(findProduct('OS-0-64')!, '122201000999');
    expect(a.calibrationTimestamp).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}$/);
    expect(a.calibrationTimestamp).toBe(b.calibrationTimestamp);
    expect(a.calibrationTimestamp).not.toBe(c.calibrationTimestamp);
  });
});

describe('initialization_id', () => {
  it('fits 24 bits, is never 0 and never repeats the previous one', () => {
    let previous: number | undefined;
    for (let i = 0; i < 2000; i++) {
      const id = nextInitializationId(previous);
      expect(Number.isInteger(id) && id > 0 && id < INIT_ID_LIMIT).toBe(true);
      expect(id).not.toBe(previous);
      previous = id;
    }
  });

  it('differs from the previous one even when the random source repeats itself', () => {
    for (const r of [0, 0.5, 0.9999999999]) {
      const first = nextInitializationId(undefined, () => r);
      const second = nextInitializationId(first, () => r);
      expect(second).not.toBe(first);
      expect(second > 0 && second < INIT_ID_LIMIT).toBe(true);
    }
  });
});
