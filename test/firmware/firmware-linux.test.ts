/**
 * The linux firmware HAL against a fake A/B bootloader: a hook script that keeps U-Boot-like state
 * (primary slot, trial slot, attempts left) in files, as an integrator's script would keep it in
 * the U-Boot environment. The unit's reboot is simulated in-process (the sim power part), so the
 * test drives the real hook protocol through upload, reboot, commit and rollback.
 */
import { createHash } from 'node:crypto';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { buildImage, generatedPayload } from '../../src/model/image-format.js';
import { FIRMWARE_ROLLBACK_ALERT } from '../../src/core/firmware/firmware-boot.js';
import { createLinuxFirmware } from '../../src/hal/linux/firmware-linux.js';
import { createLinuxPower } from '../../src/hal/linux/power-linux.js';
import { RESTART_EXIT_CODE } from '../../src/hal/power.js';
import { createTestSensor, removeDir, type TestSensor } from '../helpers/test-sensor.js';
import { waitFor } from '../helpers/poll.js';

const NEW_REV = 'ousteros-image-prod-bootes-v3.2.0+20250101120000';

function fakeBootloaderHook(dir: string): string {
  const hook = join(dir, 'firmware-hook');
  writeFileSync(
    hook,
    `#!/bin/sh
set -e
D='${dir}'
echo "$*" >> "$D/calls.log"
case "$1" in
  booted)
    primary=$(cat "$D/primary" 2>/dev/null || echo a)
    if [ -f "$D/trial" ]; then
      left=$(cat "$D/left")
      if [ "$left" -gt 0 ]; then echo $((left - 1)) > "$D/left"; cat "$D/trial"; exit 0; fi
      rm "$D/trial"
    fi
    echo "$primary" ;;
  install)
    tail -c +$(($4 + 1)) "$3" > "$D/partition-$2"
    [ "$(wc -c < "$D/partition-$2")" -eq "$5" ] ;;
  activate)
    echo "$2" > "$D/trial"
    if [ -f "$D/trials-fail" ]; then echo 0 > "$D/left"; else echo 3 > "$D/left"; fi ;;
  mark-good)
    echo "$2" > "$D/primary"; rm -f "$D/trial" ;;
  reboot) ;;
  *) echo "unknown step $1" >&2; exit 64 ;;
esac
`,
  );
  chmodSync(hook, 0o755);
  return hook;
}

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0)) await c();
});

async function linuxUnit(withHook = true): Promise<{ t: TestSensor; bootDir: string; calls: () => string[] }> {
  const bootDir = mkdtempSync(join(tmpdir(), 'fake-uboot-'));
  const hook = withHook ? fakeBootloaderHook(bootDir) : undefined;
  const t = await createTestSensor({
    hal: (defaults) => ({
      ...defaults,
      firmware: createLinuxFirmware({ dataDir: join(defaults.firmware.slotDirectory, '..'), hook }),
    }),
  });
  cleanups.push(async () => {
    await t.close();
    removeDir(t.dataDir);
    rmSync(bootDir, { recursive: true, force: true });
  });
  const calls = () =>
    existsSync(join(bootDir, 'calls.log')) ? readFileSync(join(bootDir, 'calls.log'), 'utf8').trim().split('\n') : [];
  return { t, bootDir, calls };
}

async function upload(t: TestSensor, image: Buffer) {
  return t.app.inject({
    method: 'POST',
    url: '/api/v1/system/firmware',
    headers: { 'content-type': 'application/octet-stream' },
    payload: image,
  });
}

describe('linux firmware HAL with a bootloader hook', () => {
  it('installs the payload, activates the slot, follows the bootloader into it and marks it good', async () => {
    const { t, bootDir, calls } = await linuxUnit();
    const payload = generatedPayload('rootfs', 50_000);
    expect((await upload(t, buildImage(NEW_REV, payload))).statusCode).toBe(204);
    await waitFor(
      () => !t.sensor.firmware.status.commit_pending && t.sensor.firmware.status.fw === NEW_REV,
      10_000,
      'the update to commit',
    );
    expect(readFileSync(join(bootDir, 'partition-b')).equals(payload)).toBe(true);
    const imageFile = join(t.hal.firmware.slotDirectory, 'slot-b.img');
    expect(calls()).toEqual([
      'booted',
      `install b ${imageFile} ${buildImage(NEW_REV, Buffer.alloc(0)).length} ${payload.length} ${NEW_REV}`,
      'activate b',
      'booted',
      'mark-good b',
    ]);
    expect(readFileSync(join(bootDir, 'primary'), 'utf8').trim()).toBe('b');
    expect(createHash('sha256').update(readFileSync(imageFile)).digest('hex')).toBe(
      createHash('sha256').update(buildImage(NEW_REV, payload)).digest('hex'),
    );
  });

  it('notices when the bootloader fell back to the previous slot and raises the rollback alert', async () => {
    const { t, bootDir, calls } = await linuxUnit();
    writeFileSync(join(bootDir, 'trials-fail'), '');
    const before = t.sensor.firmware.status.fw;
    expect((await upload(t, buildImage(NEW_REV, generatedPayload('bad', 1000)))).statusCode).toBe(204);
    await waitFor(
      () =>
        calls().filter((c) => c === 'booted').length === 2 &&
        t.sensor.run.status === 'RUNNING' &&
        !t.sensor.firmware.status.commit_pending,
      10_000,
      'the reboot',
    );
    expect(t.sensor.firmware.status).toEqual({ commit_pending: false, fw: before });
    expect(calls()).not.toContain('mark-good b');
    expect(t.sensor.alerts.snapshot().active.map((a: { id: string }) => a.id)).toContain(FIRMWARE_ROLLBACK_ALERT);
  });

  it('refuses uploads with 409 when no hook is configured', async () => {
    const { t } = await linuxUnit(false);
    const res = await upload(t, buildImage(NEW_REV, Buffer.alloc(10)));
    expect(res.statusCode).toBe(409);
    expect(res.json().detail).toMatch(/--firmware-hook/);
  });
});

describe('linux power HAL', () => {
  it('exits with the restart status, after the hook reboot step for a firmware update', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'fake-uboot-'));
    try {
      const hook = fakeBootloaderHook(dir);
      const exits: number[] = [];
      const power = createLinuxPower({ firmwareHook: hook, exit: (code) => exits.push(code) });
      expect(power.rebootMode).toBe('process-exit');
      await power.reboot('restart');
      expect(existsSync(join(dir, 'calls.log'))).toBe(false);
      await power.reboot('firmware-update');
      expect(readFileSync(join(dir, 'calls.log'), 'utf8').trim()).toBe('reboot');
      expect(exits).toEqual([RESTART_EXIT_CODE, RESTART_EXIT_CODE]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
