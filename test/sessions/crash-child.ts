/**
 * Child process of crash.test.ts: runs the whole app and appends session messages over its HTTP
 * pipeline as fast as it can (one writer also commits every 25 messages), printing one line per
 * ACKNOWLEDGED request, until the parent kills it with SIGKILL.
 *
 *   node --import tsx test/sessions/crash-child.ts <dir> <root key>
 */
import { createApp } from '../../runtime/app.js';
import { builtinPlugins } from '../../plugins/index.js';

const [dir, rootKey] = process.argv.slice(2);
const app = await createApp({ env: {}, plugins: builtinPlugins, config: { dataDir: dir!, rootApiKey: rootKey!, authMode: 'api_key', logLevel: 'silent', accessLog: false } });
const acct = await app.inject({ method: 'POST', url: '/api/v1/admin/accounts', headers: { 'x-api-key': rootKey! }, body: { account_id: 'acme', admin_user_id: 'admin' } });
const headers = { 'x-api-key': acct.json().result.user_key as string };
process.stdout.write('ready\n');
await Promise.all(
  Array.from({ length: 8 }, async (_, w) => {
    // Writers 0-5 own a session each; 6 and 7 share one, so appends to one session interleave.
    const session = w >= 6 ? 'shared' : `w${w}`;
    for (let n = 0; n < 1_000_000; n++) {
      const text = `w${w}-${n}`;
      const res = await app.inject({ method: 'POST', url: `/api/v1/sessions/${session}/messages`, headers, body: { role: 'user', content: text } });
      if (res.status !== 200) throw new Error(res.text);
      process.stdout.write(`ack ${session} ${text}\n`);
      if (w === 0 && n % 25 === 24) {
        const c = await app.inject({ method: 'POST', url: `/api/v1/sessions/${session}/commit`, headers, body: {} });
        if (c.status !== 200) throw new Error(c.text);
        process.stdout.write(`commit ${session} ${c.json().result.archive_uri}\n`);
      }
    }
  }),
);
