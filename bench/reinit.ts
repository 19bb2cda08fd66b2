/**
 * (3) Reinit latency: from sending PUT /api/v1/sensor/config/lidar_mode to the first packet with the
 * new init_id at the receiver. The mode alternates 1024x10 ↔ 2048x10, so every reinit changes the
 * stream (packet rate and frame width) like a user switching modes would.
 */
import type { BenchContext } from './context.js';
import { sleep } from './processes.js';
import { fmt, metText, unavailable, type Section } from './report.js';
import { putParameter } from './sensor-api.js';
import { spread } from './stats.js';
import { LIDAR, NoPacketsError, StreamRig } from './stream-rig.js';

/** The bound a reinit must stay under, however small the footprint gets (docs/benchmarks.md, Targets). */
export const REINIT_P50_TARGET_MS = 50;
const MODES = ['2048x10', '1024x10'] as const;
const PROFILE = 'RNG19_RFL8_SIG16_NIR16';
const REINIT_TIMEOUT_MS = 10_000;

export async function benchReinit(ctx: BenchContext): Promise<Section> {
  const count = ctx.quick ? 5 : 20;
  const rig = await StreamRig.start(ctx);
  try {
    try {
      await rig.configure('1024x10', PROFILE, false);
    } catch (error) {
      if (error instanceof NoPacketsError)
        return unavailable('Reinit latency', 'ms', 'data plane not streaming', `p50 <= ${REINIT_P50_TARGET_MS} ms`);
      throw error;
    }
    ctx.log(`reinit: ${count} lidar_mode changes`);
    const toFirstPacket: number[] = [];
    const toResponse: number[] = [];
    for (let i = 0; i < count; i++) {
      const previous = rig.receiver.currentInitId(LIDAR);
      const sentAt = process.hrtime.bigint();
      await putParameter(rig.sensor.baseUrl, 'lidar_mode', MODES[i % MODES.length]);
      toResponse.push(Number(process.hrtime.bigint() - sentAt) / 1e6);
      const first = await rig.receiver.waitForInit(LIDAR, sentAt, REINIT_TIMEOUT_MS, (id) => id !== previous);
      toFirstPacket.push(Number(BigInt(first.atNs) - sentAt) / 1e6);
      // Let the new stream run a little, as a user would look at it before switching again.
      await sleep(100);
    }
    const latency = spread(toFirstPacket);
    const response = spread(toResponse);
    const met = latency.p50 <= REINIT_P50_TARGET_MS;
    const name = 'Reinit: PUT lidar_mode -> first packet with the new init_id';
    return {
      figures: [
        { name: `${name} p50`, value: latency.p50, unit: 'ms', target: `<= ${REINIT_P50_TARGET_MS} ms`, met },
        { name: `${name} p95`, value: latency.p95, unit: 'ms' },
        { name: 'Reinit: PUT lidar_mode response time p50', value: response.p50, unit: 'ms' },
      ],
      rows: [
        {
          figure: `Reinit (${count}x PUT lidar_mode -> first packet of new init_id)`,
          value: `p50 ${fmt(latency.p50, 1)} / p95 ${fmt(latency.p95, 1)} ms (PUT answered after p50 ${fmt(response.p50, 1)} ms)`,
          reference: '',
          ratio: '',
          target: `p50 <= ${REINIT_P50_TARGET_MS} ms`,
          met: metText(met),
        },
      ],
    };
  } finally {
    await rig.close();
  }
}
