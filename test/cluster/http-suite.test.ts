/**
 * The spec's behaviour through any node (issue 23, "Tests over real processes"): a representative
 * run of the HTTP API — fs, content, resources, search, sessions; happy paths and error paths — sent
 * to a node of a real cluster that does not lead the caller's shard (every write forwarded, reads
 * served by a replica or forwarded), and the same requests sent to a single node. Statuses, results
 * (timestamps and generated ids aside) and error envelopes must be the same; error envelopes byte
 * for byte (the envelope's `time` and ids the server draws at random aside).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { localClusterForFile } from './one-at-a-time.js';
import { natsServerInstalled, type ClusterFile } from '../../runtime/cluster/launcher.js';
import { ROOT_KEY, startTestApp, tempDir, type TestApp } from '../helpers/app.js';
import { pollUntil } from '../helpers/poll.js';
import { shardOf } from '../../runtime/cluster/placement.js';

interface Step {
  name: string;
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  path: string | ((vars: Record<string, string>) => string);
  body?: unknown | ((vars: Record<string, string>) => unknown);
  /** A body sent as is (malformed JSON, multipart) with this content type. */
  raw?: { type: string; data: Buffer };
  /** Omit the key (or send a wrong one). */
  key?: 'none' | 'wrong';
  /** Keep a field of the result for later steps (`vars[name]`, per target). */
  keep?: (result: any) => Record<string, string>;
}

const R = 'ctx://resources/suite';
const q = (uri: string) => encodeURIComponent(uri);
const boundary = '----ctxsuite0123456789';
const multipart = Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="otters.md"\r\n\r\n# Otters\n\nSea otters hold hands while they sleep.\n\r\n--${boundary}--\r\n`);

