import { describe, expect, it } from 'vitest';
import { grep, localEmbed, rows, SYNC_GREP_BYTES, textKernels } from '../../runtime/native.js';

const dot = (a: Float32Array, b: Float32Array) => {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i]! * b[i]!;
  return s;
};

describe('tokenizer', () => {
  it('splits words, identifiers and numbers', () => {
    expect(textKernels.tokenize('Parse the HTTPResponse in parse_http_response(), v2 costs 3.5')).toEqual([
      'parse', 'the', 'http', 'response', 'httpresponse', 'in', 'parse', 'http', 'response', 'parsehttpresponse', 'v2', 'costs', '3.5',
    ]);
    expect(textKernels.tokenize('Crème Brûlée')).toEqual(['creme', 'brulee']);
    expect(textKernels.tokenizeStemmed('indexing indexed indexes')).toEqual(['index', 'index', 'index']);
    expect(textKernels.normalize('  Ａ  Café\n')).toBe('a cafe');
  });
});

describe('local embedder', () => {
  it('is deterministic, L2-normalized and sized n × dim', async () => {
    const texts = ['The vector index lives under the data dir.', 'Rotate the API keys every 90 days.', ''];
    const a = localEmbed.embed(texts, 384);
    const b = await localEmbed.embedAsync(texts, 384);
    expect(a).toBeInstanceOf(Float32Array);
    expect(a.length).toBe(3 * 384);
    expect(Buffer.from(a.buffer, a.byteOffset, a.byteLength).equals(Buffer.from(b.buffer, b.byteOffset, b.byteLength))).toBe(true);
    const [r0, r1, r2] = rows(a, 384);
    expect(dot(r0!, r0!)).toBeCloseTo(1, 5);
    expect(dot(r1!, r1!)).toBeCloseTo(1, 5);
    expect(r2!.every((x) => x === 0)).toBe(true); // empty text → zero vector, scores 0 against anything
    // The same text alone or inside a batch gives the same bits.
    expect(Array.from(localEmbed.embed([texts[1]!], 384))).toEqual(Array.from(r1!));
  });

  it('ranks related texts above unrelated ones', () => {
    const [q, rel, unrel, code, ident] = rows(
      localEmbed.embed(
        [
          'how do I reset a forgotten password',
          'Password reset: the user requests a reset link by email and chooses a new password.',
          'Quarterly revenue grew 12% thanks to the new pricing plan.',
          'export function computeCosineSimilarity(a: Float32Array, b: Float32Array): number',
          'cosine similarity',
        ],
        384,
      ),
      384,
    );
    expect(dot(q!, rel!)).toBeGreaterThan(dot(q!, unrel!) + 0.15);
    expect(dot(ident!, code!)).toBeGreaterThan(dot(ident!, rel!) + 0.15);
    // Case and accents do not change the embedding at all.
    const [x, y] = rows(localEmbed.embed(['Café Menu', 'cafe menu'], 64), 64);
    expect(dot(x!, y!)).toBeCloseTo(1, 5);
  });

  it('reports its parameters and validates them', () => {
    const info = localEmbed.info();
    expect(info).toMatchObject({ dim: 384, version: 2, charMin: 3, charMax: 4 });
    expect(localEmbed.info(128, { charWeight: 0.25 })).toMatchObject({ dim: 128, charWeight: 0.25 });
    expect(() => localEmbed.embed(['x'], 0)).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT' }));
    expect(() => localEmbed.embed(['x'], 384, { charMin: 5, charMax: 2 })).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT' }));
    expect(localEmbed.embed(['x'], 384, { charWeight: 0 }).length).toBe(384);
  });
});

describe('grep', () => {
  const files = ['first line\nneedle here\nlast', Buffer.from('NEEDLE upper\r\nnothing'), 'no match'];

  it('returns line matches per buffer, sync and async alike', async () => {
    const sync = grep.search('needle', files);
    expect(sync).toEqual({ matches: [{ index: 0, line: 2, text: 'needle here' }], truncated: false });
    const ci = await grep.searchAsync('needle', files, { caseInsensitive: true });
    expect(ci.matches).toEqual([
      { index: 0, line: 2, text: 'needle here' },
      { index: 1, line: 1, text: 'NEEDLE upper' },
    ]);
  });

  it('bounds the matches and says so', async () => {
    const many = Array.from({ length: 50 }, (_, i) => `hit ${i}\nhit again`);
    const r = await grep.searchAsync('hit', many, { maxMatches: 7 });
    expect(r.matches).toHaveLength(7);
    expect(r.truncated).toBe(true);
    const per = grep.search('hit', many.slice(0, 3), { maxPerBuffer: 1 });
    expect(per.matches.map((m) => [m.index, m.line])).toEqual([[0, 1], [1, 1], [2, 1]]);
  });

  it('takes the threaded path for large inputs with the same answers', async () => {
    const big = Array.from({ length: 300 }, (_, i) => `${'filler line\n'.repeat(100)}match ${i}\n`);
    expect(big.reduce((s, b) => s + b.length, 0)).toBeGreaterThan(SYNC_GREP_BYTES);
    const a = await grep.searchAsync('^match \\d+$', big, { maxMatches: 10_000 });
    expect(a.matches).toHaveLength(300);
    expect(a.matches[299]).toEqual({ index: 299, line: 101, text: 'match 299' });
    expect(a).toEqual(grep.search('^match \\d+$', big, { maxMatches: 10_000 }));
    await expect(grep.searchAsync('(', big)).rejects.toMatchObject({ code: 'INVALID_REGEX', message: expect.stringMatching(/unclosed group/) });
  });

  it('rejects invalid patterns with INVALID_REGEX', async () => {
    expect(() => grep.search('(open', files)).toThrow(expect.objectContaining({ code: 'INVALID_REGEX' }));
    await expect(grep.searchAsync('[z-a]', files)).rejects.toMatchObject({ code: 'INVALID_REGEX' });
    // Backreferences need backtracking; the linear-time engine refuses them.
    expect(() => grep.search('(a)\\1', files)).toThrow(/backreference|not supported/i);
  });

  it('handles a catastrophic-backtracking pattern without stalling', () => {
    const evil = 'a'.repeat(50_000) + '!';
    expect(grep.search('^(a+)+$', [evil]).matches).toEqual([]);
  });
});
