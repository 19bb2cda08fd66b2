/** The device install on this machine's own architecture (amd64 in CI): every check, natively. */
import { inject } from 'vitest';
import { describeDeviceInstall } from './device-suite.js';

describeDeviceInstall({ arch: 'amd64', image: inject('deviceImage'), skip: inject('dockerSkip'), emulated: false });