const STEPS: Step[] = [
  // fs
  { name: 'mkdir', method: 'POST', path: '/api/v1/fs/mkdir', body: { uri: R } },
  { name: 'mkdir again', method: 'POST', path: '/api/v1/fs/mkdir', body: { uri: R } },
  { name: 'mkdir bad uri', method: 'POST', path: '/api/v1/fs/mkdir', body: { uri: 'not-a-uri' } },
  { name: 'mkdir no body', method: 'POST', path: '/api/v1/fs/mkdir' },
  // content
  { name: 'write a', method: 'POST', path: '/api/v1/content/write', body: { uri: `${R}/a.md`, content: '# Alpha\n\nQuokkas smile at tourists on Rottnest island.\n', wait: true } },
  { name: 'write b', method: 'POST', path: '/api/v1/content/write', body: { uri: `${R}/deep/b.md`, content: 'Beta: wombats dig burrows with strong claws.\n', wait: true } },
  { name: 'write create conflict', method: 'POST', path: '/api/v1/content/write', body: { uri: `${R}/a.md`, content: 'x', mode: 'create' } },
  { name: 'write bad mode', method: 'POST', path: '/api/v1/content/write', body: { uri: `${R}/x.md`, content: 'x', mode: 'sideways' } },
  { name: 'write malformed json', method: 'POST', path: '/api/v1/content/write', raw: { type: 'application/json', data: Buffer.from('{"uri":') } },
  { name: 'write wrong media type', method: 'POST', path: '/api/v1/content/write', raw: { type: 'application/xml', data: Buffer.from('<a/>') } },
  { name: 'write append', method: 'POST', path: '/api/v1/content/write', body: { uri: `${R}/a.md`, content: 'Appended line.\n', mode: 'append' } },
  { name: 'batch-write', method: 'POST', path: '/api/v1/content/batch-write', body: { root_uri: 'ctx://resources', operations: [{ uri: `${R}/c.md`, content: 'gamma' }, { uri: `${R}/d.md`, content: 'delta', mode: 'create' }], wait: false } },
  { name: 'batch-write empty', method: 'POST', path: '/api/v1/content/batch-write', body: { root_uri: 'ctx://resources', operations: [] } },
  { name: 'read a', method: 'GET', path: `/api/v1/content/read?uri=${q(`${R}/a.md`)}` },
  { name: 'read a slice', method: 'GET', path: `/api/v1/content/read?uri=${q(`${R}/a.md`)}&offset=1&limit=1` },
  { name: 'read missing', method: 'GET', path: `/api/v1/content/read?uri=${q(`${R}/nope.md`)}` },
  { name: 'read a directory', method: 'GET', path: `/api/v1/content/read?uri=${q(R)}` },
  { name: 'abstract of a file', method: 'GET', path: `/api/v1/content/abstract?uri=${q(`${R}/deep/b.md`)}` },
  { name: 'set_tags', method: 'POST', path: '/api/v1/content/set_tags', body: { uri: `${R}/a.md`, tags: ['topic=animals'] } },
  { name: 'set_tags bad tag', method: 'POST', path: '/api/v1/content/set_tags', body: { uri: `${R}/a.md`, tags: ['no equals sign'] } },
  { name: 'ls', method: 'GET', path: `/api/v1/fs/ls?uri=${q(R)}&simple=true` },
  { name: 'ls recursive', method: 'GET', path: `/api/v1/fs/ls?uri=${q(R)}&recursive=true&simple=true` },
  { name: 'ls missing', method: 'GET', path: `/api/v1/fs/ls?uri=${q(`${R}/nope`)}` },
  { name: 'tree', method: 'GET', path: `/api/v1/fs/tree?uri=${q(R)}&simple=true` },
  { name: 'stat a', method: 'GET', path: `/api/v1/fs/stat?uri=${q(`${R}/a.md`)}` },
  { name: 'stat missing', method: 'GET', path: `/api/v1/fs/stat?uri=${q(`${R}/nope.md`)}` },
  { name: 'stat bad uri', method: 'GET', path: '/api/v1/fs/stat?uri=http://x' },
  { name: 'mv', method: 'POST', path: '/api/v1/fs/mv', body: { from_uri: `${R}/c.md`, to_uri: `${R}/c2.md` } },
  { name: 'mv missing', method: 'POST', path: '/api/v1/fs/mv', body: { from_uri: `${R}/nope.md`, to_uri: `${R}/nope2.md` } },
  { name: 'rm file', method: 'DELETE', path: `/api/v1/fs?uri=${q(`${R}/d.md`)}` },
  { name: 'rm non-empty dir', method: 'DELETE', path: `/api/v1/fs?uri=${q(`${R}/deep`)}` },
  { name: 'rm scope root', method: 'DELETE', path: `/api/v1/fs?uri=${q('ctx://resources')}` },
  // search
  { name: 'find', method: 'POST', path: '/api/v1/search/find', body: { query: 'quokkas smiling on an island', target_uri: R, limit: 3 } },
  { name: 'find no query', method: 'POST', path: '/api/v1/search/find', body: { limit: 3 } },
  { name: 'find bad limit', method: 'POST', path: '/api/v1/search/find', body: { query: 'x', limit: -1 } },
  { name: 'search fast', method: 'POST', path: '/api/v1/search/search', body: { query: 'wombat burrows', mode: 'fast', target_uri: R, limit: 3 } },
  { name: 'grep', method: 'POST', path: '/api/v1/search/grep', body: { uri: R, pattern: 'wombat|quokka', case_insensitive: true } },
  { name: 'grep bad regex', method: 'POST', path: '/api/v1/search/grep', body: { uri: R, pattern: '(' } },
  { name: 'glob', method: 'POST', path: '/api/v1/search/glob', body: { uri: R, pattern: '**/*.md' } },
  // sessions
  { name: 'session create', method: 'POST', path: '/api/v1/sessions', body: { session_id: 'suite-s1' } },
  { name: 'session message', method: 'POST', path: '/api/v1/sessions/suite-s1/messages', body: { role: 'user', content: 'I like otters.' } },
  { name: 'session bad role', method: 'POST', path: '/api/v1/sessions/suite-s1/messages', body: { role: 'robot', content: 'x' } },
  { name: 'session get', method: 'GET', path: '/api/v1/sessions/suite-s1' },
  { name: 'session list', method: 'GET', path: '/api/v1/sessions' },
  { name: 'session missing', method: 'GET', path: '/api/v1/sessions/nope-session' },
  { name: 'session delete', method: 'DELETE', path: '/api/v1/sessions/suite-s1' },
  // resources
  { name: 'temp upload', method: 'POST', path: '/api/v1/resources/temp_upload', raw: { type: `multipart/form-data; boundary=${boundary}`, data: multipart }, keep: (r) => ({ temp: r.temp_file_id }) },
  { name: 'add resource', method: 'POST', path: '/api/v1/resources', body: (v: Record<string, string>) => ({ temp_file_id: v.temp, reason: 'suite', wait: true }) },
  { name: 'resource info', method: 'GET', path: `/api/v1/resources/info?uri=${q('ctx://resources/otters')}` },
  { name: 'add resource nothing', method: 'POST', path: '/api/v1/resources', body: {} },
  { name: 'add resource consumed upload', method: 'POST', path: '/api/v1/resources', body: (v: Record<string, string>) => ({ temp_file_id: v.temp }) },
  // the pipeline itself
  { name: 'no route', method: 'GET', path: '/api/v1/no/such/route' },
  { name: 'method not allowed', method: 'PUT', path: '/api/v1/content/write', body: {} },
  { name: 'no key', method: 'GET', path: `/api/v1/fs/ls?uri=${q(R)}`, key: 'none' },
  { name: 'wrong key', method: 'POST', path: '/api/v1/content/write', body: { uri: `${R}/z.md`, content: 'z' }, key: 'wrong' },
];

