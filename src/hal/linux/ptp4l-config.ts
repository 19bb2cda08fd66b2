/**
 * Applies a PTP profile to ptp4l's configuration file. The file stays the site's own (interface
 * sections, time_stamping, uds_address, …); the server owns one block at its end, between marker
 * lines, holding a `[global]` section with the profile's settings. ptp4l reads the file top to
 * bottom and a later setting wins, so the profile overrides the same keys set earlier in [global].
 * The block is replaced on every profile change and the file is written atomically (temporary
 * file + rename), so ptp4l never reads half a file.
 *
 * ptp4l reads its configuration at start: a profile change takes effect when ptp4l restarts
 * (the Linux HAL runs the configured restart command, e.g. `systemctl restart ptp4l`).
 */
import { readFile, rename, rm, writeFile } from 'node:fs/promises';
import { systemFileProblem } from '../../model/index.js';
import { isPtpProfile, ptp4lSettings, type PtpProfile } from '../ptp-profiles.js';

export const BLOCK_BEGIN = '# BEGIN lidar-sensor PTP profile (managed: rewritten by PUT /api/v1/time/ptp/profile)';
export const BLOCK_END = '# END lidar-sensor PTP profile';

/** The managed block for `profile`. */
export function renderProfileBlock(profile: PtpProfile): string {
  const settings = ptp4lSettings(profile);
  const width = Math.max(...Object.keys(settings).map((k) => k.length)) + 1;
  const lines = Object.entries(settings).map(([key, value]) => `${key.padEnd(width)}${value}`);
  return [BLOCK_BEGIN, `# profile: ${profile === '' ? 'default' : profile}`, '[global]', ...lines, BLOCK_END, ''].join(
    '\n',
  );
}

/** `existing` (a ptp4l configuration, possibly empty) with its managed block replaced by `profile`'s. */
export function withProfileBlock(existing: string, profile: PtpProfile): string {
  let text = existing;
  const begin = text.indexOf(BLOCK_BEGIN);
  if (begin >= 0) {
    const end = text.indexOf(BLOCK_END, begin);
    const after = end < 0 ? text.length : text.indexOf('\n', end) < 0 ? text.length : text.indexOf('\n', end) + 1;
    text = text.slice(0, begin) + text.slice(after);
  }
  if (text.length > 0 && !text.endsWith('\n')) text += '\n';
  if (text.length > 0 && !text.endsWith('\n\n')) text += '\n';
  return text + renderProfileBlock(profile);
}

const WHAT = "ptp4l's configuration";

/**
 * Rewrites the file's managed block. Returns whether the file changed (a restart of ptp4l is needed). A file
 * that cannot be read or written is a `system-file` problem naming it and why, never the unit's storage.
 */
export async function writeProfileToPtp4lConfig(path: string, profile: PtpProfile): Promise<boolean> {
  let existing = '';
  try {
    existing = await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw systemFileProblem(WHAT, path, error);
  }
  const next = withProfileBlock(existing, profile);
  if (next === existing) return false;
  const temporary = `${path}.tmp-${process.pid}`;
  try {
    await writeFile(temporary, next, { mode: 0o644 });
    await rename(temporary, path);
  } catch (error) {
    await rm(temporary, { force: true }).catch(() => undefined);
    throw systemFileProblem(WHAT, path, error);
  }
  return true;
}

/** The profile named in `text`'s managed block (as renderProfileBlock wrote it), or undefined without a valid one. */
export function profileInBlock(text: string): PtpProfile | undefined {
  const begin = text.indexOf(BLOCK_BEGIN);
  if (begin < 0) return undefined;
  const named = /^# profile: (.*)$/m.exec(text.slice(begin))?.[1];
  return isPtpProfile(named) ? named : undefined;
}
