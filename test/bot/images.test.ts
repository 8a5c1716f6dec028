/** Chat image checks (spec: at most four; https validated not fetched; inline JPEG/PNG/GIF/WebP ≤ 10 MiB with signatures). */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_IMAGE_BYTES, checkImages } from '../../plugins/bot/images.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { startFakeLlm, type FakeLlm } from './fake-llm.js';

const img = (url: string) => ({ type: 'image_url' as const, image_url: { url } });
const data = (mime: string, bytes: Buffer) => `data:${mime};base64,${bytes.toString('base64')}`;
const PNG = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.alloc(16)]);
const JPEG = Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0]), Buffer.alloc(16)]);
const GIF = Buffer.concat([Buffer.from('GIF89a'), Buffer.alloc(16)]);
const WEBP = Buffer.concat([Buffer.from('RIFF'), Buffer.alloc(4), Buffer.from('WEBPVP8 '), Buffer.alloc(8)]);
const SVG = Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>');

const reason = (url: string) => {
  try {
    checkImages([img(url)]);
    return 'ok';
  } catch (err) {
    return (err as Error).message;
  }
};

describe('checkImages', () => {
  it('accepts https URLs and the four inline types with matching bytes', () => {
    expect(reason('https://example.com/a.png?x=1')).toBe('ok');
    expect(reason(data('image/png', PNG))).toBe('ok');
    expect(reason(data('image/jpeg', JPEG))).toBe('ok');
    expect(reason(data('image/jpg', JPEG))).toBe('ok');
    expect(reason(data('image/gif', GIF))).toBe('ok');
    expect(reason(data('image/webp', WEBP))).toBe('ok');
  });

  it.each([
    ['http://example.com/a.png', /https/],
    ['/etc/passwd', /local file paths/],
    ['./cat.png', /local file paths/],
    ['C:\\images\\cat.png', /https/],
    ['file:///etc/passwd', /https/],
    ['https://user:pw@example.com/a.png', /credentials/],
    [data('image/svg+xml', SVG), /SVG/],
    [`data:image/svg+xml;utf8,${SVG.toString()}`, /SVG/],
    [data('image/png', JPEG), /do not match/],
    [data('image/jpeg', SVG), /do not match/],
    [data('image/webp', Buffer.concat([Buffer.from('RIFF'), Buffer.alloc(12)])), /do not match/],
    [data('image/bmp', Buffer.from('BM0000')), /must be image\/jpeg/],
    [data('text/html', Buffer.from('<b>')), /must be image\/jpeg/],
    [`data:image/png,${PNG.toString('latin1')}`, /base64/],
    ['data:image/png;base64,***', /valid base64/],
    ['data:image/png;base64,', /empty/],
    ['data:image/png', /malformed/],
  ])('%s is refused', (url, why) => {
    expect(reason(url)).toMatch(why);
  });

  it('an inline image over 10 MiB decoded is refused; exactly 10 MiB passes', () => {
    const exact = Buffer.alloc(MAX_IMAGE_BYTES);
    PNG.copy(exact);
    expect(reason(data('image/png', exact))).toBe('ok');
    const over = Buffer.alloc(MAX_IMAGE_BYTES + 1);
    PNG.copy(over);
    expect(reason(data('image/png', over))).toMatch(/larger than/);
  });

  it('at most four images', () => {
    expect(() => checkImages(Array.from({ length: 5 }, () => img('https://a.b/c.png')))).toThrow(/at most 4/);
  });
});

describe('over the chat route', () => {
  let llm: FakeLlm;
  let t: TestApp;
  let alice: Record<string, string>;
  beforeAll(async () => {
    llm = await startFakeLlm();
    t = await startTestApp({ config: { botEnabled: true, llm: { baseUrl: llm.url } } });
    alice = (await t.account('acme', ['alice'])).users.alice!;
  });
  afterAll(async () => {
    await t?.close();
    await llm?.close();
  });

  it('five images → 400 naming images; four pass', async () => {
    const five = await t.req({ method: 'POST', url: '/bot/v1/chat', headers: alice, body: { images: Array.from({ length: 5 }, () => img('https://a.b/c.png')) } });
    expect(five.status).toBe(400);
    expect(five.json().error.details.field).toBe('images');
    llm.script.push({ text: 'four' });
    const four = await t.req({ method: 'POST', url: '/bot/v1/chat', headers: alice, body: { message: 'look', images: [img('https://a.b/1.png'), img(data('image/png', PNG)), img(data('image/gif', GIF)), img(data('image/webp', WEBP))] } });
    expect(four.status).toBe(200);
    const parts = llm.received.at(-1)!.messages.at(-1)!.content as Array<{ type: string }>;
    expect(parts.map((p) => p.type)).toEqual(['text', 'image_url', 'image_url', 'image_url', 'image_url']);
  });

  it.each([
    [data('image/svg+xml', SVG), 'images[0].image_url.url'],
    ['/home/alice/cat.png', 'images[0].image_url.url'],
    [data('image/jpeg', PNG), 'images[0].image_url.url'],
  ])('%s → 400 on chat and chat/stream, and the model is not called', async (url, field) => {
    const n = llm.received.length;
    for (const path of ['/bot/v1/chat', '/bot/v1/chat/stream']) {
      const r = await t.req({ method: 'POST', url: path, headers: alice, body: { images: [img(url)] } });
      expect(r.status).toBe(400);
      expect(r.json().error.details.field).toBe(field);
    }
    expect(llm.received.length).toBe(n);
  });

  it('a 10 MiB inline image is accepted within the route body limit', async () => {
    const big = Buffer.alloc(MAX_IMAGE_BYTES);
    JPEG.copy(big);
    llm.script.push({ text: 'big' });
    const r = await t.req({ method: 'POST', url: '/bot/v1/chat', headers: alice, body: { images: [img(data('image/jpeg', big))] } });
    expect(r.status).toBe(200);
  });
});