const ISO = /\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})/g;
const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g;
/** Ids the server draws at random (messages, uploads): equal only by chance on two servers. */
const DRAWN = /\b(msg|tmp)_[0-9a-f]{16,}\b/g;
/**
 * Fields that are a moment or a duration, different on every run whatever the node; and the queue
 * counters of a `wait` (`processed`: what the queue finished while the request waited, earlier
 * requests' background work included, which depends on timing, not on the node).
 */
const VOLATILE = new Set(['time', 'mtime', 'modTime', 'created_at', 'updated_at', 'createdAt', 'updatedAt', 'elapsed_ms', 'duration_ms', 'expires_at', 'last_updated', 'processed']);
/**
 * The compact `queue_status` (add resource, skills) counts the same thing as `processed`, under the
 * reference's name `completed`: the messages settled while the import task waited, counted from
 * when it starts listening — after its writes, so a message the consumer finished before that is
 * not counted (nor earlier steps' ancestor refreshes that settled before). One run saw 10 through the
 * cluster against 11 on the single node; the single node alike varies with how fast its consumer is.
 */
const VOLATILE_IN: Record<string, Set<string>> = { queue_status: new Set(['completed']) };

function normalize(v: unknown, volatile = VOLATILE): unknown {
  if (typeof v === 'string') return v.replace(ISO, '<time>').replace(UUID, '<uuid>').replace(DRAWN, '$1_<id>');
  if (Array.isArray(v)) return v.map((x) => normalize(x));
  if (v && typeof v === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) out[k] = volatile.has(k) ? '<volatile>' : normalize(x, VOLATILE_IN[k] ? new Set([...VOLATILE, ...VOLATILE_IN[k]!]) : VOLATILE);
    return out;
  }
  return v;
}

interface Answer {
  status: number;
  body: any;
  /** The error envelope as sent, `time` aside. */
  errorBytes?: string;
}

