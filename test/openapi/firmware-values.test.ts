/**
 * The values firmware 3.2 added to older parameters (two lidar profiles, one IMU profile): a 3.1 unit refuses
 * them, so neither its OpenAPI document nor the registry its page's form is made from lists them; a 3.2 unit's list them.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createTestSensor, type TestSensor } from '../helpers/test-sensor.js';
import { fetchDocument } from './openapi-fixture.js';

const FW32_VALUES = {
  udp_profile_lidar: ['RNG15_RFL8_NIR8_DUAL', 'RNG15_RFL8_WIN8'],
  udp_profile_imu: ['ACCEL32_GYRO32_NMEA'],
};
const ALL_FW32_VALUES = Object.values(FW32_VALUES).flat();

/** Every `enum` list anywhere in a JSON document. */
function enums(node: unknown, found: unknown[][] = []): unknown[][] {
  if (Array.isArray(node)) for (const item of node) enums(item, found);
  else if (node !== null && typeof node === 'object')
    for (const [key, value] of Object.entries(node)) {
      if (key === 'enum' && Array.isArray(value)) found.push(value);
      else enums(value, found);
    }
  return found;
}

interface RegistryDocument {
  parameters: { name: string; schema: { enum?: unknown[] } }[];
}

async function offered(unit: TestSensor) {
  const document = await fetchDocument(unit.app);
  const configuration = (
    document.components.schemas as Record<string, { properties: Record<string, { enum: unknown[] }> }>
  ).Configuration.properties;
  const registry = (await unit.app.inject({ url: '/web/api/registry' })).json<RegistryDocument>();
  const form = Object.fromEntries(registry.parameters.map((p) => [p.name, p.schema.enum]));
  return { document, configuration, registry, form };
}

let unit: TestSensor | undefined;
afterEach(async () => {
  await unit?.close();
  unit = undefined;
});

describe("firmware 3.2's new values of older parameters", () => {
  it("a 3.1 unit's document and page form list none of them, and every value it accepts", async () => {
    unit = await createTestSensor();
    const { document, configuration, registry, form } = await offered(unit);
    const listed = [...enums(document), ...enums(registry)].flat();
    for (const value of ALL_FW32_VALUES) expect(listed, value).not.toContain(value);
    for (const name of Object.keys(FW32_VALUES) as (keyof typeof FW32_VALUES)[]) {
      expect(configuration[name].enum.length, name).toBeGreaterThan(0);
      expect(form[name], name).toEqual(configuration[name].enum);
    }
    expect(configuration.udp_profile_lidar.enum).toContain('RNG15_RFL8_NIR8');
    expect(configuration.udp_profile_imu.enum).toContain('LEGACY');
    // Every value still listed is one the unit takes.
    for (const name of Object.keys(FW32_VALUES) as (keyof typeof FW32_VALUES)[])
      for (const value of configuration[name].enum) {
        const res = await unit.app.inject({ method: 'POST', url: '/api/v1/sensor/config', payload: { [name]: value } });
        expect(res.statusCode, `${name} ${String(value)}: ${res.body}`).toBe(204);
      }
  });

  it("a 3.2 unit's document and page form list them", async () => {
    unit = await createTestSensor({ unit: { firmwareVersion: '3.2' } });
    const { configuration, form } = await offered(unit);
    for (const [name, values] of Object.entries(FW32_VALUES) as [keyof typeof FW32_VALUES, string[]][]) {
      for (const value of values) expect(configuration[name].enum).toContain(value);
      expect(form[name]).toEqual(configuration[name].enum);
    }
  });
});
