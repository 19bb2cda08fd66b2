/**
 * mDNS / DNS-SD advertisement, loaded lazily when the unit advertises itself.
 */
export { startMdnsAdvertiser } from './mdns-advertiser.js';
export type { MdnsAdvertiser, MdnsAdvertiserOptions } from './mdns-advertiser.js';
export type { MdnsMode } from './mdns-mode.js';
