/**
 * `npm run cluster -- up --nodes 3 --dir DIR` / `add --dir DIR` (one more node) / `down --dir DIR`:
 * a local cluster on loopback (runtime/cluster/launcher.ts, docs/scale-out.md).
 */
import { add, down, up } from '../runtime/cluster/launcher.js';

function arg(name: string): string | undefined {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : undefined;
}

async function main(): Promise<void> {
  const cmd = process.argv[2];
  const dir = arg('dir');
  if ((cmd !== 'up' && cmd !== 'down' && cmd !== 'add') || !dir) {
    process.stderr.write('usage: npm run cluster -- up --nodes N --dir DIR | add --dir DIR | down --dir DIR\n');
    process.exit(2);
  }
  if (cmd === 'up') {
    const nodes = Number(arg('nodes') ?? 3);
    if (!Number.isInteger(nodes) || nodes < 1 || nodes > 32) throw new Error('--nodes must be an integer from 1 to 32');
    const file = await up({ nodes, dir });
    process.stdout.write(JSON.stringify(file, null, 2) + '\n');
  } else if (cmd === 'add') {
    const file = await add({ dir });
    process.stdout.write(JSON.stringify(file, null, 2) + '\n');
  } else {
    const { stopped } = await down({ dir });
    process.stdout.write(`stopped ${stopped} processes\n`);
  }
}

main().catch((err: Error) => {
  process.stderr.write(`${err.message}\n`);
  process.exit(1);
});
