/** Whether this machine runs arm64 programs: natively, or under qemu-user registered in binfmt_misc. */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

/** Why arm64 programs cannot run here, or undefined when they can (scripts/deploy/setup-emulation.sh sets it up). */
export function arm64Problem(): string | undefined {
  if (execFileSync('dpkg', ['--print-architecture'], { encoding: 'utf8' }).trim() === 'arm64') return undefined;
  try {
    const entry = readFileSync('/proc/sys/fs/binfmt_misc/qemu-aarch64', 'utf8');
    return entry.startsWith('enabled') ? undefined : 'qemu-aarch64 is registered but disabled in binfmt_misc';
  } catch {
    return 'no qemu-aarch64 in binfmt_misc (scripts/deploy/setup-emulation.sh sets it up where the kernel allows)';
  }
}
