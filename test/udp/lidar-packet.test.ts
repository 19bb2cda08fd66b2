/**
 * The lidar packet encoder against the independent decoder, without sockets: every profile and
 * channel count, bit layouts, header fields, CRC, measurement ids, column window, timestamps.
 */
import { describe, expect, it } from 'vitest';
import { emptyLidarImage, type LidarImage } from '../../src/udp/scene/lidar-image.js';
import { LidarPacketStamper } from '../../src/udp/packets/lidar-packet.js';
import { PROFILE_LAYOUTS, layoutWithHeader } from '../../src/udp/packets/lidar-profiles.js';
import { decodeLidarPacket } from './decoder/lidar-decoder.js';
import { encodeLidarFrame } from './helpers/whole-frame.js';
import { PACKET_SIZES, PROFILES, hasNearIr, hasZoneMask, isDual, isFusa, type Profile } from './decoder/formats.js';

/** Deterministic pseudo-random image with values every field can hold (RNG15 fields hold multiples of 8). */
function randomImage(columns: number, pixels: number, coarse: boolean): LidarImage {
  let s = 12345;
  const rnd = (max: number) => {
    s = (Math.imul(s, 1103515245) + 12345) >>> 0;
    return s % (max + 1);
  };
  const size = columns * pixels;
  const img = emptyLidarImage(columns, pixels);
  for (let i = 0; i < size; i++) {
    img.range1[i] = coarse ? rnd(32767) * 8 : rnd(524287);
    img.range2[i] = coarse ? rnd(32767) * 8 : rnd(524287);
    img.reflectivity1[i] = rnd(255);
    img.reflectivity2[i] = rnd(255);
    img.signal1[i] = rnd(65535);
    img.signal2[i] = rnd(65535);
    img.nearIr[i] = coarse ? rnd(255) * 16 : rnd(65535);
    img.zoneMask[i] = rnd(65535);
  }
  return img;
}

const SERIAL = 992233000123n;
const INIT_ID = 0xabcdef;

