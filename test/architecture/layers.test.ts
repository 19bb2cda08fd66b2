import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { importEdges, layerViolations } from '../../scripts/check-layers.js';

const src = (path: string) => resolve(import.meta.dirname, '../../src', path);

describe('layering (docs/DESIGN.md: dependencies point down only)', () => {
  it('no module imports against the layer order', () => {
    expect(layerViolations(importEdges())).toEqual([]);
  });

  it('the model imports nothing of ours', () => {
    const fromModel = importEdges().filter((e) => !e.external && e.from.startsWith(src('model/')));
    expect(fromModel.filter((e) => !e.to.startsWith(src('model/')))).toEqual([]);
  });

  it('flags an upward import and the web framework below the routes', () => {
    const problems = layerViolations([
      { from: src('hal/sim/index.ts'), to: src('sensor/sensor.js'), external: false },
      { from: src('sensor/sensor.ts'), to: 'fastify', external: true },
      { from: src('routes/config.ts'), to: src('sensor/sensor.js'), external: false },
    ]);
    expect(problems).toHaveLength(2);
    expect(problems[0]).toContain('hal is below sensor');
    expect(problems[1]).toContain('never import the web framework');
  });
});
