/** The MCP session bounds in the configuration: defaults, environment, and refusal of nonsense. */
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../runtime/config.js';


describe('mcp configuration', () => {
  it('has defaults, and takes each bound from the environment', () => {
    const env = { CTX_AUTH_MODE: 'dev' };
    expect(loadConfig(env).mcp).toEqual({ maxSessions: 1000, maxSessionsPerUser: 32, sessionIdleMinutes: 30 });
    expect(loadConfig({ ...env, CTX_MCP_MAX_SESSIONS: '5', CTX_MCP_MAX_SESSIONS_PER_USER: '2', CTX_MCP_SESSION_IDLE_MINUTES: '3' }).mcp).toEqual({ maxSessions: 5, maxSessionsPerUser: 2, sessionIdleMinutes: 3 });
  });

  it('refuses zero and non-numbers, naming the variable', () => {
    expect(() => loadConfig({ CTX_AUTH_MODE: 'dev', CTX_MCP_MAX_SESSIONS: '0' })).toThrow(/CTX_MCP_MAX_SESSIONS/);
    expect(() => loadConfig({ CTX_AUTH_MODE: 'dev', CTX_MCP_SESSION_IDLE_MINUTES: 'soon' })).toThrow(/CTX_MCP_SESSION_IDLE_MINUTES/);
  });
});
