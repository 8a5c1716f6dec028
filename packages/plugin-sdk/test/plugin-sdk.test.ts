/**
 * The SDK package is the host's SDK, not a copy: the same module instances (CtxError, Reply,
 * definePlugin, the harness), the same version as the host's plugin API, the entries the server's
 * resolve hook maps, and a publishable file list.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import * as sdk from 'ctx-plugin-sdk';
import * as testing from 'ctx-plugin-sdk/testing';
import * as host from '../../../runtime/sdk/index.js';
import * as hostTesting from '../../../runtime/sdk/testing.js';
import { sharedSdkSpecifiers } from '../../../runtime/plugin-loader.js';

const DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const manifest = JSON.parse(fs.readFileSync(path.join(DIR, 'package.json'), 'utf8')) as { name: string; version: string; exports: Record<string, unknown> };

describe('ctx-plugin-sdk', () => {
  it('re-exports the host SDK and harness as the very same modules', () => {
    expect(Object.keys(sdk).sort()).toEqual(Object.keys(host).sort());
    for (const name of ['CtxError', 'Reply', 'definePlugin', 's', 'PluginError'] as const) expect(sdk[name], name).toBe(host[name]);
    expect(testing.startTestHost).toBe(hostTesting.startTestHost);
    expect(new sdk.CtxError('NOT_FOUND', 'x')).toBeInstanceOf(host.CtxError);
  });

  it('is versioned with the host plugin API', () => {
    expect(manifest.version).toBe(host.PLUGIN_API_VERSION);
  });

  it('every entry it exports is one the server maps to its own SDK when it loads a plugin', () => {
    const entries = Object.keys(manifest.exports).filter((k) => k !== './package.json').map((k) => (k === '.' ? manifest.name : `${manifest.name}/${k.slice(2)}`));
    const mapped = Object.keys(sharedSdkSpecifiers('sdk', 'testing'));
    for (const e of entries) expect(mapped, e).toContain(e);
  });

  it('packs the files its exports name', () => {
    const [packed] = JSON.parse(execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: DIR, encoding: 'utf8' })) as Array<{ files: Array<{ path: string }> }>;
    const files = packed!.files.map((f) => f.path).sort();
    expect(files).toEqual(['README.md', 'index.d.ts', 'index.js', 'package.json', 'testing.d.ts', 'testing.js']);
  });
});
