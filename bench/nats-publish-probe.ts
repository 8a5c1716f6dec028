/**
 * The floor of the cluster write path: sequential R3 publishes (1.5 KB, fenced by expected-last-
 * sequence) on the launcher's 3 nats-servers, from a client on each server — the stream leader's and
 * the two that relay to it — without and with a consumer on every connection (the leader's echo
 * and two followers'), then a leader stepdown with a preferred server (what
 * `Replicator.preferLocalStreamLeader` asks). docs/scale-out.md, "What a write costs".
 *   npx tsx bench/nats-publish-probe.ts
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { connect } from '@nats-io/transport-node';
import { jetstream, jetstreamManager, StorageType } from '@nats-io/jetstream';
import { down, up } from '../runtime/cluster/launcher.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ctx-nats-probe-'));
const p50 = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
try {
  const file = await up({ nodes: 0, dir });
  const conns = await Promise.all(file.nats.map((n) => connect({ servers: [n.url] })));
  let jsm!: Awaited<ReturnType<typeof jetstreamManager>>;
  for (let i = 0; ; i++) {
    try {
      jsm = await jetstreamManager(conns[0]!);
      await jsm.streams.add({ name: 'P', subjects: ['p'], storage: StorageType.File, num_replicas: 3 });
      break;
    } catch (e) {
      if (i > 30) throw e;
      await new Promise((r) => setTimeout(r, 500));
    }
  }
  await new Promise((r) => setTimeout(r, 1000));
  const leader = (await jsm.streams.info('P')).cluster!.leader;
  const data = Buffer.alloc(1500, 1);
  let last = 0;
  // 300 fenced publishes from each connection in turn, `rounds` times: one p50 line per connection and round.
  const publishRounds = async (rounds: number, label: string) => {
    for (let round = 0; round < rounds; round++)
      for (const nc of conns) {
        const js = jetstream(nc);
        const lat: number[] = [];
        for (let i = 0; i < 300; i++) {
          const t0 = performance.now();
          last = (await js.publish('p', data, { expect: { lastSubjectSequence: last } })).seq;
          lat.push(performance.now() - t0);
        }
        console.log(`${label}client on ${nc.info!.server_name}${nc.info!.server_name === leader ? ' (stream leader)' : ''}: p50 ${p50(lat).toFixed(3)} ms`);
      }
  };
  await publishRounds(3, '');
  // Now with consumers as the cluster has them: one on each connection (the leader's echo and two followers').
  const { DeliverPolicy } = await import('@nats-io/jetstream');
  for (const nc of conns) {
    const c = await jetstream(nc).consumers.get('P', { deliver_policy: DeliverPolicy.New });
    const msgs = await c.consume({ max_messages: 256, expires: 2000 });
    void (async () => { for await (const m of msgs) void m; })();
  }
  await publishRounds(2, 'with 3 consumers, ');
  // Stepdown with a preferred server (nats-server 2.11+).
  const want = conns.find((c) => c.info!.server_name !== leader)!;
  const r = await conns[0]!.request('$JS.API.STREAM.LEADER.STEPDOWN.P', JSON.stringify({ placement: { preferred: want.info!.server_name } }), { timeout: 5000 });
  console.log('stepdown', r.string());
  await new Promise((r) => setTimeout(r, 500));
  console.log('leader now', (await jsm.streams.info('P')).cluster!.leader, 'wanted', want.info!.server_name);
  for (const nc of conns) await nc.close();
} finally {
  await down({ dir });
  fs.rmSync(dir, { recursive: true, force: true });
}
console.log(os.loadavg());
