/**
 * A whole frame at once, for the encoder tests: the image of every column and one template per packet.
 * The data plane never holds a whole frame (it fills one packet's columns at a time through a small
 * image, src/udp/worker/lidar-stream.ts); the tests compare against the whole frame to check that path.
 */
import type { ReturnSettings } from '../../../src/udp/contract/scene-plan.js';
import { emptyLidarImage, fillLidarImage, type LidarImage } from '../../../src/udp/scene/lidar-image.js';
import {
  encodeLidarPacket,
  type LidarFrameFormat,
  type LidarPacketTemplate,
  type SensorIdentity,
} from '../../../src/udp/packets/lidar-packet.js';
import { COLUMNS_PER_PACKET } from '../../../src/udp/packets/lidar-profiles.js';
import type { SceneReturns } from '../../../src/udp/scene/scene-returns.js';

/**
 * The image of a whole frame `columns` wide. The scene may have been cast on a finer grid (a multiple of
 * it): column m of the image is then column `m · scene.columns / columns` of the scene, the same beam direction.
 */
export function buildLidarImage(scene: SceneReturns, settings: ReturnSettings, columns = scene.columns): LidarImage {
  return fillLidarImage(scene, settings, columns, 0, emptyLidarImage(columns, scene.pixels));
}

/**
 * One template per packet of the frame that holds at least one column of the window, in frame order.
 * Packets wholly outside the window are not sent and get no template.
 */
export function encodeLidarFrame(
  image: LidarImage,
  format: LidarFrameFormat,
  id: SensorIdentity,
): LidarPacketTemplate[] {
  if (image.columns !== format.columnsPerFrame || image.pixels !== format.pixelsPerColumn) {
    throw new RangeError('image does not match the frame format');
  }
  const templates: LidarPacketTemplate[] = [];
  for (let index = 0; index < format.columnsPerFrame / COLUMNS_PER_PACKET; index++) {
    const template = encodeLidarPacket(image, index * COLUMNS_PER_PACKET, index, format, id);
    if (template) templates.push(template);
  }
  return templates;
}
