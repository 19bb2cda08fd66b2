/**
 * The device install on arm64, under emulation: an arm64 Debian 12 booted with systemd, `apt install` of the arm64
 * package, and the unit's own checks as on amd64.
 */
import { inject } from 'vitest';
import { describeDeviceInstall } from '../device-suite.js';

describeDeviceInstall({
  arch: 'arm64',
  image: inject('deviceImage'),
  skip: inject('dockerSkip'),
  emulated: true,
  emulationLimits: [
    {
      unit: 'lidar-sensor-firmware.service',
      setting: 'PrivateNetwork=no',
      why:
        'qemu-user translates rtnetlink only in part, and systemd fails to set up the loopback of a new network ' +
        'namespace under it ("Failed to set up network namespacing: Input/output error"); the amd64 device test ' +
        'checks the one-shot with PrivateNetwork=yes',
    },
  ],
});
