import { loadRecording, recordingFaults } from '../src/replay/recording.ts';
for (const f of ['crc_test', 'OS-1-128_767798045_1024x10_20230712_120049']) {
  const r = loadRecording(`../shared/data/recordings/${f}.pcap`);
  console.log(f, r.profile, r.stats, r.passNs, r.framesPerPass, recordingFaults(r), r.packets.slice(0,6).map(p=>[p.kind,p.timeNs,p.frameId, p.bytes.length>32?p.bytes.readUInt16LE(40):0]));
}
