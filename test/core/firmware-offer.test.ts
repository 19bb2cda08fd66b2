/** What the running firmware offers: the version clients gate on, Zone Monitor, and the parameters an older one lacks. */
import { describe, expect, it } from 'vitest';
import { defaultConfig } from '../../src/config/index.js';
import { FirmwareOffer } from '../../src/core/firmware-offer.js';
import {
  FACTORY_FIRMWARE,
  FIRMWARE_LINES,
  type FirmwareBuild,
  findProduct,
  makeIdentity,
  type SensorIdentity,
} from '../../src/model/index.js';

function offerOf(firmware: FirmwareBuild, recordedImageRev?: string) {
  const state = { identity: makeIdentity(findProduct('OS-1-128')!, '992233000111', firmware) as SensorIdentity };
  if (recordedImageRev)
    state.identity = {
      ...state.identity,
      recordedFirmware: { imageRev: recordedImageRev, buildRev: 'v2.4.0', buildDate: '2022-09-29T00:24:55Z' },
    };
  let imageRev = 'image-a';
  const offer = new FirmwareOffer({ identity: () => state.identity, runningImageRev: () => imageRev });
  return {
    offer,
    runs(next: FirmwareBuild, rev: string) {
      state.identity = { ...state.identity, firmware: next };
      imageRev = rev;
    },
  };
}

const FIRMWARE_3_2 = FIRMWARE_LINES['3.2'];

describe('FirmwareOffer', () => {
  it('a 3.1 unit reports 3.1.0, offers no Zone Monitor and hides its parameters', () => {
    const { offer } = offerOf(FACTORY_FIRMWARE);
    expect(offer.reportedVersion).toBe('3.1.0');
    expect(offer.zoneMonitor).toBe(false);
    expect([...offer.absentParameters].sort()).toEqual([
      'bloom_reduction_optimization',
      'header_type',
      'imu_packets_per_frame',
      'lidar_frame_azimuth_offset',
      'udp_dest_zm',
      'udp_multicast_ttl',
      'udp_multicast_ttl_zm',
      'udp_port_zm',
    ]);
    const shown = offer.shown(defaultConfig());
    expect(shown).not.toHaveProperty('udp_port_zm');
    expect(offer.shown(defaultConfig())).not.toBe(shown);
  });

  it('the same configuration object is shown as the same object (made once per configuration)', () => {
    const { offer } = offerOf(FACTORY_FIRMWARE);
    const config = defaultConfig();
    expect(offer.shown(config)).toBe(offer.shown(config));
  });

  it('a 3.2 unit shows the configuration as it is, and offers Zone Monitor', () => {
    const { offer } = offerOf(FIRMWARE_3_2);
    const config = defaultConfig();
    expect(offer.zoneMonitor).toBe(true);
    expect(offer.absentParameters.size).toBe(0);
    expect(offer.shown(config)).toBe(config);
  });

  it("a replayed recording's firmware is the version reported while it runs the factory image", () => {
    const { offer } = offerOf(FIRMWARE_3_2, 'ousteros-image-prod-aries-v2.4.0+20220929002455');
    expect(offer.reportedVersion).toBe('2.4.0');
    expect(offer.zoneMonitor).toBe(false);
  });

  it('an update to another image is offered what that image has', () => {
    const { offer, runs } = offerOf(FACTORY_FIRMWARE);
    expect(offer.absentParameters.size).toBe(8);
    runs(FIRMWARE_3_2, 'image-b');
    expect(offer.absentParameters.size).toBe(0);
    expect(offer.zoneMonitor).toBe(true);
  });
});
