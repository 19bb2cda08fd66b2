/**
 * The worker marks its own packets (docs/architecture.md, "The path of an alert"): a send error sets bit 7 of
 * alert_flags in the packets that follow without the main thread writing the byte back, and the alert reaches
 * the alert log once however many sends fail.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { Emitter } from '../../src/udp/main-thread/emitter.js';
import { waitFor } from '../helpers/poll.js';
import { planOf } from './helpers/plan-of.js';
import { RecordingAlerts } from './helpers/recording-alerts.js';
import { UdpCapture } from './helpers/udp-capture.js';

/** ALERT_IDS.LIDAR_PORT_UNREACHABLE: ICMP port unreachable from the lidar destination. */
const LIDAR_PORT_UNREACHABLE = '0x01000015';
/** Byte 12 of a standard lidar header. */
const ALERT_FLAGS_OFFSET = 12;

const alerts = new RecordingAlerts();
// No subscriber of a log writes the shared byte: it stays 0, so any bit set in a packet is the worker's own.
const emitter = new Emitter({ alerts, crashed: () => undefined });
let rx: UdpCapture | undefined;

afterAll(async () => {
  await emitter.close();
  await rx?.close();
});

describe('a send error in the worker', () => {
  it('sets alert_flags bit 7 of the following packets itself and reports the alert once', async () => {
    // A port nothing listens on: bound once, then released.
    const probe = await UdpCapture.listen();
    const port = probe.port;
    await probe.close();
    await emitter.apply(planOf({ udp_port_lidar: port, udp_port_imu: 0, lidar_mode: '512x10' }, { initId: 7 }));
    await waitFor(() => alerts.active.has(LIDAR_PORT_UNREACHABLE), 10_000, 'the port-unreachable alert');
    // Packets keep being refused until a client listens; the alert stays up for the quiet spell after that.
    const refusedSends = async () => (await emitter.stats()).lidar?.failed ?? 0;
    await waitFor(async () => (await refusedSends()) >= 3, 10_000, 'several refused sends');

    const client = await UdpCapture.listen('127.0.0.1', port);
    rx = client;
    await waitFor(() => client.count >= 1, 10_000, 'a packet after the refusals');
    const flags = client.datagrams[0].data[ALERT_FLAGS_OFFSET];
    expect(flags & 0x80, 'bit 7: an alert is active').toBe(0x80);
    expect(flags & 0x7f, "the log bits are the main thread's, never written here").toBe(0);

    const raises = alerts.events.filter((e) => e.action === 'raise' && e.id === LIDAR_PORT_UNREACHABLE);
    expect(raises).toHaveLength(1);
    expect(raises[0].vars).toMatchObject({ host: '127.0.0.1', port });
  }, 30_000);
});
