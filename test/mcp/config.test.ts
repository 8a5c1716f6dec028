/** The MCP plugin's own configuration section: defaults, file section, environment, refusals. */
import { describe, expect, it } from 'vitest';
import fs from 'node:fs';
import { startTestApp, tempDir } from '../helpers/app.js';

async function observed(opts: Parameters<typeof startTestApp>[0]): Promise<string> {
  const t = await startTestApp(opts);
  try {
    return (await t.req({ url: '/api/v1/observer/system', headers: t.root })).json().result.components.mcp.status as string;
  } finally {
    await t.close();
  }
}

describe('mcp configuration', () => {
  it('defaults to 1000 sessions; takes the section from the file and CTX_PLUGIN_MCP_* over it', async () => {
    expect(await observed({})).toBe('sessions: 0 of 1000');
    expect(await observed({ config: { pluginSections: { mcp: { maxSessions: 7 } } } })).toBe('sessions: 0 of 7');
    expect(await observed({ config: { pluginSections: { mcp: { maxSessions: 7 } } }, env: { CTX_PLUGIN_MCP_MAX_SESSIONS: '9' } })).toBe('sessions: 0 of 9');
  }, 60_000);

  it('refuses zero, non-numbers and unknown keys at start-up, naming the field', async () => {
    const dir = tempDir();
    try {
      await expect(startTestApp({ dir, env: { CTX_PLUGIN_MCP_SESSION_IDLE_MINUTES: '0' } })).rejects.toThrow(/sessionIdleMinutes|SESSION_IDLE_MINUTES/);
      await expect(startTestApp({ dir, env: { CTX_PLUGIN_MCP_MAX_SESSIONS: 'many' } })).rejects.toThrow(/maxSessions|MAX_SESSIONS/);
      await expect(startTestApp({ dir, config: { pluginSections: { mcp: { nope: 1 } } } })).rejects.toThrow(/nope/);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});