async function send(base: string, key: string, step: Step, vars: Record<string, string>, token?: string): Promise<{ answer: Answer; token?: string }> {
  const headers: Record<string, string> = {};
  if (step.key !== 'none') headers['x-api-key'] = step.key === 'wrong' ? 'wrong-key-0123456789abcdef' : key;
  if (token) headers['x-ctx-consistency-token'] = token;
  let body: BodyInit | undefined;
  if (step.raw) {
    headers['content-type'] = step.raw.type;
    body = new Uint8Array(step.raw.data);
  } else if (step.body !== undefined) {
    headers['content-type'] = 'application/json';
    body = JSON.stringify(typeof step.body === 'function' ? (step.body as (v: Record<string, string>) => unknown)(vars) : step.body);
  }
  const path = typeof step.path === 'function' ? step.path(vars) : step.path;
  const res = await fetch(`${base}${path}`, { method: step.method, headers, body });
  const text = await res.text();
  let parsed: any = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    // not JSON: compared as text
  }
  const answer: Answer = { status: res.status, body: parsed };
  if (parsed && typeof parsed === 'object' && parsed.status === 'error') answer.errorBytes = text.replace(/,"time":[0-9.e+-]+/, '').replace(DRAWN, '$1_<id>');
  if (step.keep && parsed?.result) Object.assign(vars, step.keep(parsed.result));
  return { answer, token: res.headers.get('x-ctx-consistency-token') ?? undefined };
}

describe.skipIf(!natsServerInstalled())('the HTTP API through a cluster node answers as a single node does', () => {
  const dir = tempDir('ctx-cluster-suite-');
  let file: ClusterFile;
  let single: TestApp;
  let singleUrl: string;
  // The product's default heartbeat (1 s: a 3 s lease), not the failover tests' 500 ms: this suite
  // sends each request once and needs the leader it found to stay. With a 1.5 s lease, two CPU
  // burners on this 2-core machine (load 11) starved the leader's renewal past it ("not renewed
  // within the lease time"): a correct step-down, whose 503 mid-suite was the failure — failover
  // itself is replicated-writes' subject.
  localClusterForFile(dir, 1000, (f) => (file = f));
  beforeAll(async () => {
    single = await startTestApp();
    singleUrl = await single.listen();
  }, 60_000);
  afterAll(() => single?.close());

  it(`${STEPS.length} requests: same statuses, same results, byte-identical error envelopes`, async () => {
    // The node that does not lead the root account's shard: every write is forwarded.
    const shard = shardOf('default', 64);
    const status = await pollUntil(async () => {
      const r = await fetch(`${file.nodes[0]!.url}/api/v1/system/status`, { headers: { 'x-api-key': file.root_api_key } });
      const s = ((await r.json()) as { result: { cluster: { shards: { leader?: string; replicas: string[] }[] } } }).result.cluster.shards[shard]!;
      // Its preferred replica: a lease another node took while that one was not yet seen is handed
      // back to it a few heartbeats later, and a request caught by the hand-back answers a 503.
      return s.leader && s.leader === s.replicas[0] && s;
    }, { what: 'the preferred replica leading the default account shard', timeoutMs: 30_000, intervalMs: 100 });
    const b = file.nodes.find((n) => n.id !== status.leader)!;
    const diffs: string[] = [];
    const varsSingle: Record<string, string> = {};
    const varsCluster: Record<string, string> = {};
    let token: string | undefined;
    let forwarded = 0;
    for (const step of STEPS) {
      const one = await send(singleUrl, ROOT_KEY, step, varsSingle);
      const many = await send(b.url, file.root_api_key, step, varsCluster, token);
      if (many.token) {
        token = many.token;
        forwarded++;
      }
      const a = one.answer;
      const c = many.answer;
      if (a.status !== c.status) diffs.push(`${step.name}: status ${a.status} on one node, ${c.status} through the cluster: ${JSON.stringify(c.body).slice(0, 300)}`);
      else if (a.errorBytes !== undefined || c.errorBytes !== undefined) {
        if (a.errorBytes !== c.errorBytes) diffs.push(`${step.name}: error envelopes differ:\n  one node: ${a.errorBytes}\n  cluster:  ${c.errorBytes}`);
      } else {
        const x = JSON.stringify(normalize(a.body));
        const y = JSON.stringify(normalize(c.body));
        if (x !== y) diffs.push(`${step.name}: results differ:\n  one node: ${x.slice(0, 600)}\n  cluster:  ${y.slice(0, 600)}`);
      }
    }
    expect(diffs, diffs.join('\n')).toEqual([]);
    // The writes went through the leader's replicated log (its token came back through the hop).
    expect(forwarded).toBeGreaterThanOrEqual(10);
  }, 120_000);
});
