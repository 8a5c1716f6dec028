/** A real ctx server (RocksDB in a temp dir, uWS on a free port) with a fake LLM behind the bot, for client tests. */
import { startTestApp, type TestApp } from '../../../test/helpers/app.js';
import { startFakeLlm, type FakeLlm } from '../../../test/bot/fake-llm.js';
import type { UwsServer } from '../../../runtime/adapters/uws/server.js';

export { ROOT_KEY } from '../../../test/helpers/app.js';

export interface LiveServer {
  t: TestApp;
  url: string;
  llm: FakeLlm;
  /** An account `acme` with user `alice`: her key. */
  aliceKey: string;
  adminKey: string;
  close(): Promise<void>;
}

export async function startLiveServer(): Promise<LiveServer> {
  const llm = await startFakeLlm();
  const t = await startTestApp({ config: { botEnabled: true, llm: { baseUrl: llm.url } } });
  const acme = await t.account('acme', ['alice']);
  const server: UwsServer = await t.app.listen(0, '127.0.0.1');
  return {
    t,
    llm,
    url: `http://127.0.0.1:${server.port}`,
    aliceKey: acme.users.alice!['x-api-key']!,
    adminKey: acme.admin['x-api-key']!,
    async close() {
      await t.close();
      await llm.close();
    },
  };
}
