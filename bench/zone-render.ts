/**
 * Zone rendering (docs/zone-monitor.md, Rendering): how long the unit's render worker takes to read and render
 * a zone set for an OS-1-128 at 1024 columns, through the same worker the unit starts
 * (src/core/zones/zone-render-thread.ts) with no time bound (the longest timer Node keeps, 24 days): one zone of 2,048 triangles (the most a zone may
 * hold) in front of the unit, the same all around it (every beam crosses it), and the largest set the rules allow,
 * 128 zones of 2,048 triangles in front of and around the unit (target: within the unit's render bound).
 */
import { ZONE_RENDER_TIME_LIMIT_MS, ZoneRenderThreads } from '../src/core/zones/zone-render-thread.js';
import { zoneBeamsOf } from '../src/core/zones/zone-set.js';
import { findProduct } from '../src/model/index.js';
import { meshZoneSetZip, sphereTriangles } from '../test/zones/zone-set-zips.js';
import type { BenchContext } from './context.js';
import { fmt, metText, type Figure, type Section } from './report.js';

/** 32 segments × 32 rings × 2 = 2,048 triangles. */
const sphere2048 = (centre: number[], radius: number) => sphereTriangles(centre, radius, 32, 33);

export async function benchZoneRender(ctx: BenchContext): Promise<Section> {
  const product = findProduct('OS-1-128');
  if (!product) throw new Error('no OS-1-128');
  const beams = zoneBeamsOf(product, 1024);
  const threads = new ZoneRenderThreads(2 ** 31 - 1);
  const seconds = async (zip: Uint8Array) => {
    const began = performance.now();
    const result = await threads.render(zip, beams);
    if ('unreadable' in result || result.problems.length)
      throw new Error(
        `the set did not render: ${JSON.stringify('unreadable' in result ? result.unreadable : result.problems)}`,
      );
    return (performance.now() - began) / 1000;
  };
  try {
    const front = await seconds(meshZoneSetZip([{ id: 0, triangles: sphere2048([4, 0, 0], 1) }]));
    const around = await seconds(meshZoneSetZip([{ id: 0, triangles: sphere2048([0, 0, 0], 10) }]));
    ctx.log('zone render: 128 zones of 2,048 triangles (minutes)');
    const largest = await seconds(
      meshZoneSetZip(
        Array.from({ length: 128 }, (_, id) => {
          const a = (2 * Math.PI * id) / 128;
          return {
            id,
            triangles: sphere2048([5 * Math.cos(a), 5 * Math.sin(a), -0.5], 1 + (id % 4) * 0.5),
            pointCount: 1,
          };
        }),
        [0],
      ),
    );
    const boundS = ZONE_RENDER_TIME_LIMIT_MS / 1000;
    const figures: Figure[] = [
      {
        name: 'zone render: one 2,048-triangle zone in front (1024 x 128 beams)',
        value: front,
        unit: 's',
        note: 'sphere r = 1 m at 4 m, in the render worker',
      },
      {
        name: 'zone render: one 2,048-triangle zone around the unit',
        value: around,
        unit: 's',
        note: 'sphere r = 10 m centred on the unit: every beam crosses it',
      },
      {
        name: 'zone render: the largest set, 128 zones of 2,048 triangles',
        value: largest,
        unit: 's',
        target: `<= ${boundS} s (the render bound)`,
        met: largest <= boundS,
        note: 'spheres r = 1 to 2.5 m on a ring 5 m around the unit',
      },
    ];
    return {
      figures,
      rows: figures.map((f) => ({
        figure: f.name,
        value: `${fmt(f.value, 2)} ${f.unit}`,
        reference: '',
        ratio: '',
        target: f.target ?? '',
        met: f.target ? metText(f.met) : '',
      })),
    };
  } finally {
    await threads.close();
  }
}
