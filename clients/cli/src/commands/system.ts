/** status and health. */
import type { Handler } from '../context.js';
import { kv, paint } from '../output.js';

export const status: Handler = async (cx) => {
  const c = await cx.client();
  const [me, health, system] = await Promise.all([c.system.status(), c.system.health(), c.system.observer.system().catch(() => undefined)]);
  const out = { url: c.url, ...health, ...me, system };
  cx.out.emit(out, () => {
    const lines = kv(cx.out, { url: c.url, version: health.version, auth_mode: health.auth_mode, user: me.user, healthy: health.healthy ? paint(cx.out, 'green', 'yes') : paint(cx.out, 'red', 'no') });
    const comps = system ? Object.values((system as { components?: Record<string, { name: string; is_healthy: boolean }> }).components ?? {}) : [];
    return lines + (comps.length ? '\n' + comps.map((x) => `  ${x.is_healthy ? paint(cx.out, 'green', 'ok ') : paint(cx.out, 'red', 'bad')} ${x.name}`).join('\n') : '');
  });
};

export const health: Handler = async (cx) => {
  const c = await cx.client();
  const h = await c.system.health();
  cx.out.emit(h, () => `${h.healthy ? 'healthy' : 'unhealthy'} (ctx ${h.version}) at ${c.url}`);
  if (!h.healthy) process.exitCode = 1;
};
