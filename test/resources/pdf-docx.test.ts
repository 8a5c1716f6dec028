import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { makeZip, upload } from '../skills/zips.js';
import { makeDocx, makePdf } from './documents.js';
import { startStatic, type TestServer } from './servers.js';

let t: TestApp;
let alice: Record<string, string>;
let web: TestServer;
const add = (body: unknown) => t.req({ method: 'POST', url: '/api/v1/resources', headers: alice, body });
const read = async (uri: string) => (await t.req({ method: 'GET', url: `/api/v1/content/read?uri=${encodeURIComponent(uri)}`, headers: alice })).json().result as string;

beforeAll(async () => {
  web = await startStatic({ '/papers/report': { type: 'application/pdf', body: makePdf(['Served over http about bandicoots'], 'Bandicoot report') } });
  t = await startTestApp({ config: { importAllowPrivate: true } });
  alice = (await t.account('acme', ['alice'])).users.alice!;
});
afterAll(async () => {
  await t.close();
  await web.close();
});

describe('PDF and DOCX become Markdown', () => {
  it('a PDF: its title as the heading, one section per page, text findable', async () => {
    const res = await add({ temp_file_id: await upload(t, alice, makePdf(['Quolls are carnivorous marsupials', 'They are mostly nocturnal'], 'Quoll notes'), 'quolls.pdf'), wait: true });
    expect(res.status, res.text).toBe(200);
    expect(res.json().result.root_uri).toBe('ctx://resources/quolls');
    const md = await read('ctx://resources/quolls/quolls.md');
    expect(md).toMatch(/^# Quoll notes\n\n## Page 1\n\nQuolls are carnivorous marsupials\n\n## Page 2\n\nThey are mostly nocturnal\n/);
    const find = await t.req({ method: 'POST', url: '/api/v1/search/find', headers: alice, body: { query: 'carnivorous marsupials', target_uri: 'ctx://resources/quolls' } });
    expect(find.json().result.resources.length).toBeGreaterThan(0);
  });

  it('a PDF over http, typed by Content-Type', async () => {
    const res = await add({ path: `${web.url}/papers/report`, wait: true });
    expect(res.status, res.text).toBe(200);
    expect(await read('ctx://resources/report/report.md')).toContain('bandicoots');
  });

  it('a DOCX: headings, paragraphs kept as Markdown', async () => {
    const docx = makeDocx([['Heading1', 'Possum guide'], ['', 'Possums live in trees.'], ['Heading2', 'Diet'], ['', 'Leaves and flowers.']]);
    const res = await add({ temp_file_id: await upload(t, alice, docx, 'possums.docx'), wait: true });
    expect(res.status, res.text).toBe(200);
    const md = await read('ctx://resources/possums/possums.md');
    expect(md).toMatch(/# Possum guide\n\nPossums live in trees\.\n\n## Diet\n\nLeaves and flowers\./);
  });

  it('PDF and DOCX inside a zipped tree are converted too', async () => {
    const zip = makeZip([{ name: 'readme.txt', data: 'top' }, { name: 'docs/a.pdf', data: makePdf(['tree pdf text']) }, { name: 'docs/b.docx', data: makeDocx([['', 'tree docx text']]) }]);
    const res = await add({ temp_file_id: await upload(t, alice, zip, 'mixed.zip'), wait: true });
    expect(res.status, res.text).toBe(200);
    expect(await read(`${res.json().result.root_uri}/docs/a.md`)).toContain('tree pdf text');
    expect(await read(`${res.json().result.root_uri}/docs/b.md`)).toContain('tree docx text');
  });

  it('refuses broken documents clearly', async () => {
    const fake = await add({ temp_file_id: await upload(t, alice, 'not a pdf', 'fake.pdf'), wait: true });
    expect(fake.status).toBe(400);
    expect(fake.json().error.message).toMatch(/not a valid PDF file/);
    const truncated = await add({ temp_file_id: await upload(t, alice, makePdf(['x']).subarray(0, 60), 'cut.pdf'), wait: true });
    expect(truncated.status).toBe(400);
    expect(truncated.json().error.message).toMatch(/PDF/);
    const docx = await add({ temp_file_id: await upload(t, alice, 'plain text', 'fake.docx'), wait: true });
    expect(docx.status).toBe(400);
    expect(docx.json().error.message).toMatch(/not a valid DOCX/);
    const slip = await add({ temp_file_id: await upload(t, alice, makeZip([{ name: '../word/document.xml', data: '<x/>' }]), 'slip.docx'), wait: true });
    expect(slip.status).toBe(400);
    expect(slip.json().error.message).toMatch(/not a valid DOCX: an entry path climbing out of the archive \(zip slip\)/);
  });
});
