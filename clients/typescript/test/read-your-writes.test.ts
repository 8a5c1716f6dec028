/**
 * The client's consistency tokens (ClientOptions.readYourWrites): what it keeps of the
 * `X-Ctx-Consistency-Token` responses carry and what it sends back. Pure header bookkeeping, driven
 * through the public `fetch` option; test/cluster/follower-reads.test.ts runs it against a real
 * cluster, where a write through one node is read back through the others.
 */
import { describe, expect, it } from 'vitest';
import { CONSISTENCY_TOKEN_HEADER, CtxClient, type FetchInit, type HttpResponse } from 'ctx-client';

/** A fetch answering each request with the next scripted token (or none), recording what was sent. */
function scripted(tokens: Array<string | undefined>, status = 200) {
  const sent: Array<string | undefined> = [];
  const fetch = async (_url: string, init: FetchInit): Promise<HttpResponse> => {
    sent.push((init.headers as Record<string, string>)[CONSISTENCY_TOKEN_HEADER]);
    const token = tokens.shift();
    const body = status === 200 ? { status: 'ok', result: {} } : { status: 'error', error: { code: 'INTERNAL', message: 'no' } };
    return {
      status,
      statusText: '',
      ok: status < 300,
      headers: { get: (n: string) => (n.toLowerCase() === CONSISTENCY_TOKEN_HEADER ? (token ?? null) : n.toLowerCase() === 'content-type' ? 'application/json' : null) },
      body: null,
      text: async () => JSON.stringify(body),
      json: async () => body,
    };
  };
  return { fetch, sent };
}

const stat = (c: CtxClient, headers?: Record<string, string>) => c.fs.stat({ uri: 'ctx://resources/a.md' }, headers ? { headers } : undefined);

describe('read your writes (consistency tokens)', () => {
  it('sends nothing until a response carries a token, then the newest sequence of each shard', async () => {
    const { fetch, sent } = scripted([undefined, '3:10', '3:8', 'sys:4', '3:12']);
    const c = new CtxClient({ fetch });
    for (let i = 0; i < 6; i++) await stat(c);
    expect(sent).toEqual([undefined, undefined, '3:10', '3:10', '3:10,sys:4', 'sys:4,3:12']);
    expect(c.consistencyToken()).toBe('sys:4,3:12');
  });

  it("a caller's own token header stands as given, whatever its case", async () => {
    const { fetch, sent } = scripted(['5:100']);
    const c = new CtxClient({ fetch });
    await stat(c);
    await stat(c, { 'X-Ctx-Consistency-Token': '5:1' });
    expect(sent).toEqual([undefined, undefined]);
    await stat(c);
    expect(sent[2]).toBe('5:100');
  });

  it('readYourWrites: false sends none and keeps none', async () => {
    const { fetch, sent } = scripted(['3:10', '3:11']);
    const c = new CtxClient({ fetch, readYourWrites: false });
    for (let i = 0; i < 3; i++) await stat(c);
    expect(sent).toEqual([undefined, undefined, undefined]);
    expect(c.consistencyToken()).toBeUndefined();
  });

  it('starts from a given token; malformed entries are ignored; failed responses teach nothing', async () => {
    const seeded = scripted([]);
    const c = new CtxClient({ fetch: seeded.fetch, consistencyToken: ' 7:3 , bad, 1:x, :4, sys:2' });
    await stat(c);
    expect(seeded.sent).toEqual(['7:3,sys:2']);

    const failing = scripted(['9:9'], 500);
    const d = new CtxClient({ fetch: failing.fetch, retry: { retries: 0 } });
    await expect(stat(d)).rejects.toThrow();
    expect(d.consistencyToken()).toBeUndefined();
  });

  it('keeps the 16 most recently advanced shards', async () => {
    const { fetch, sent } = scripted(Array.from({ length: 20 }, (_, i) => `${i}:${i + 1}`));
    const c = new CtxClient({ fetch });
    for (let i = 0; i < 21; i++) await stat(c);
    const last = sent.at(-1)!.split(',');
    expect(last).toHaveLength(16);
    expect(last[0]).toBe('4:5');
    expect(last.at(-1)).toBe('19:20');
  });
});
