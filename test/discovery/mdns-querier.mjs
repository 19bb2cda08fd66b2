// A DNS-SD browser for the mDNS tests, run inside a network namespace: `node mdns-querier.mjs browse ADDR`
// joins the group on the interface holding ADDR, asks for both Ouster service types a few times and prints
// every response it sees as a JSON line; `node mdns-querier.mjs legacy ADDR TARGET NAME TYPE` sends one
// legacy unicast query (from an ephemeral port) to TARGET:5353 and prints the answer.
import makeMdns from 'multicast-dns';

const [mode, address, target, name, type] = process.argv.slice(2);

const record = (a) => ({
  name: a.name,
  type: a.type,
  ttl: a.ttl,
  flush: a.flush,
  data: a.type === 'TXT' ? a.data.map((b) => b.toString()) : a.data,
});
const print = (packet, rinfo) =>
  console.log(
    JSON.stringify({
      from: `${rinfo.address}:${rinfo.port}`,
      id: packet.id,
      authoritative: (packet.flags & (1 << 10)) !== 0,
      questions: packet.questions,
      answers: packet.answers.map(record),
      additionals: packet.additionals.map(record),
    }),
  );

if (mode === 'browse') {
  const mdns = makeMdns({ bind: '0.0.0.0', interface: address, loopback: false });
  mdns.on('response', print);
  const ask = () =>
    mdns.query([
      { name: '_roger._tcp.local', type: 'PTR' },
      { name: '_ouster-lidar._tcp.local', type: 'PTR' },
    ]);
  mdns.on('ready', () => {
    console.log(JSON.stringify({ ready: true }));
    ask();
  });
} else if (mode === 'legacy') {
  // Port 0: an ephemeral source port, as a plain DNS resolver uses; no group membership.
  const mdns = makeMdns({ port: 0, multicast: false, bind: address });
  mdns.on('ready', () => mdns.query({ id: 4242, questions: [{ name, type }] }, { address: target, port: 5353 }));
  mdns.on('response', (packet, rinfo) => {
    print(packet, rinfo);
    mdns.destroy();
  });
  setTimeout(() => {
    console.log(JSON.stringify({ timeout: true }));
    mdns.destroy();
  }, 3000).unref();
} else {
  console.error(`unknown mode ${mode}`);
  process.exit(2);
}
