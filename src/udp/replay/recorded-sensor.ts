/**
 * The unit a recording was made on, from its metadata: product model (from the catalogue when the
 * recorded product is in it, with the recorded calibration laid over it; built from the metadata
 * otherwise), identity (serial, firmware, calibration time) and the parameters the recording fixes.
 */
import {
  type ChannelCount,
  FACTORY_FIRMWARE,
  findProduct,
  LIDAR_MODES,
  parseImageRev,
  type ProductLine,
  type ProductModel,
  type SensorIdentity,
  serialProblem,
} from '../../model/index.js';
import { RecordingError } from './recording-error.js';
import type { RecordedMetadata } from './recording-metadata.js';

export function recordedProduct(m: RecordedMetadata): ProductModel {
  const info = m.sensorInfo;
  const beams = m.beamIntrinsics;
  const catalogue = findProduct(info.prod_line);
  const lineMatch = /^(OS-[0-2])/.exec(info.prod_line);
  const channels = m.dataFormat.pixels_per_column;
  return {
    name: info.prod_line,
    prodLine: info.prod_line.replace(/-T1$/, ''),
    prodPn: info.prod_pn || catalogue?.prodPn || '',
    line: (lineMatch?.[1] ?? catalogue?.line ?? 'OS-1') as ProductLine,
    // A recording of a channel count the catalogue lacks is replayed all the same; the model only
    // carries the number (pixels_per_column and the beam tables come from the metadata).
    channels: channels as ChannelCount,
    beamAltitudeDeg: [...beams.beam_altitude_angles],
    beamAzimuthDeg: [...beams.beam_azimuth_angles],
    lidarOriginToBeamOriginMm: beams.lidar_origin_to_beam_origin_mm,
    beamToLidarTransform: [...beams.beam_to_lidar_transform],
    imuToSensorTransform: [...m.imuToSensorTransform],
    lidarToSensorTransform: [...m.lidarToSensorTransform],
    lidarModes: catalogue?.lidarModes ?? LIDAR_MODES,
    automotiveEthernet: /-T1$/.test(info.prod_line),
    maxRangeM: catalogue?.maxRangeM ?? 100,
  };
}

export function recordedIdentity(m: RecordedMetadata, product: ProductModel): SensorIdentity {
  const info = m.sensorInfo;
  const problem = serialProblem(info.prod_sn);
  if (problem) throw new RecordingError(`metadata: prod_sn ${JSON.stringify(info.prod_sn)} is not usable: ${problem}`);
  const parsed = parseImageRev(info.image_rev).build;
  return {
    product,
    serialNumber: info.prod_sn,
    // The firmware slots need a build of the form they know; sensor_info serves the recorded strings.
    firmware: parsed ?? FACTORY_FIRMWARE,
    calibrationTimestamp: m.calibration.timestamp || '1970-01-01T00:00:00',
    recordedFirmware: { imageRev: info.image_rev, buildRev: info.build_rev, buildDate: info.build_date },
  };
}
