/**
 * `recording info` without metadata on packets with the FUSA header on a profile whose own header is STANDARD
 * (firmware 3.2's header_type): the survey finds the profile and reads serial and init_id at FUSA's offsets.
 * The packets are the simulator's FUSA sample re-encoded into RNG19_RFL8_SIG16_NIR16 with the replay's own
 * re-encoder: they read as no profile with its own header.
 */
import { describe, expect, it } from 'vitest';
import { layoutWithHeader } from '../../src/udp/packets/lidar-profiles.js';
import { describeSurvey, surveyCapture } from '../../src/udp/replay/capture-survey.js';
import { readCaptureDatagrams } from '../../src/udp/replay/recording.js';
import { recordedLayout } from '../../src/udp/replay/recorded-layout.js';
import { reencodeLidarPacket } from '../../src/udp/worker/replay-reencode.js';
import { decodeLidarPacket } from '../udp/decoder/lidar-decoder.js';
import { SIM_FUSA_ZONE16 } from './helpers/pcap-reference.js';

describe('surveying a capture of FUSA-header packets without metadata', () => {
  it('names the profile with the FUSA header and reads serial and init_id from the FUSA header', () => {
    const { datagrams } = readCaptureDatagrams(`${SIM_FUSA_ZONE16}.pcap`).extraction;
    const from = recordedLayout('RNG15_RFL8_NIR8_ZONE16', 'FUSA');
    const to = layoutWithHeader('RNG19_RFL8_SIG16_NIR16', 'FUSA');
    const lidar = datagrams
      .filter((d) => d.payload.length === 4352)
      .map((d) => ({ ...d, payload: reencodeLidarPacket(d.payload, from, to, 32, { initId: 0, serial: 0n }) }));
    const decoded = decodeLidarPacket(lidar[0].payload, 'RNG19_RFL8_SIG16_NIR16', 32, 'FUSA');
    const [sensor] = surveyCapture(lidar);
    // Its ZONE16 twin has the same size: the size alone cannot tell them apart.
    expect(sensor.profiles).toEqual(
      ['RNG19_RFL8_SIG16_NIR16', 'RNG19_RFL8_SIG16_NIR16_ZONE16'].map((profile) => ({
        profile,
        pixels: 32,
        fusaHeader: true,
      })),
    );
    expect([sensor.serial, sensor.initId]).toEqual([String(decoded.serial), decoded.initId]);
    expect(describeSurvey([sensor])).toMatch(/RNG19_RFL8_SIG16_NIR16 with the FUSA header \(32 px\)/);
  });
});
