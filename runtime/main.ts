/**
 * `npm start`: serve on the configured address. SIGTERM/SIGINT stop accepting connections, drain
 * in-flight requests and running tasks, run plugin onClose hooks in reverse order and close RocksDB.
 */
import { builtinPlugins } from '../plugins/index.js';
import { createApp } from './app.js';

async function main(): Promise<void> {
  // The composition root: the built-in plugins are trusted; extra ones come from the config.
  const app = await createApp({ plugins: builtinPlugins });
  await app.listen();
  if (app.config.startupTrace) app.log.info('start-up step', { step: 'listening', since_process_start_ms: Math.round(performance.now()) });
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    app.log.info('shutting down', { signal, in_flight: app.pipeline.inFlightCount });
    try {
      await app.close();
      app.log.info('stopped');
      process.exit(0);
    } catch (err) {
      app.log.error('shutdown failed', { error: err });
      process.exit(1);
    }
  };
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));
}

main().catch((err: Error) => {
  process.stderr.write(JSON.stringify({ level: 'error', time: new Date().toISOString(), msg: 'start-up failed', error: err.message, code: (err as { code?: string }).code }) + '\n');
  process.exit(1);
});
