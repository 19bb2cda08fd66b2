/** The few HTTP calls the benchmark makes to a sensor, as a client would make them. */
import { SENSOR_INFO_PATH } from './sensor-process.js';

export interface StreamSettings {
  /** Receiver address (loopback). */
  udp_dest: string;
  udp_port_lidar: number;
  udp_port_imu: number;
  lidar_mode: string;
  udp_profile_lidar: string;
  /** Firmware 3.2's ACCEL32_GYRO32_NMEA, or LEGACY (every firmware). */
  udp_profile_imu?: string;
  imu_packets_per_frame?: number;
}

async function expectOk(response: Response, what: string): Promise<void> {
  if (!response.ok) throw new Error(`${what}: HTTP ${response.status} ${(await response.text()).slice(0, 300)}`);
}

/** POST /api/v1/sensor/config (stage + reinit + persist): the way clients start a stream. */
export async function configureStream(baseUrl: string, settings: StreamSettings): Promise<void> {
  const response = await fetch(`${baseUrl}/api/v1/sensor/config`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ operating_mode: 'NORMAL', ...settings }),
  });
  await expectOk(response, 'POST /api/v1/sensor/config');
}

/** PUT /api/v1/sensor/config/<name>: sets one parameter and reinitializes. */
export async function putParameter(baseUrl: string, name: string, value: unknown): Promise<void> {
  const response = await fetch(`${baseUrl}/api/v1/sensor/config/${name}`, {
    method: 'PUT',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(value),
  });
  await expectOk(response, `PUT /api/v1/sensor/config/${name}`);
}

/** `sensor_info.initialization_id`, or undefined while that route does not exist. */
export async function initializationId(baseUrl: string): Promise<number | undefined> {
  const response = await fetch(baseUrl + SENSOR_INFO_PATH);
  if (response.status !== 200) return undefined;
  const body = (await response.json()) as { initialization_id?: unknown };
  return typeof body.initialization_id === 'number' ? body.initialization_id : undefined;
}
