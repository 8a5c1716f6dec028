import path from 'node:path';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  // A plugin imports the SDK as `ctx/plugin` (package.json exports, built to dist/); tests run the
  // sources, so the same specifier must reach the same module instance the app uses.
  resolve: {
    alias: {
      'ctx/plugin': path.resolve('runtime/sdk/index.ts'),
      // The SDK's tests run its sources; the CLI's run its built dist as child processes.
      'ctx-client/node': path.resolve('clients/typescript/src/node/index.ts'),
      'ctx-client': path.resolve('clients/typescript/src/index.ts'),
    },
  },
  test: {
    include: ['test/**/*.test.ts', 'clients/*/test/**/*.test.ts'],
    // Native add-ons (uWS, RocksDB, core-native) are safest in child processes, not worker threads.
    pool: 'forks',
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
