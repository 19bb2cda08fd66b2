/** The TTL cache in front of daemon queries: one read per period, shared by concurrent callers. */
import { expect, it } from 'vitest';
import { TtlCache } from '../../src/model/util/ttl-cache.js';

it('reads once per period, shares a read in flight, and reads again after invalidate or expiry', async () => {
  let now = 1000;
  let reads = 0;
  let release: (() => void) | undefined;
  const cache = new TtlCache(
    () => {
      reads++;
      return new Promise<{ n: number }>((resolve) => (release = () => resolve({ n: reads })));
    },
    1000,
    () => now,
  );
  const a = cache.get();
  const b = cache.get();
  release!();
  expect(await a).toBe(await b);
  expect(reads).toBe(1);
  now += 999;
  expect(await cache.get()).toEqual({ n: 1 });
  now += 1;
  const c = cache.get();
  release!();
  expect(await c).toEqual({ n: 2 });
  cache.invalidate();
  expect(cache.peek()).toBeUndefined();
  const d = cache.get();
  release!();
  expect(await d).toEqual({ n: 3 });
});

it('a failed read is not cached', async () => {
  let fail = true;
  const cache = new TtlCache(async () => {
    if (fail) throw new Error('daemon down');
    return 'ok';
  }, 1000);
  await expect(cache.get()).rejects.toThrow('daemon down');
  fail = false;
  expect(await cache.get()).toBe('ok');
});

it('hands a fresh value over without a promise, and nothing once it is stale or never expires unread', async () => {
  let now = 0;
  const cache = new TtlCache(
    async () => ({ at: now }),
    1000,
    () => now,
  );
  expect(cache.fresh()).toBeUndefined();
  const value = await cache.get();
  expect(cache.fresh()).toBe(value);
  now += 1000;
  expect(cache.fresh()).toBeUndefined();
  const forever = new TtlCache(async () => 'reading', Number.POSITIVE_INFINITY);
  expect(forever.fresh()).toBeUndefined();
  await forever.get();
  expect(forever.fresh()).toBe('reading');
  forever.invalidate();
  expect(forever.fresh()).toBeUndefined();
});

it('shares a read in flight only until its deadline: a later caller starts its own, and the stale read never overwrites it', async () => {
  let now = 0;
  const releases: ((value: string) => void)[] = [];
  const cache = new TtlCache(
    () => new Promise<string>((resolve) => releases.push(resolve)),
    0,
    () => now,
    3000,
  );
  const stuck = cache.get();
  now += 2999;
  cache.get(); // still within the deadline: the same read
  expect(releases).toHaveLength(1);
  now += 1;
  const fresh = cache.get();
  expect(releases).toHaveLength(2);
  releases[1]('second');
  expect(await fresh).toBe('second');
  releases[0]('first, late');
  expect(await stuck).toBe('first, late');
  expect(cache.peek()).toBe('second');
  await cache.settled();
});