describe.each(PROFILES)('%s packets', (profile: Profile) => {
  const coarse = profile.startsWith('RNG15') || profile.startsWith('FUSA');
  const layout = PROFILE_LAYOUTS[profile];

  it.each([16, 32, 64, 128] as const)(
    'with %i channels have the size of the table and decode to what was encoded',
    (pixels) => {
      const cpf = 512;
      const img = randomImage(cpf, pixels, coarse);
      const templates = encodeLidarFrame(
        img,
        { layout, columnsPerFrame: cpf, pixelsPerColumn: pixels, columnWindow: [0, cpf - 1] },
        { initId: INIT_ID, serialNumber: SERIAL },
      );
      expect(templates.map((t) => t.index)).toEqual(Array.from({ length: 32 }, (_, i) => i));
      const stamper = new LidarPacketStamper(
        { layout, columnsPerFrame: cpf, pixelsPerColumn: pixels, columnWindow: [0, cpf - 1] },
        1e8,
      );
      for (const t of [templates[0], templates[17], templates[31]]) {
        const bytes = stamper.stamp(t, 0x1234, 0x8c, 0x17, 0xfffff000);
        expect(bytes.length).toBe(PACKET_SIZES[profile][pixels]);
        const p = decodeLidarPacket(bytes, profile, pixels);
        expect(p.packetType).toBe(1);
        expect(p.initId).toBe(INIT_ID);
        expect(p.serial).toBe(SERIAL);
        expect(p.frameId).toBe(0x1234);
        expect(p.alertFlags).toBe(0x8c);
        expect(p.reservedZero).toBe(true);
        expect(p.footerOk).toBe(true);
        expect([p.countdownThermalShutdown, p.countdownShotLimiting, p.thermalShutdown, p.shotLimiting]).toEqual([
          0, 0, 0, 0,
        ]);
        p.columns.forEach((c, i) => {
          const m = t.index * 16 + i;
          expect(c.measurementId).toBe(m);
          expect(c.status & 1).toBe(1);
          // Frame start 0x17_fffff000 plus m/(cpf·10 Hz) s, crossing the 32-bit boundary of the low word.
          expect(c.timestamp).toBe(0x17fffff000n + BigInt(Math.floor((m * 1e8) / cpf)));
          c.pixels.forEach((px, p) => {
            const at = m * pixels + p;
            expect(px.range).toBe(img.range1[at]);
            expect(px.reflectivity).toBe(img.reflectivity1[at]);
            expect(px.nearIr).toBe(hasNearIr(profile) ? img.nearIr[at] : 0);
            expect(px.zoneMask).toBe(hasZoneMask(profile) ? img.zoneMask[at] : 0);
            expect(px.flags).toBe(0);
            expect(px.window).toBe(0);
            if (!coarse) expect(px.signal).toBe(img.signal1[at]);
            if (isDual(profile)) {
              expect(px.range2).toBe(img.range2[at]);
              expect(px.reflectivity2).toBe(img.reflectivity2[at]);
              if (!coarse) expect(px.signal2).toBe(img.signal2[at]);
            }
          });
        });
      }
    },
  );

  it('restamped packets keep a valid footer and carry the new per-packet fields', () => {
    const cpf = 1024;
    const format = {
      layout,
      columnsPerFrame: cpf,
      pixelsPerColumn: 32,
      columnWindow: [0, cpf - 1] as [number, number],
    };
    const [t] = encodeLidarFrame(randomImage(cpf, 32, coarse), format, { initId: 7, serialNumber: 1n });
    const stamper = new LidarPacketStamper(format, 5e7);
    for (const [frameId, flags, hi, lo] of [
      [0, 0, 0, 0],
      [65535, 0xff, 0xffffffff, 0xffffffff],
      [70000, 0x40, 1, 2],
    ]) {
      const p = decodeLidarPacket(stamper.stamp(t, frameId, flags, hi, lo), profile, 32);
      expect(p.footerOk).toBe(true);
      expect(p.alertFlags).toBe(flags);
      // STANDARD frame ids wrap at 16 bits; FUSA ones are 32-bit.
      expect(p.frameId).toBe(isFusa(profile) ? frameId : frameId & 0xffff);
      const start = (BigInt(hi) << 32n) + BigInt(lo);
      expect(p.columns[5].timestamp).toBe((start + BigInt(Math.floor((5 * 5e7) / cpf))) & 0xffffffffffffffffn);
    }
  });

  it('leaves out packets wholly outside column_window and marks the columns outside it invalid and empty', () => {
    const cpf = 512;
    // A window wrapping through column 0: [500, 40] → packets 31, 0, 1, 2 only.
    const format = { layout, columnsPerFrame: cpf, pixelsPerColumn: 16, columnWindow: [500, 40] as [number, number] };
    const templates = encodeLidarFrame(randomImage(cpf, 16, coarse), format, { initId: 7, serialNumber: 1n });
    expect(templates.map((t) => t.index)).toEqual([0, 1, 2, 31]);
    const stamper = new LidarPacketStamper(format, 1e8);
    for (const t of templates) {
      const p = decodeLidarPacket(stamper.stamp(t, 1, 0, 0, 0), profile, 16);
      expect(p.footerOk).toBe(true);
      for (const c of p.columns) {
        const inside = c.measurementId >= 500 || c.measurementId <= 40;
        expect(c.status & 1, `column ${c.measurementId}`).toBe(inside ? 1 : 0);
        if (!inside)
          expect(c.pixels.every((px) => px.range === 0 && px.reflectivity === 0 && px.nearIr === 0)).toBe(true);
      }
    }
  });
});

describe.each(PROFILES.filter((p) => !isFusa(p)))('%s packets with header_type FUSA', (profile: Profile) => {
  it('carry the FUSA header: u32 frame ids past 65535, identity at its offsets, an all-zero footer', () => {
    const cpf = 512;
    const format = {
      layout: layoutWithHeader(profile, 'FUSA'),
      columnsPerFrame: cpf,
      pixelsPerColumn: 16,
      columnWindow: [0, cpf - 1] as [number, number],
    };
    const img = randomImage(cpf, 16, profile.startsWith('RNG15'));
    const [t] = encodeLidarFrame(img, format, { initId: INIT_ID, serialNumber: SERIAL });
    const stamper = new LidarPacketStamper(format, 1e8);
    for (const frameId of [0, 65535, 65536, 70000, 0xfffffffe]) {
      const p = decodeLidarPacket(stamper.stamp(t, frameId, 0x41, 0, 0), profile, 16, 'FUSA');
      expect(p.packetType).toBe(1);
      expect(p.frameId).toBe(frameId);
      expect(p.initId).toBe(INIT_ID);
      expect(p.serial).toBe(SERIAL);
      expect(p.alertFlags).toBe(0x41);
      expect(p.reservedZero).toBe(true);
      expect(p.footerOk).toBe(true);
      expect(p.columns[3].measurementId).toBe(3);
      expect(p.columns[3].pixels[5].range).toBe(img.range1[3 * 16 + 5]);
    }
  });
});
