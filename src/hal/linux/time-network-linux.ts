/**
 * The time and network parts of a real unit, built together because they share the interface:
 * ptp4l runs on it and derives the PTP clock identity from its MAC.
 */
import pino, { type Logger } from 'pino';
import { clockIdentityFromMac } from '../../model/index.js';
import type { NetworkHal } from '../network.js';
import type { TimeHal } from '../time.js';
import { LinuxNetwork } from './network-linux.js';
import { LinuxTime } from './time-linux.js';

export interface LinuxTimeNetworkOptions {
  /** HTTP listen address (the interface holding it is the default interface). */
  listenAddress: string;
  /** --interface: the Ethernet interface to read and configure. */
  networkInterface?: string;
  /** --network-hook: run as `<hook> static <if> <cidr>` / `<hook> dynamic <if>` when the addressing mode changes. */
  networkHook?: string;
  /** --chronyc-host: chronyc's `-h` (host, or path of chronyd's command socket). */
  chronycHost?: string;
  /** --ptp4l-socket: ptp4l's `uds_address`. */
  ptp4lSocket?: string;
  /** --pmc-client-socket: pmc's own socket (pmc -i), where an unprivileged server may create it. */
  pmcClientSocket?: string;
  /** --ptp4l-config: the ptp4l configuration file whose managed block holds the PTP profile. */
  ptp4lConfig?: string;
  /** --ptp4l-restart-command: run after a profile change rewrote ptp4l's configuration. */
  ptp4lRestartCommand?: readonly string[];
  log?: Logger;
}

export function createLinuxTimeAndNetwork(options: LinuxTimeNetworkOptions): { network: NetworkHal; time: TimeHal } {
  const log = options.log ?? pino({ level: 'silent' });
  const network = new LinuxNetwork({
    interface: options.networkInterface,
    listenAddress: options.listenAddress,
    networkHook: options.networkHook,
    log,
  });
  const time = new LinuxTime({
    chronycHost: options.chronycHost,
    ptp4lSocket: options.ptp4lSocket,
    pmcClientSocket: options.pmcClientSocket,
    ptp4lConfig: options.ptp4lConfig,
    ptp4lRestartCommand: options.ptp4lRestartCommand,
    clockIdentity: async () => clockIdentityFromMac(await network.mac()),
    log,
  });
  return { network, time };
}
