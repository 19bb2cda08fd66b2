/**
 * Telemetry of a real unit, from what Linux exposes in sysfs:
 *
 * - Temperature: the hottest of /sys/class/thermal/thermal_zone* (millidegrees C), falling back to
 *   hwmon temp*_input; the hottest sensor is the one that matters for OVERTEMP.
 * - Input voltage and current: from the board's power monitor through hwmon, when the board has
 *   one (INA219/INA226/INA260/INA3221-style chips: `in<N>_input` in mV, `curr<N>_input` in mA).
 *   The channels are found by label (`*_label` naming the input: vin, vbus, input, supply) or, for
 *   INA2xx chips without labels, by their convention (in1 = bus voltage, curr1 = current). A board
 *   with another layout names its channels explicitly (options.powerMonitor). A board without a
 *   power monitor has no such values, and telemetry leaves the two fields out instead of
 *   inventing them.
 * - Phase lock: no standard Linux interface reports the motor controller's lock, so it reads
 *   DISABLED when phase_lock_enable is false and LOST otherwise (lock cannot be confirmed) until
 *   the board's motor driver provides `phaseLockProbe`.
 */
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { PhaseLockStatus, TelemetryHal, TelemetryReading, TelemetryRun } from '../telemetry.js';

export interface PowerMonitorChannels {
  /** hwmon file holding the input voltage in mV, e.g. /sys/class/hwmon/hwmon2/in1_input. */
  voltageFile: string;
  /** hwmon file holding the input current in mA. */
  currentFile?: string;
}

export interface LinuxTelemetryOptions {
  /** Root of sysfs (tests use a fake tree). Default "/sys". */
  sysfsRoot?: string;
  /** Explicit power-monitor channels; without them they are detected once. */
  powerMonitor?: PowerMonitorChannels;
  /** The motor driver's lock state, when the board has one. */
  phaseLockProbe?: () => Promise<boolean>;
}

const POWER_MONITOR_CHIPS = /^(ina2\d\d|ina3221|ina23\d|ltc294\d|ltc4151|max3444\d|adm1275|lm2506\d)/;
const INPUT_LABEL = /^(vin|vbus|v_in|input|supply|in)$/i;

export class LinuxTelemetry implements TelemetryHal {
  private readonly sysfsRoot: string;
  private readonly phaseLockProbe: (() => Promise<boolean>) | undefined;
  private powerMonitor: Promise<PowerMonitorChannels | undefined> | undefined;
  private run: TelemetryRun | null = null;
  private timestampOffsetNs = 0n;

  constructor(options: LinuxTelemetryOptions = {}) {
    this.sysfsRoot = options.sysfsRoot ?? '/sys';
    this.phaseLockProbe = options.phaseLockProbe;
    if (options.powerMonitor) this.powerMonitor = Promise.resolve(options.powerMonitor);
  }

  applyRun(run: TelemetryRun | null): void {
    this.run = run;
    if (run) this.timestampOffsetNs = run.timestampOffsetNs;
  }

  async read(): Promise<TelemetryReading> {
    this.powerMonitor ??= this.findPowerMonitor();
    const [temperature, monitor, phaseLock] = await Promise.all([
      this.temperatureC(),
      this.powerMonitor,
      this.phaseLockStatus(),
    ]);
    const voltage = monitor ? await readInteger(monitor.voltageFile) : undefined;
    const current = monitor?.currentFile ? await readInteger(monitor.currentFile) : undefined;
    // Key order of the spec's telemetry object; quantities this board cannot measure are left out.
    return {
      ...(current !== undefined && { input_current_ma: current }),
      ...(voltage !== undefined && { input_voltage_mv: voltage }),
      ...(temperature !== undefined && { internal_temperature_deg_c: temperature }),
      phase_lock_status: phaseLock,
      timestamp_ns: process.hrtime.bigint() + this.timestampOffsetNs,
    };
  }

