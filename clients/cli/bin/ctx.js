#!/usr/bin/env node
// `ctx --version` answers from package.json alone: nothing else is loaded for it.
const args = process.argv.slice(2);
if (args.length === 1 && (args[0] === '--version' || args[0] === '-V')) {
  const { readFileSync } = await import('node:fs');
  process.stdout.write(JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')).version + '\n');
} else {
  const { main } = await import('../dist/main.js');
  await main(process.argv);
  // fetch keeps idle keep-alive sockets open for seconds; a finished command exits now, once
  // what it printed is flushed.
  process.stdout.write('', () => process.stderr.write('', () => process.exit()));
}
