/**
 * Resident memory of a unit that takes the largest bodies it allows: the largest zone set zip (ZRB zones,
 * stored, up to the route's 32 MB) staged twice, then the largest firmware image (--firmware-max-bytes'
 * default). A body is bytes: nothing in the unit should cost more than a few copies of it.
 * Run at the default log level (info), where every change a client makes is logged.
 */
import { DEFAULT_FIRMWARE_MAX_BYTES } from '../src/core/firmware/firmware-manager.js';
import { buildImage, generatedPayload, MAX_HEADER_LENGTH } from '../src/model/image-format.js';
import { uploadFirmware } from '../test/firmware/http-upload.js';
import { largestZrbZoneSetZip } from '../test/zones/zone-set-zips.js';
import type { BenchContext } from './context.js';
import { peakRssBytes, rssBytes } from './proc-stats.js';
import { fmt, type Figure, type Section, type TableRow } from './report.js';
import { SENSOR_INFO_PATH, spawnSensor } from './sensor-process.js';

const SERIAL = '122201000123';
const REV = 'ousteros-image-prod-bootes-v3.2.1+20250102030405';
const MB = 1024 * 1024;
const mb = (bytes: number) => bytes / MB;

export async function benchUploadMemory(ctx: BenchContext): Promise<Section> {
  const sensor = await spawnSensor({
    host: '127.0.0.1',
    dataDir: ctx.dataDir('upload-memory'),
    readyPath: SENSOR_INFO_PATH,
    args: ['--firmware-version', '3.2', '--serial', SERIAL, '--log-level', 'info'],
  });
  const figures: Figure[] = [];
  const rows: TableRow[] = [];
  const measure = (name: string, reference: string) => {
    const now = mb(rssBytes(sensor.pid));
    const peak = mb(peakRssBytes(sensor.pid));
    figures.push({ name, value: now, unit: 'MB', note: `peak ${fmt(peak, 1)} MB` });
    rows.push({
      figure: name,
      value: `${fmt(now, 1)} MB (peak ${fmt(peak, 1)})`,
      reference,
      ratio: '',
      target: '',
      met: '',
    });
    return now;
  };
  try {
    const before = measure('RSS before the uploads', '');
    const zip = Buffer.from(largestZrbZoneSetZip(SERIAL, 128, 1024));
    ctx.log(`upload memory: staging a ${fmt(mb(zip.length), 1)} MB zone set twice`);
    for (let i = 0; i < 2; i++) {
      const res = await fetch(`${sensor.baseUrl}/api/v1/zone_monitor/staged/zip`, {
        method: 'POST',
        headers: { 'content-type': 'application/octet-stream' },
        body: zip,
      });
      if (res.status !== 204) throw new Error(`staging the zone set answered ${res.status}: ${await res.text()}`);
    }
    measure(
      `RSS after the largest zone set (${fmt(mb(zip.length), 1)} MB zip) staged twice`,
      `before ${fmt(before, 1)} MB`,
    );
    // The largest image the unit takes: its payload all but the room of the header and trailer.
    const image = buildImage(REV, generatedPayload(REV, DEFAULT_FIRMWARE_MAX_BYTES - MAX_HEADER_LENGTH - 4096));
    if (image.length > DEFAULT_FIRMWARE_MAX_BYTES)
      throw new Error(`the image is ${image.length} bytes, over the limit`);
    ctx.log(`upload memory: uploading a ${fmt(mb(image.length), 0)} MB firmware image`);
    const upload = await uploadFirmware(sensor.baseUrl, image);
    if (upload.status >= 300) throw new Error(`the firmware upload answered ${upload.status}: ${upload.body}`);
    measure(`RSS after the largest firmware image (${fmt(mb(image.length), 0)} MB)`, `before ${fmt(before, 1)} MB`);
  } finally {
    await sensor.stop();
  }
  return { figures, rows };
}
