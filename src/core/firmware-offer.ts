/**
 * What the running firmware offers clients, who gate on its version: the version it reports, whether Zone
 * Monitor's routes answer (3.2 and later), the parameters an older firmware lacks, and the configuration as
 * such a unit reports it (without them). The parameters are worked out once per running image, the reported
 * configuration once per configuration object (they are replaced, never changed), as pollers read it often.
 */
import { parametersNewerThan, type SensorConfig, valuesNewerThan } from '../config/index.js';
import { hasZoneMonitor, type SensorIdentity } from '../model/index.js';
import type { FirmwareManager } from './firmware/firmware-manager.js';

/**
 * Who the unit is now: its firmware build is the one the running slot holds (src/core/firmware). A replay unit
 * names the recording's firmware while it runs its factory image, and an installed update once it runs one.
 */
export function runningIdentity(
  base: SensorIdentity,
  firmware: Pick<FirmwareManager, 'runningBuild' | 'runsFactoryImage'>,
): SensorIdentity {
  const identity = { ...base, firmware: firmware.runningBuild };
  if (!firmware.runsFactoryImage) delete identity.recordedFirmware;
  return identity;
}

export interface FirmwareOfferSources {
  /** Who the unit is now: its running build, and a replayed recording's firmware while it runs its factory image. */
  identity(): SensorIdentity;
  /** The running image's revision: what the offer is worked out for. */
  runningImageRev(): string;
}

export class FirmwareOffer {
  private absent: { imageRev: string; names: ReadonlySet<string> } | undefined;
  private readonly shownConfigs = new WeakMap<object, { absent: ReadonlySet<string>; shown: SensorConfig }>();

  constructor(private readonly sources: FirmwareOfferSources) {}

  /** The firmware version the unit reports ("3.2.0"): the running build's, or a replayed recording's. */
  get reportedVersion(): string {
    const identity = this.sources.identity();
    const recorded = identity.recordedFirmware && /-v(\d+\.\d+\.\d+)/.exec(identity.recordedFirmware.imageRev);
    return recorded ? recorded[1] : identity.firmware.version;
  }

  /** Whether the zone routes answer (firmware 3.2 and later); a unit of older firmware answers them 404. */
  get zoneMonitor(): boolean {
    return hasZoneMonitor({ version: this.reportedVersion });
  }

  /** Parameters this firmware does not have (udp_dest_zm and udp_port_zm before 3.2): neither reported nor accepted. */
  get absentParameters(): ReadonlySet<string> {
    const imageRev = this.sources.runningImageRev();
    if (this.absent?.imageRev !== imageRev)
      this.absent = { imageRev, names: parametersNewerThan(this.reportedVersion) };
    return this.absent.names;
  }

  /** Values this firmware does not have, by parameter (firmware 3.2's new profiles before 3.2). */
  get absentValues(): ReadonlyMap<string, readonly unknown[]> {
    return valuesNewerThan(this.reportedVersion);
  }

  /** `config` as this firmware reports it: without the parameters it does not have. */
  shown(config: Readonly<SensorConfig>): Readonly<SensorConfig> {
    const absent = this.absentParameters;
    if (absent.size === 0) return config;
    const cached = this.shownConfigs.get(config);
    if (cached?.absent === absent) return cached.shown;
    const copy: Record<string, unknown> = { ...config };
    for (const name of absent) delete copy[name];
    const shown = Object.freeze(copy) as unknown as SensorConfig;
    this.shownConfigs.set(config, { absent, shown });
    return shown;
  }
}
