/**
 * The zone render worker's entry (scripts/bundle.mjs bundles it to dist/zone-render-worker.js): reads one
 * zone set zip and renders its zones for the beams it is given, off the main thread, so the unit answers
 * requests and its watchdog while it renders (zone-render-thread.ts starts it, one per render, and ends it
 * when the render outlasts its bound). Tells which zone it is at before each, so a render stopped at the
 * bound names the zone it was rendering.
 */
import { parentPort } from 'node:worker_threads';
import type { ZoneRenderRequest, ZoneRenderMessage } from './zone-render-protocol.js';
import { checkZoneSet } from './zone-set.js';

const port = parentPort;
if (!port) throw new Error('zone-render-worker runs as a worker thread');
port.once('message', ({ zip, beams }: ZoneRenderRequest) => {
  const post = (message: ZoneRenderMessage) => port.postMessage(message);
  post({ type: 'done', result: checkZoneSet(zip, beams, (zone) => post({ type: 'zone', zone })) });
});