  async close(): Promise<void> {}

  private async phaseLockStatus(): Promise<PhaseLockStatus> {
    if (!this.run?.config.phase_lock_enable) return 'DISABLED';
    if (!this.phaseLockProbe) return 'LOST';
    return (await this.phaseLockProbe()) ? 'LOCKED' : 'LOST';
  }

  /** Hottest thermal zone, else hottest hwmon temperature input; whole degrees C. */
  private async temperatureC(): Promise<number | undefined> {
    const thermalDir = join(this.sysfsRoot, 'class/thermal');
    const zones = (await listDir(thermalDir)).filter((name) => name.startsWith('thermal_zone'));
    let milli = await maxOf(zones.map((zone) => readInteger(join(thermalDir, zone, 'temp'))));
    if (milli === undefined) {
      const hwmonDir = join(this.sysfsRoot, 'class/hwmon');
      const files: Promise<number | undefined>[] = [];
      for (const device of await listDir(hwmonDir)) {
        for (const file of await listDir(join(hwmonDir, device))) {
          if (/^temp\d+_input$/.test(file)) files.push(readInteger(join(hwmonDir, device, file)));
        }
      }
      milli = await maxOf(files);
    }
    return milli === undefined ? undefined : Math.round(milli / 1000);
  }

  private async findPowerMonitor(): Promise<PowerMonitorChannels | undefined> {
    const hwmonDir = join(this.sysfsRoot, 'class/hwmon');
    for (const device of (await listDir(hwmonDir)).sort()) {
      const dir = join(hwmonDir, device);
      const name = (await readText(join(dir, 'name')))?.trim() ?? '';
      const files = await listDir(dir);
      const labelled = await this.labelledInput(dir, files);
      if (labelled) return labelled;
      if (POWER_MONITOR_CHIPS.test(name) && files.includes('in1_input')) {
        return {
          voltageFile: join(dir, 'in1_input'),
          ...(files.includes('curr1_input') && { currentFile: join(dir, 'curr1_input') }),
        };
      }
    }
    return undefined;
  }

  /** A voltage channel whose label names the unit's input, with the current channel of the same label. */
  private async labelledInput(dir: string, files: string[]): Promise<PowerMonitorChannels | undefined> {
    for (const file of files) {
      const match = /^in(\d+)_label$/.exec(file);
      if (!match) continue;
      const label = (await readText(join(dir, file)))?.trim() ?? '';
      if (!INPUT_LABEL.test(label) || !files.includes(`in${match[1]}_input`)) continue;
      let currentFile: string | undefined;
      for (const other of files) {
        const current = /^curr(\d+)_label$/.exec(other);
        if (
          current &&
          (await readText(join(dir, other)))?.trim().toLowerCase() === label.toLowerCase() &&
          files.includes(`curr${current[1]}_input`)
        ) {
          currentFile = join(dir, `curr${current[1]}_input`);
        }
      }
      return { voltageFile: join(dir, `in${match[1]}_input`), ...(currentFile && { currentFile }) };
    }
    return undefined;
  }
}

async function listDir(path: string): Promise<string[]> {
  try {
    return await readdir(path);
  } catch {
    return [];
  }
}

async function readText(path: string): Promise<string | undefined> {
  try {
    return await readFile(path, 'utf8');
  } catch {
    return undefined;
  }
}

/** sysfs integer attribute; a missing file or a sensor that fails to read (EIO, ENODATA) counts as no value. */
async function readInteger(path: string): Promise<number | undefined> {
  const text = await readText(path);
  if (text === undefined || !/^-?\d+\s*$/.test(text)) return undefined;
  return Number.parseInt(text, 10);
}

async function maxOf(values: Promise<number | undefined>[]): Promise<number | undefined> {
  const present = (await Promise.all(values)).filter((v): v is number => v !== undefined);
  return present.length ? Math.max(...present) : undefined;
}
