/**
 * What each unit fault action does, one entry per action: the part of the HAL's fault port it needs (an action
 * whose part the unit's HAL lacks is refused before it starts) and how it starts, returning what ends it.
 * A new unit action is one entry here (and its parameters in fault-action-params.ts); `UnitFaults` runs them.
 */
import type { Logger } from 'pino';
import { ALERT_IDS, ApiError, type UnitAction } from '../model/index.js';
import type { HalFaultPort, TelemetryFaults } from '../hal/index.js';
import type { CoreFaultControls } from '../core/index.js';
import type { SceneObjectPlan } from '../udp/index.js';

/** The parts of the HAL's fault port an action may need. */
export type FaultPortPart = keyof HalFaultPort;

/** A time the unit's own setting takes back when the last rule giving one ends. */
export interface UnitTiming {
  /** Extra time a reinitialization takes (INITIALIZING, no packets); 0 = as fast as the host allows. */
  reinitMs: number;
  /** How long a restart keeps the unit unreachable; undefined: the unit's own setting. */
  restartMs?: number;
}

export type TelemetryInput = 'ambientTemperatureC' | 'supplyVoltageMv';

/** What an action starts with: the unit's seams and the bookkeeping shared by rules holding the same fault. */
export interface UnitFaultRun {
  readonly core: CoreFaultControls;
  readonly baseTiming: Readonly<UnitTiming>;
  readonly log: Logger;
  /** The port part the action's entry `needs` (checked before the action starts). */
  part<P extends FaultPortPart>(name: P): NonNullable<HalFaultPort[P]>;
  /** A fault that is on while any rule holds it: `on` when the first rule comes, `off` when the last goes. */
  hold(key: string, on: () => void, off: () => void): () => void;
  /** A valued fault, by `key`: `changed` gets the newest rule's value when a rule comes and when one goes. */
  pushValue<T>(key: string, value: T, changed: (newest: T | undefined) => void): () => void;
  /** Moves a telemetry input to `target` over `rampMs`; back to its value before when the last such rule ends. */
  driveTelemetry(telemetry: TelemetryFaults, input: TelemetryInput, target: number, rampMs: number): () => void;
  /** Puts an object (or dirt on the window) in the simulated scene while the rule lives. */
  placeInScene(object: SceneObjectPlan): () => void;
}

type ActionOf<K extends UnitAction['type']> = Extract<UnitAction, { type: K }>;

interface UnitFaultEntry<K extends UnitAction['type']> {
  /** The port part this action needs; none: the core's fault controls are enough. */
  needs?: FaultPortPart;
  start(run: UnitFaultRun, action: ActionOf<K>, id: string): () => void;
}

const CLEARED = 'the injected fault was removed';

/** Holds a fault that two calls of the port part switch on and off. */
const toggled =
  <P extends FaultPortPart>(needs: P, key: string, set: (part: NonNullable<HalFaultPort[P]>, on: boolean) => void) =>
  (run: UnitFaultRun) => {
    const part = run.part(needs);
    return run.hold(
      key,
      () => set(part, true),
      () => set(part, false),
    );
  };

export const UNIT_FAULT_ACTIONS: { readonly [K in UnitAction['type']]: UnitFaultEntry<K> } = {
  alert: {
    start: (run, action) =>
      run.hold(
        `alert:${action.id}`,
        () => run.core.holdAlert(action.id, action.vars),
        () => run.core.releaseAlert(action.id, CLEARED),
      ),
  },
  temperature: {
    needs: 'telemetry',
    start: (run, action) =>
      run.driveTelemetry(run.part('telemetry'), 'ambientTemperatureC', action.ambient_c, action.ramp_ms),
  },
  voltage: {
    needs: 'telemetry',
    start: (run, action) =>
      run.driveTelemetry(run.part('telemetry'), 'supplyVoltageMv', action.supply_mv, action.ramp_ms),
  },
  link_down: {
    needs: 'link',
    start: (run) => {
      const link = run.part('link');
      return run.hold(
        'link_down',
        () => {
          link.setCarrier(false);
          run.core.holdAlert(ALERT_IDS.ETHERNET_LINK_BAD, { speed: 0, duplex: 'no link,' });
        },
        () => {
          link.setCarrier(true);
          run.core.releaseAlert(ALERT_IDS.ETHERNET_LINK_BAD, 'the link is up again');
        },
      );
    },
  },
  ptp_grandmaster: {
    needs: 'time',
    start: toggled('time', 'ptp_grandmaster', (time, on) => time.setGrandmaster(on)),
  },
  sync_pulse_lock: {
    needs: 'time',
    start: toggled('time', 'sync_pulse_lock', (time, on) => time.setSyncPulses(on ? Date.now() : undefined)),
  },
  phase_lock_lost: {
    needs: 'telemetry',
    start: toggled('telemetry', 'phase_lock_lost', (telemetry, on) => telemetry.setInputs({ motorDisturbed: on })),
  },
  reinit_time: {
    needs: 'streams',
    start: (run, action) =>
      run.pushValue('reinit_time', action.ms, (ms) => run.part('streams').setStartDelay(ms ?? run.baseTiming.reinitMs)),
  },
  restart_time: {
    start: (run, action) =>
      run.pushValue('restart_time', action.ms, (ms) => run.core.setRebootMs(ms ?? run.baseTiming.restartMs)),
  },
  restart: {
    start: (run) => {
      void run.core.restart().catch((err: unknown) => run.log.error({ err }, 'injected restart failed'));
      return () => undefined;
    },
  },
  firmware_boot_fail: {
    needs: 'firmwareBoot',
    start: toggled('firmwareBoot', 'firmware_boot_fail', (boot, on) => boot.setTrialBootFails(on)),
  },
  object: {
    needs: 'streams',
    start: (run, action, id) =>
      run.placeInScene({
        id,
        sizeM: action.size_m,
        positionM: action.position_m,
        velocityMS: action.velocity_m_s,
        startMs: Date.now(),
      }),
  },
  window_soil: {
    needs: 'streams',
    start: (run, action, id) =>
      run.placeInScene({
        kind: 'soil',
        id,
        azimuthDeg: [action.azimuth_from_deg, action.azimuth_to_deg],
        beams: [action.first_beam, action.last_beam],
        level: action.level,
      }),
  },
  storage: {
    start: (run, action) => run.pushValue('storage', action.error, (error) => run.core.setStorageFault(error)),
  },
  firmware_upload_refuse: {
    start: (run, action) =>
      run.pushValue('firmware_upload_refuse', action.after_bytes, (limit) =>
        run.core.setUploadFilter(limit === undefined ? undefined : (body) => refusedAfter(body, limit)),
      ),
  },
};

/** The upload body, refused once more than `limit` bytes have arrived. */
async function* refusedAfter(body: AsyncIterable<Buffer | string>, limit: number): AsyncIterable<Buffer | string> {
  let received = 0;
  for await (const chunk of body) {
    received += chunk.length;
    if (received > limit) {
      throw new ApiError(
        'unavailable',
        `the unit refused the firmware upload after ${limit} bytes (injected fault); nothing was installed`,
        undefined,
        { 'Retry-After': '1' },
      );
    }
    yield chunk;
  }
}
