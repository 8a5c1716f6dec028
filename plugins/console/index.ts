/**
 * Console plugin: the web console (a Preact single-page app built from app/ by build.ts) at
 * `/console`. It serves static files and whoami (the caller's identity); everything the console shows comes
 * from the public API with the signed-in user's own key, so it never sees more than that user may.
 */
import { HOST_VERSION, definePlugin, notFound, resultObject, s } from 'ctx/plugin';
import { ConsoleAssets } from './assets.js';
import { defaultOutDir } from './build.js';

export default definePlugin({
  name: 'console',
  version: HOST_VERSION,
  dependsOn: ['system'],
  privileges: [],
  setup(host) {
    const assets = new ConsoleAssets(defaultOutDir());
    const html = { contentType: 'text/html' };

    host.route({
      method: 'GET',
      path: '/console',
      auth: 'none',
      summary: 'the web console (single-page app; sign in with an API key)',
      reply: html,
      handler: () => assets.index(host.authMode === 'dev'),
    });

    host.route({
      method: 'GET',
      path: '/console/whoami',
      summary: "the caller's identity: account, user and role (what the console shows and which pages it offers)",
      response: resultObject({ account_id: s.string(), user_id: s.string(), role: s.string() }),
      handler: (ctx) => ({ account_id: ctx.identity.accountId, user_id: ctx.identity.userId, role: ctx.identity.role }),
    });

    host.route({
      method: 'GET',
      path: '/console/{path*}',
      auth: 'none',
      summary: "the console's hashed assets (immutable); any other path without an extension is the app",
      reply: { contentType: 'application/octet-stream' },
      errors: ['NOT_FOUND'],
      async handler(ctx) {
        const p = ctx.params.path ?? '';
        if (p.startsWith('assets/') && !p.slice(7).includes('/')) {
          const reply = await assets.asset(p.slice(7), ctx.req.headers['accept-encoding']);
          if (reply) return reply;
        } else if (!p.includes('.')) {
          return assets.index(host.authMode === 'dev');
        }
        throw notFound(`no console file ${JSON.stringify(p)}`, { resource: `/console/${p}` });
      },
    });
  },
});
