/** MCP depends on no plugin: without one, its tools answer NOT_FOUND and the rest work. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { builtinPlugins } from '../../plugins/index.js';
import { connect, errorCode, ok, startMcpServer, type McpServerUnderTest } from './helpers.js';

let srv: McpServerUnderTest;
beforeAll(async () => {
  srv = await startMcpServer({ plugins: builtinPlugins.filter((p) => p.name !== 'code-nav') });
}, 60_000);
afterAll(() => srv?.close());

describe('a deployment without code-nav', () => {
  it('answers the code tools with NOT_FOUND naming the missing route, and the others as usual', async () => {
    const c = await connect(srv.base, srv.t.root);
    expect(await errorCode(c, 'code_outline', { uri: 'ctx://resources/a.ts' })).toBe('NOT_FOUND');
    expect((await ok(c, 'health')).structuredContent).toMatchObject({ healthy: true });
    await c.close();
  });
});
