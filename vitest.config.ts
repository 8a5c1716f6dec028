import path from 'node:path';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  // A plugin imports the SDK as `ctx/plugin` (package.json exports, built to dist/), an out-of-tree
  // one as `ctx-plugin-sdk`, which re-exports it; tests run the sources, so both must reach the same
  // module instance the app uses (in the built server, runtime/sdk/resolve-hook.ts does this).
  // The client SDK's tests run its sources; the CLI's run its built dist as child processes.
  resolve: {
    alias: [
      { find: /^ctx\/plugin$/, replacement: path.resolve('runtime/sdk/index.ts') },
      { find: /^ctx\/testing$/, replacement: path.resolve('runtime/sdk/testing.ts') },
      { find: /^ctx-client\/node$/, replacement: path.resolve('clients/typescript/src/node/index.ts') },
      { find: /^ctx-client$/, replacement: path.resolve('clients/typescript/src/index.ts') },
    ],
  },
  test: {
    include: ['test/**/*.test.ts', 'packages/*/test/**/*.test.ts', 'examples/plugin-*/test/**/*.test.ts', 'clients/*/test/**/*.test.ts'],
    // Native add-ons (uWS, RocksDB, core-native) are safest in child processes, not worker threads.
    pool: 'forks',
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
