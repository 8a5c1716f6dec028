import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { centralRecords, makeZip, upload, type Entry } from './zips.js';

let t: TestApp;
let alice: Record<string, string>;

beforeAll(async () => {
  t = await startTestApp();
  alice = (await t.account('acme', ['alice'])).users.alice!;
});
afterAll(() => t.close());

const skillMd = (name: string) => ({ name: 'SKILL.md', data: `---\nname: ${name}\ndescription: zip test\n---\n# ${name}\n` });

/** Uploads the zip, adds it, and checks that nothing of the skill was written. */
async function rejected(name: string, zip: Buffer, message: RegExp) {
  const id = await upload(t, alice, zip);
  const res = await t.req({ method: 'POST', url: '/api/v1/skills', headers: alice, body: { temp_file_id: id, wait: true } });
  expect(res.status, res.text).toBe(400);
  expect(res.json().error.code).toBe('INVALID_ARGUMENT');
  expect(res.json().error.details.field).toBe('temp_file_id');
  expect(res.json().error.message).toMatch(message);
  const stat = await t.req({ method: 'GET', url: `/api/v1/fs/stat?uri=${encodeURIComponent(`ctx://user/alice/skills/${name}`)}`, headers: alice });
  expect(stat.status).toBe(404);
}

const zipOf = (name: string, ...more: Entry[]) => makeZip([skillMd(name), ...more]);

describe('hostile skill zips are refused before anything is written', () => {
  it('zip slip and absolute paths', async () => {
    await rejected('slip1', zipOf('slip1', { name: '../evil.txt', data: 'x' }), /zip slip/);
    await rejected('slip2', zipOf('slip2', { name: 'scripts/../../evil.txt', data: 'x' }), /zip slip/);
    await rejected('abs1', zipOf('abs1', { name: '/etc/cron.d/evil', data: 'x' }), /absolute/);
    await rejected('abs2', zipOf('abs2', { name: 'C:/evil.txt', data: 'x' }), /absolute/);
    await rejected('bs', zipOf('bs', { name: 'a\\..\\..\\evil.txt', data: 'x' }), /backslash/);
    await rejected('dot', zipOf('dot', { name: './x.txt', data: 'x' }), /"\." segment/);
  });

  it('symbolic links and special files', async () => {
    await rejected('link', zipOf('link', { name: 'passwd', data: '/etc/passwd', mode: 0o120777 }), /symbolic link/);
    await rejected('fifo', zipOf('fifo', { name: 'pipe', data: '', mode: 0o010644 }), /special file/);
  });

  it('duplicate names, and a name used as both file and directory', async () => {
    await rejected('dup1', makeZip([skillMd('dup1'), skillMd('dup1')]), /duplicate entry name "SKILL.md"/);
    await rejected('dup2', zipOf('dup2', { name: 'a.txt', data: '1' }, { name: 'a.txt', data: '2' }), /duplicate/);
    await rejected('both', zipOf('both', { name: 'a', data: '1' }, { name: 'a/b', data: '2' }), /both a file and a directory/);
  });

  it('zip bombs: high ratios, entries inflating past their declared size, overlapping entries, too many entries', async () => {
    await rejected('ratio', zipOf('ratio', { name: 'zeros.bin', data: new Uint8Array(4 << 20) }), /zip bomb/);
    // A header that under-declares its entry: inflation stops at the declared size.
    const lying = zipOf('lying', { name: 'big.txt', data: 'y'.repeat(100_000) });
    const rec = centralRecords(lying)[1]!;
    lying.writeUInt32LE(100, rec + 24);
    await rejected('lying', lying, /inflates past its declared size/);
    // Two central records pointing at the same compressed data (the non-recursive bomb).
    const overlap = zipOf('overlap', { name: 'one.txt', data: 'one' }, { name: 'two.txt', data: 'two' });
    const [, r1, r2] = centralRecords(overlap);
    overlap.writeUInt32LE(overlap.readUInt32LE(r1! + 42), r2! + 42);
    await rejected('overlap', overlap, /share compressed data/);
    const many = makeZip([skillMd('many'), ...Array.from({ length: 512 }, (_, i) => ({ name: `f${i}.txt`, data: 'x' }))]);
    await rejected('many', many, /more than 512 entries/);
  });

  it('oversized files, encryption, corruption, a missing SKILL.md, not a zip', async () => {
    await rejected('huge', zipOf('huge', { name: 'huge.bin', data: new Uint8Array(9 << 20) }), /larger than 8388608 bytes/);
    const enc = zipOf('enc', { name: 'a.txt', data: 'a' });
    const er = centralRecords(enc)[1]!;
    enc.writeUInt16LE(enc.readUInt16LE(er + 8) | 1, er + 8);
    await rejected('enc', enc, /encrypted/);
    // A bad CRC in the LAST entry: SKILL.md, which came first and was fine, is not written either.
    const crc = zipOf('crc', { name: 'data.txt', data: 'payload', store: true });
    crc.writeUInt32LE(crc.readUInt32LE(centralRecords(crc)[1]! + 16) ^ 1, centralRecords(crc)[1]! + 16);
    await rejected('crc', crc, /CRC/);
    await rejected('none', makeZip([{ name: 'README.md', data: 'no skill here' }]), /no SKILL.md/);
    await rejected('two-tops', makeZip([{ name: 'a/SKILL.md', data: 'x' }, { name: 'b/x.txt', data: 'y' }]), /no SKILL.md/);
    await rejected('trunc', Buffer.concat([Buffer.from('PK\x03\x04'), Buffer.alloc(40)]), /end-of-central-directory/);
  });

  it('a refused new version leaves the stored skill exactly as it was', async () => {
    const good = zipOf('kept', { name: 'helper.py', data: 'print(1)' });
    expect((await t.req({ method: 'POST', url: '/api/v1/skills', headers: alice, body: { temp_file_id: await upload(t, alice, good), wait: true } })).status).toBe(200);
    const bad = makeZip([{ name: 'SKILL.md', data: '---\nname: kept\ndescription: v2\n---\n' }, { name: '../x', data: 'x' }]);
    const res = await t.req({ method: 'POST', url: '/api/v1/skills', headers: alice, body: { temp_file_id: await upload(t, alice, bad) } });
    expect(res.status).toBe(400);
    const got = (await t.req({ method: 'GET', url: '/api/v1/skills/kept?include_files=true', headers: alice })).json().result;
    expect(got.description).toBe('zip test');
    expect(got.files.map((f: { path: string }) => f.path)).toContain('helper.py');
  });

  it('a SKILL.md in a zip that does not parse is PROCESSING_ERROR, and writes nothing', async () => {
    const id = await upload(t, alice, makeZip([{ name: 'SKILL.md', data: 'no frontmatter' }, { name: 'x.txt', data: 'x' }]));
    const res = await t.req({ method: 'POST', url: '/api/v1/skills', headers: alice, body: { temp_file_id: id } });
    expect(res.status).toBe(422);
    expect(res.json().error.code).toBe('PROCESSING_ERROR');
  });
});
