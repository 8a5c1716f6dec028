import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { makeZip, upload } from '../skills/zips.js';
import { png } from './documents.js';

let t: TestApp;
let alice: Record<string, string>;
const add = (body: unknown) => t.req({ method: 'POST', url: '/api/v1/resources', headers: alice, body });
const get = (url: string) => t.req({ method: 'GET', url, headers: alice });

function wav(seconds: number, rate = 8000): Buffer {
  const data = Buffer.alloc(seconds * rate * 2);
  const h = Buffer.alloc(44);
  h.write('RIFF', 0, 'latin1');
  h.writeUInt32LE(36 + data.length, 4);
  h.write('WAVEfmt ', 8, 'latin1');
  h.writeUInt32LE(16, 16);
  h.writeUInt16LE(1, 20);
  h.writeUInt16LE(1, 22);
  h.writeUInt32LE(rate, 24);
  h.writeUInt32LE(rate * 2, 28);
  h.writeUInt16LE(2, 32);
  h.writeUInt16LE(16, 34);
  h.write('data', 36, 'latin1');
  h.writeUInt32LE(data.length, 40);
  return Buffer.concat([h, data]);
}

beforeAll(async () => {
  t = await startTestApp();
  alice = (await t.account('acme', ['alice'])).users.alice!;
});
afterAll(() => t.close());

describe('images and audio are kept as media with their metadata', () => {
  it('a PNG goes to ctx://resources/images/{name}: bytes unchanged, a description beside it, metadata on the node', async () => {
    const bytes = png(100, 60);
    const res = await add({ temp_file_id: await upload(t, alice, bytes, 'chart.png'), wait: true });
    expect(res.status, res.text).toBe(200);
    expect(res.json().result.root_uri).toBe('ctx://resources/images/chart');
    const dl = await get('/api/v1/content/download?uri=ctx://resources/images/chart/chart.png');
    expect(Buffer.compare(dl.body as Buffer, bytes)).toBe(0);
    const desc = (await get('/api/v1/content/read?uri=ctx://resources/images/chart/chart.png.md')).json().result;
    expect(desc).toContain('Image, PNG (image/png)');
    expect(desc).toContain('100 × 60 pixels');
    const info = (await get('/api/v1/resources/info?uri=ctx://resources/images/chart')).json().result;
    expect(info.media).toMatchObject({ kind: 'image', format: 'png', width: 100, height: 60 });
  });

  it('a WAV goes to ctx://resources/audio/{name} with its duration, channels and rate', async () => {
    const res = await add({ temp_file_id: await upload(t, alice, wav(2), 'call.wav'), wait: true });
    expect(res.status, res.text).toBe(200);
    expect(res.json().result.root_uri).toBe('ctx://resources/audio/call');
    const desc = (await get('/api/v1/content/read?uri=ctx://resources/audio/call/call.wav.md')).json().result;
    expect(desc).toContain('2 s, 1 channel, 8000 Hz');
  });

  it('an explicit target wins over the media folder; media inside a zipped tree are kept', async () => {
    const to = await add({ temp_file_id: await upload(t, alice, png(1, 1), 'dot.png'), to: 'ctx://resources/art/dot', wait: true });
    expect(to.json().result.root_uri).toBe('ctx://resources/art/dot');
    const zip = await add({ temp_file_id: await upload(t, alice, makeZip([{ name: 'doc.md', data: '# doc\n' }, { name: 'img/logo.png', data: png(16, 16) }]), 'bundle.zip'), wait: true });
    expect(zip.status).toBe(200);
    expect(zip.json().result.files).toBe(2);
  });

  it('refuses bytes that are not what the name says, and a .zip that is not a zip', async () => {
    const fake = await add({ temp_file_id: await upload(t, alice, 'just text', 'fake.png'), wait: true });
    expect(fake.status).toBe(400);
    expect(fake.json().error.message).toMatch(/not a valid PNG file/);
    const notZip = await add({ temp_file_id: await upload(t, alice, 'this is not a zip', 'broken.zip'), wait: true });
    expect(notZip.status).toBe(400);
    expect(notZip.json().error.message).toMatch(/named \.zip but is not a zip archive/);
  });
});
