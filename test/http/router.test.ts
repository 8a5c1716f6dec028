import { describe, expect, it } from 'vitest';
import { Router } from '../../runtime/http/router.js';

function router() {
  const r = new Router<string>();
  const d = (e: string) => e;
  r.add('GET', '/api/v1/tasks', 'list', d);
  r.add('GET', '/api/v1/tasks/{task_id}', 'get', d);
  r.add('POST', '/api/v1/tasks/{task_id}/cancel', 'cancel', d);
  r.add('GET', '/api/v1/privacy-configs/{category}/{target_key}/versions/{version}', 'version', d);
  r.add('GET', '/api/v1/admin/context-gateway/{path*}', 'proxy', d);
  r.add('GET', '/api/v1/tasks/special', 'static-wins', d);
  return r;
}

describe('router', () => {
  it.each([
    ['GET', '/api/v1/tasks', 'list', {}],
    ['GET', '/api/v1/tasks/abc', 'get', { task_id: 'abc' }],
    ['POST', '/api/v1/tasks/abc/cancel', 'cancel', { task_id: 'abc' }],
    ['GET', '/api/v1/tasks/special', 'static-wins', {}],
    ['GET', '/api/v1/privacy-configs/llm/openai/versions/3', 'version', { category: 'llm', target_key: 'openai', version: '3' }],
    ['GET', '/api/v1/admin/context-gateway/upstreams/u1/test', 'proxy', { path: 'upstreams/u1/test' }],
    ['GET', '/api/v1/tasks/a%20b', 'get', { task_id: 'a b' }],
  ])('%s %s → %s', (method, path, value, params) => {
    const m = router().find(method, path);
    expect(m).toEqual({ value, params });
  });

  it('reports allowed methods for a known path with another method (405)', () => {
    expect(router().find('DELETE', '/api/v1/tasks/abc')).toEqual({ allowed: ['GET'] });
    expect(router().find('PUT', '/api/v1/tasks')).toEqual({ allowed: ['GET'] });
  });

  it('returns null for unknown paths and empty segments', () => {
    expect(router().find('GET', '/api/v1/nothing')).toBeNull();
    expect(router().find('GET', '/api/v1/tasks//cancel')).toBeNull();
    expect(router().find('GET', '/api/v1/admin/context-gateway/')).toBeNull();
  });

  it('rejects duplicates naming the first registrant, and conflicting parameter names', () => {
    const r = router();
    expect(() => r.add('GET', '/api/v1/tasks/{task_id}', 'again', () => 'plugin tasks')).toThrow(/duplicate route GET \/api\/v1\/tasks\/\{task_id\}: already registered by plugin tasks/);
    expect(() => r.add('GET', '/api/v1/tasks/{id}/x', 'x', (e) => e)).toThrow(/conflicting parameter names/);
    expect(() => r.add('GET', '/a/{rest*}/b', 'x', (e) => e)).toThrow(/must be last/);
  });
});
