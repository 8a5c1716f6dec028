/** `npm run cluster` error paths: each one a real child process of scripts/cluster.ts. */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { natsServerInstalled } from '../../runtime/cluster/launcher.js';
import { tempDir } from '../helpers/app.js';

const run = (args: string[], env: Record<string, string> = {}) => {
  const r = spawnSync(process.execPath, ['--import', 'tsx', 'scripts/cluster.ts', ...args], { encoding: 'utf8', env: { ...process.env, ...env }, timeout: 60_000 });
  return { code: r.status, out: r.stdout, err: r.stderr };
};

describe('npm run cluster', () => {
  it('prints the usage and exits 2 without a command or a --dir', () => {
    for (const args of [[], ['sideways', '--dir', '/tmp/x'], ['up']]) {
      const r = run(args);
      expect(r.code).toBe(2);
      expect(r.err).toContain('usage: npm run cluster -- up --nodes N --dir DIR | add --dir DIR | down --dir DIR');
    }
  });

  it('refuses a bad --nodes and a missing nats-server, naming the fix', () => {
    const dir = tempDir();
    const bad = run(['up', '--nodes', 'lots', '--dir', dir]);
    expect(bad.code).toBe(1);
    expect(bad.err).toContain('--nodes must be an integer from 1 to 32');
    const missing = run(['up', '--nodes', '1', '--dir', dir], { CTX_NATS_SERVER_BIN: `${dir}/no-such-nats-server` });
    expect(missing.code).toBe(1);
    expect(missing.err).toContain('run bash scripts/install-nats.sh');
    expect(fs.existsSync(`${dir}/cluster.json`)).toBe(false);
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('add to a directory without a cluster refuses, naming up', () => {
    const dir = tempDir();
    const r = run(['add', '--dir', dir]);
    expect(r.code).toBe(1);
    expect(r.err).toContain('cluster.json; run up first');
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('down of a directory without a cluster stops nothing and succeeds', () => {
    const dir = tempDir();
    const r = run(['down', '--dir', dir]);
    expect(r.code).toBe(0);
    expect(r.out).toContain('stopped 0 processes');
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it.skipIf(!natsServerInstalled())('up refuses a directory whose cluster is still recorded', () => {
    const dir = tempDir();
    const recorded = JSON.stringify({ nats: [], nodes: [], root_api_key: 'x'.repeat(32) });
    fs.writeFileSync(`${dir}/cluster.json`, recorded);
    const r = run(['up', '--nodes', '1', '--dir', dir]);
    expect(r.code).toBe(1);
    expect(r.err).toContain('cluster.json exists; run down first');
    expect(fs.readFileSync(`${dir}/cluster.json`, 'utf8')).toBe(recorded);
    fs.rmSync(dir, { recursive: true, force: true });
  });
});
