/** Telemetry of a real unit read from sysfs; here from fake sysfs trees shaped like real boards. */
import { afterEach, describe, expect, it } from 'vitest';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { defaultConfig } from '../../src/config/registry.js';
import { LinuxTelemetry } from '../../src/hal/linux/telemetry-linux.js';
import { removeDir } from '../helpers/test-sensor.js';

const roots: string[] = [];
afterEach(() => roots.splice(0).forEach(removeDir));

function sysfs(files: Record<string, string>): string {
  const root = mkdtempSync(join(tmpdir(), 'sysfs-'));
  roots.push(root);
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), content);
  }
  return root;
}

describe('LinuxTelemetry', () => {
  it('takes the hottest thermal zone and an INA226 power monitor (in1 = bus voltage, curr1 = current)', async () => {
    const root = sysfs({
      'class/thermal/thermal_zone0/temp': '48500\n',
      'class/thermal/thermal_zone1/temp': '61200\n',
      'class/hwmon/hwmon0/name': 'coretemp\n',
      'class/hwmon/hwmon0/temp1_input': '99000\n',
      'class/hwmon/hwmon1/name': 'ina226\n',
      'class/hwmon/hwmon1/in0_input': '12\n',
      'class/hwmon/hwmon1/in1_input': '23810\n',
      'class/hwmon/hwmon1/curr1_input': '671\n',
    });
    const telemetry = new LinuxTelemetry({ sysfsRoot: root });
    const reading = await telemetry.read();
    expect(reading).toMatchObject({
      input_current_ma: 671,
      input_voltage_mv: 23810,
      internal_temperature_deg_c: 61,
      phase_lock_status: 'DISABLED',
    });
    expect(Object.keys(reading)).toEqual([
      'input_current_ma',
      'input_voltage_mv',
      'internal_temperature_deg_c',
      'phase_lock_status',
      'timestamp_ns',
    ]);
  });

  it('finds the input channel by its label on other chips', async () => {
    const root = sysfs({
      'class/hwmon/hwmon3/name': 'ltc4282\n',
      'class/hwmon/hwmon3/in1_label': 'VSOURCE\n',
      'class/hwmon/hwmon3/in1_input': '3300\n',
      'class/hwmon/hwmon3/in2_label': 'VIN\n',
      'class/hwmon/hwmon3/in2_input': '24050\n',
      'class/hwmon/hwmon3/curr1_label': 'VIN\n',
      'class/hwmon/hwmon3/curr1_input': '702\n',
      'class/hwmon/hwmon3/temp1_input': '55000\n',
    });
    const reading = await new LinuxTelemetry({ sysfsRoot: root }).read();
    expect(reading).toMatchObject({ input_voltage_mv: 24050, input_current_ma: 702, internal_temperature_deg_c: 55 });
  });

  it('leaves out what the board cannot measure instead of inventing it', async () => {
    const root = sysfs({
      'class/thermal/thermal_zone0/temp': '40000\n',
      'class/hwmon/hwmon0/name': 'acpitz\n',
      'class/hwmon/hwmon0/temp1_input': '40000\n',
    });
    const reading = await new LinuxTelemetry({ sysfsRoot: root }).read();
    expect(Object.keys(reading)).toEqual(['internal_temperature_deg_c', 'phase_lock_status', 'timestamp_ns']);
    const empty = await new LinuxTelemetry({ sysfsRoot: sysfs({}) }).read();
    expect(Object.keys(empty)).toEqual(['phase_lock_status', 'timestamp_ns']);
  });

  it('treats a sensor that fails to read as absent', async () => {
    const root = sysfs({
      'class/thermal/thermal_zone0/temp': 'garbage',
      'class/hwmon/hwmon1/name': 'ina219\n',
      'class/hwmon/hwmon1/in1_input': '',
    });
    const reading = await new LinuxTelemetry({ sysfsRoot: root }).read();
    expect(reading.internal_temperature_deg_c).toBeUndefined();
    expect(reading.input_voltage_mv).toBeUndefined();
  });

  it('phase lock: DISABLED unless enabled; then what the motor driver reports, LOST when nothing can confirm it', async () => {
    const root = sysfs({});
    const enabled = { config: { ...defaultConfig(), phase_lock_enable: true }, timestampOffsetNs: 5n };
    const unprobed = new LinuxTelemetry({ sysfsRoot: root });
    unprobed.applyRun(enabled);
    expect((await unprobed.read()).phase_lock_status).toBe('LOST');
    let locked = true;
    const probed = new LinuxTelemetry({ sysfsRoot: root, phaseLockProbe: async () => locked });
    probed.applyRun(enabled);
    expect((await probed.read()).phase_lock_status).toBe('LOCKED');
    locked = false;
    expect((await probed.read()).phase_lock_status).toBe('LOST');
  });

  it('reads this machine without failing', async () => {
    const reading = await new LinuxTelemetry().read();
    expect(['LOCKED', 'LOST', 'DISABLED']).toContain(reading.phase_lock_status);
    if (reading.internal_temperature_deg_c !== undefined)
      expect(Number.isInteger(reading.internal_temperature_deg_c)).toBe(true);
  });
});
