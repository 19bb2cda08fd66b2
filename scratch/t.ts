import { readFileSync } from 'node:fs';
import { readCaptureFile } from '../src/replay/capture-file.ts';
import { extractUdpDatagrams } from '../src/replay/udp-datagrams.ts';
for (const f of ['crc_test', 'OS-1-128_767798045_1024x10_20230712_120049']) {
  const c = readCaptureFile(readFileSync(`../shared/data/recordings/${f}.pcap`));
  const x = extractUdpDatagrams(c.frames);
  const byPort = new Map<string, number>();
  for (const d of x.datagrams) byPort.set(`${d.dstPort}/${d.payload.length}`, (byPort.get(`${d.dstPort}/${d.payload.length}`) ?? 0) + 1);
  console.log(f, c.format, c.frames.length, c.truncated, x.fragments, x.incomplete, x.skippedFrames, x.shortDatagrams, x.datagrams.length, [...byPort], Number(x.datagrams.at(-1)!.timeNs - x.datagrams[0].timeNs) / 1e6);
  const l = x.datagrams.filter(d=>d.payload.length>100).slice(0,3).map(d=>d.payload.subarray(0,32).toString('hex'));
  console.log(l);
}
