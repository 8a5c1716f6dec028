import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { builtinPlugins } from '../../plugins/index.js';
import { createSessionsPlugin } from '../../plugins/sessions/index.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { client } from './helpers.js';
import { pollUntil } from '../helpers/poll.js';

let t: TestApp;
let c: ReturnType<typeof client>;
beforeAll(async () => {
  // A fast idle scan, so idle timeouts of a second can be observed.
  const plugins = builtinPlugins.map((p) => (p.name === 'sessions' ? createSessionsPlugin({ idleScanMs: 50 }) : p));
  t = await startTestApp({ plugins });
  const acme = await t.account('acme', ['alice']);
  c = client(t, acme.users.alice!);
});
afterAll(() => t.close());

const waitFor = (fn: () => Promise<boolean>) => pollUntil(fn, { what: 'the auto commit', intervalMs: 25 });

describe('auto commit after a message write', () => {
  it('commits when the live message count is strictly greater than the threshold, keeping keep_recent_count', async () => {
    await c.post('/api/v1/sessions', { session_id: 'count', auto_commit_policy: { message_count_threshold: 3, keep_recent_count: 1, idle_timeout_seconds: 604800 } });
    for (let i = 0; i < 3; i++) await c.say('count', 'user', `m${i}`);
    expect((await c.info('count')).commit_count).toBe(0);
    const ack = await c.say('count', 'user', 'm3');
    expect(ack.message_count).toBe(1);
    const info = await c.info('count');
    expect(info).toMatchObject({ commit_count: 1, message_count: 1, total_message_count: 4 });
    // Until phase 2 is done the archived messages are still active; then only the kept one is.
    await waitFor(async () => (await c.context('count')).stats.totalArchives === 1);
    expect((await c.context('count')).messages.map((m: any) => m.parts[0].text)).toEqual(['m3']);
  });

  it('pending_token_threshold triggers too', async () => {
    await c.post('/api/v1/sessions', { session_id: 'tokens', auto_commit_policy: { pending_token_threshold: 50, idle_timeout_seconds: 604800 } });
    await c.say('tokens', 'user', 'short');
    expect((await c.info('tokens')).commit_count).toBe(0);
    await c.say('tokens', 'user', 'word '.repeat(60));
    expect(await c.info('tokens')).toMatchObject({ commit_count: 1, message_count: 0, pending_tokens: 0 });
  });

  it('min_commit_interval_seconds spaces automatic commits; a manual commit is not limited', async () => {
    await c.post('/api/v1/sessions', { session_id: 'interval', auto_commit_policy: { message_count_threshold: 1, min_commit_interval_seconds: 3600, idle_timeout_seconds: 604800 } });
    await c.say('interval', 'user', 'a');
    await c.say('interval', 'user', 'b');
    expect((await c.info('interval')).commit_count).toBe(1);
    for (const x of ['c', 'd', 'e']) await c.say('interval', 'user', x);
    expect(await c.info('interval')).toMatchObject({ commit_count: 1, message_count: 3 });
    expect((await c.commit('interval')).archived).toBe(true);
    expect((await c.info('interval')).commit_count).toBe(2);
  });

  it('no policy, or a policy set to null, never commits automatically', async () => {
    await c.post('/api/v1/sessions', { session_id: 'off', auto_commit_policy: { message_count_threshold: 1 } });
    const patched = await c.patch('/api/v1/sessions/off/config', { auto_commit_policy: null });
    expect(patched.status).toBe(200);
    for (const x of ['a', 'b', 'c']) await c.say('off', 'user', x);
    expect((await c.info('off')).commit_count).toBe(0);
  });
});

describe('idle scheduler', () => {
  it('commits an idle session with uncommitted messages, the whole backlog', async () => {
    await c.post('/api/v1/sessions', { session_id: 'idle', auto_commit_policy: { idle_timeout_seconds: 1, keep_recent_count: 5 } });
    await c.say('idle', 'user', 'I prefer green tea.');
    await c.say('idle', 'user', 'bye');
    expect((await c.info('idle')).commit_count).toBe(0);
    await waitFor(async () => (await c.info('idle')).commit_count === 1);
    expect((await c.info('idle')).message_count).toBe(0);
    await waitFor(async () => (await c.context('idle')).stats.totalArchives === 1);
  });

  it('survives a restart', async () => {
    await c.post('/api/v1/sessions', { session_id: 'idle-restart', auto_commit_policy: { idle_timeout_seconds: 1 } });
    await c.say('idle-restart', 'user', 'hello');
    await t.restart();
    await waitFor(async () => (await c.info('idle-restart')).commit_count === 1);
  });

  it('leaves sessions without a policy alone', async () => {
    await c.say('idle-none', 'user', 'hello');
    await new Promise((r) => setTimeout(r, 1300));
    expect((await c.info('idle-none')).commit_count).toBe(0);
  });

  it('drops its index of an account that is deleted', async () => {
    const other = await t.account('tmp', ['bob']);
    const b = client(t, other.users.bob!);
    await b.post('/api/v1/sessions', { session_id: 's', auto_commit_policy: { idle_timeout_seconds: 604800 } });
    await b.say('s', 'user', 'x');
    const kv = t.app.kv.sub('p:sessions');
    const keys = async () => {
      const out: string[] = [];
      for await (const [k] of kv.scanPrefix('idle\x00tmp\x00')) out.push(k);
      return out;
    };
    expect(await keys()).toHaveLength(1);
    const del = await t.req({ method: 'DELETE', url: '/api/v1/admin/accounts/tmp', headers: t.root });
    expect(del.status).toBe(200);
    await waitFor(async () => (await keys()).length === 0);
  });
});
