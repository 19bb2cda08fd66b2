/**
 * GET /metrics of one unit, read back with an independent Prometheus text parser: identity, status,
 * reinits, per-stream datagram counters against what a receiver really got, active alerts, HTTP
 * requests by route and status, the latency histogram and telemetry.
 */
import dgram from 'node:dgram';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestSensor, type TestSensor } from '../helpers/test-sensor.js';
import { parseMetrics, samples, sampleValue } from '../helpers/prometheus.js';
import { UdpCapture } from '../udp/helpers/udp-capture.js';
import { waitFor } from '../helpers/poll.js';
import { lidarInitId } from '../udp/decoder/lidar-decoder.js';

const IMU_PORT_UNREACHABLE = '0x01000018';

/** A port nobody listens on: bound once to learn a free number, then released. */
async function closedPort(): Promise<number> {
  const socket = dgram.createSocket('udp4');
  await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
  const { port } = socket.address();
  await new Promise<void>((resolve) => socket.close(resolve));
  return port;
}

describe('GET /metrics', () => {
  let unit: TestSensor;
  let capture: UdpCapture;

  beforeAll(async () => {
    unit = await createTestSensor({ serial: '122201000777' });
    capture = await UdpCapture.listen('127.0.0.1');
  });
  afterAll(async () => {
    await unit?.close();
    await capture?.close();
  });

  const scrape = async () => {
    const response = await unit.app.inject({ method: 'GET', url: '/metrics' });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
    return parseMetrics(response.body);
  };

  it('reports identity, status, reinits, streams, alerts, HTTP requests and telemetry', async () => {
    const before = await scrape();
    const reinitsBefore = sampleValue(before, 'lidar_sensor_reinits_total');
    const body = {
      udp_dest: '127.0.0.1',
      udp_port_lidar: capture.port,
      udp_port_imu: await closedPort(),
      lidar_mode: '512x10',
    };
    const post = await unit.app.inject({ method: 'POST', url: '/api/v1/sensor/config', payload: body });
    expect(post.statusCode).toBe(204);
    await unit.app.inject({ method: 'GET', url: '/api/v1/no/such/route' });
    await waitFor(
      () => capture.count >= 100 && unit.sensor.alerts.isActive(IMU_PORT_UNREACHABLE),
      10_000,
      'lidar packets and the IMU alert',
    );

    // The receiver's count is read before the scrape: every datagram it holds was sent before the counter is read.
    const received = capture.count;
    const families = await scrape();
    expect(samples(families, 'lidar_sensor_info')[0].labels).toMatchObject({
      serial: '122201000777',
      product: 'OS-1-128',
    });
    expect(sampleValue(families, 'lidar_sensor_status', { status: 'RUNNING' })).toBe(1);
    expect(sampleValue(families, 'lidar_sensor_status', { status: 'INITIALIZING' })).toBe(0);
    expect(sampleValue(families, 'lidar_sensor_initialization_id')).toBe(unit.sensor.run.initializationId);
    expect(sampleValue(families, 'lidar_sensor_reinits_total')).toBe(reinitsBefore + 1);

    // Loopback loses nothing: the counter holds at least what had arrived before it was read.
    const sent = sampleValue(families, 'lidar_sensor_udp_packets_sent_total', { stream: 'lidar' });
    expect(sent).toBeGreaterThanOrEqual(received);
    const packetBytes = capture.datagrams[0].data.length;
    expect(sampleValue(families, 'lidar_sensor_udp_bytes_sent_total', { stream: 'lidar' })).toBe(sent * packetBytes);
    expect(sampleValue(families, 'lidar_sensor_udp_send_errors_total', { stream: 'lidar' })).toBe(0);
    expect(sampleValue(families, 'lidar_sensor_alert_active', { id: IMU_PORT_UNREACHABLE })).toBe(1);

    expect(
      sampleValue(families, 'lidar_sensor_http_requests_total', {
        method: 'POST',
        route: '/api/v1/sensor/config',
        status_code: '204',
      }),
    ).toBe(1);
    expect(
      sampleValue(families, 'lidar_sensor_http_requests_total', {
        method: 'GET',
        route: 'unmatched',
        status_code: '404',
      }),
    ).toBe(1);
    // The parser folds the buckets of all label sets of a histogram into one sample (its known limitation):
    // check the family's type and its buckets.
    expect(families.get('lidar_sensor_http_request_duration_seconds')?.type).toBe('HISTOGRAM');
    const buckets = samples(families, 'lidar_sensor_http_request_duration_seconds')[0].buckets ?? {};
    expect(Object.keys(buckets)).toEqual(expect.arrayContaining(['0.001', '0.01', '1', '+Inf']));
    expect(Number(buckets['+Inf'])).toBeGreaterThanOrEqual(1);

    const volts = sampleValue(families, 'lidar_sensor_input_voltage_volts');
    expect(volts).toBeGreaterThan(20);
    expect(volts).toBeLessThan(28);
    expect(sampleValue(families, 'lidar_sensor_internal_temperature_celsius')).toBeGreaterThan(0);
    expect(samples(families, 'lidar_sensor_phase_lock_status').filter((s) => s.value === '1')).toHaveLength(1);
  });

  it('keeps stream counters growing across a reinit', async () => {
    const first = sampleValue(await scrape(), 'lidar_sensor_udp_packets_sent_total', { stream: 'lidar' });
    const put = await unit.app.inject({
      method: 'PUT',
      url: '/api/v1/sensor/config/lidar_mode',
      payload: '"1024x10"',
      headers: { 'content-type': 'application/json' },
    });
    expect(put.statusCode).toBe(204);
    // Counted by the header's init_id: the receiver may still be reading the old run's datagrams after the PUT.
    const newRun = unit.sensor.run.initializationId;
    const ofNewRun = () => capture.datagrams.filter((d) => lidarInitId(d.data) === newRun).length;
    await waitFor(() => ofNewRun() > 50, 10_000, 'packets of the new run');
    const second = sampleValue(await scrape(), 'lidar_sensor_udp_packets_sent_total', { stream: 'lidar' });
    expect(second).toBeGreaterThan(first + 50);
  });
});
