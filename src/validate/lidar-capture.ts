/**
 * What the lidar checks of one capture share: what the unit said around it, and the packets decoded with the
 * lidar_data_format it announced. The checks judge the packets against the unit's own documents, so both
 * are read together, right before and right after the capture.
 */
import type { LidarPacket, ProfileLayout } from './packet-decoder.js';
import type { Replay } from './replay-signal.js';
import type { lidarModeShape } from './spec-rules.js';
import type { Received } from './udp-capture.js';
import type { Json } from './unit-client.js';

/** The unit's documents read around the capture: sensor_info, lidar_data_format and config before, time/sensor after. */
export interface UnitDuringCapture {
  info: Json;
  format: Json;
  config: Json;
  elapsedS: number;
  sensorTime: Json;
  /** The alert log's next_cursor before and after: the packets' alert_flags may show any value between. */
  cursors: [number, number];
  /** Set when the unit replays a recording (its OpenAPI document says so): what it sends is the recording's. */
  replay?: Replay;
}

export interface LidarCapture {
  unit: UnitDuringCapture;
  profile: string;
  layout: ProfileLayout;
  /** Every datagram that arrived, whatever its size. */
  received: Received[];
  /** The datagrams of the size lidar_data_format gives, decoded. */
  packets: LidarPacket[];
  pixels: number;
  perPacket: number;
  width: number;
  windowFirst: number;
  windowLast: number;
  shape: ReturnType<typeof lidarModeShape>;
  /** A check's title, naming the profile: the same check reads another layout per profile. */
  title: (text: string) => string;
}
