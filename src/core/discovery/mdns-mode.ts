/**
 * Whether a unit advertises itself: the decision alone, without the responder and its multicast
 * library, so a unit that does not advertise never loads them.
 */
import { isLoopbackHost } from '../../model/index.js';

export type MdnsMode = 'auto' | 'on' | 'off';

/** `auto`: on when the server listens on a non-loopback address (a wildcard counts), as real units always do. */
export function mdnsEnabled(mode: MdnsMode, host: string): boolean {
  if (mode !== 'auto') return mode === 'on';
  return !isLoopbackHost(host);
}
