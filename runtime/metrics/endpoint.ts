/**
 * `GET /metrics`: the Prometheus text exposition, guarded by its own setting (`CTX_METRICS`) rather
 * than API keys, since scrapers carry no ctx identity: `loopback` (default) answers only local
 * callers, `token` wants `Authorization: Bearer <CTX_METRICS_TOKEN>`, `off` answers 404.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { CtxError } from '../errors.js';
import type { RouteDef } from '../plugin.js';
import { Reply } from '../http/reply.js';
import type { Metrics, MetricsAccess } from './registry.js';

export const METRICS_PATH = '/metrics';

function isLoopbackAddress(addr: string): boolean {
  return addr.startsWith('127.') || addr === '::1' || addr === '0000:0000:0000:0000:0000:0000:0000:0001' || addr.startsWith('::ffff:127.');
}

const digest = (s: string) => createHash('sha256').update(s).digest();

export function metricsRoute(metrics: Metrics, access: MetricsAccess, token: string | undefined): RouteDef {
  const expected = token ? digest(token) : undefined;
  return {
    method: 'GET',
    path: METRICS_PATH,
    auth: 'none',
    tags: ['system'],
    summary: 'Prometheus metrics (text exposition format); guarded by CTX_METRICS, not by API keys',
    description:
      'CTX_METRICS=loopback (default) answers only callers on 127.0.0.0/8 or ::1; `token` needs `Authorization: Bearer <CTX_METRICS_TOKEN>`; `off` answers 404. Labels never carry URIs, account or user ids (unless CTX_METRICS_ACCOUNT_LABEL=true adds an account label to the request counter).',
    reply: { contentType: 'text/plain; version=0.0.4; charset=utf-8', description: 'Prometheus text format 0.0.4' },
    errors: ['NOT_FOUND', 'PERMISSION_DENIED', 'UNAUTHENTICATED'],
    async handler(ctx) {
      if (access === 'off') throw new CtxError('NOT_FOUND', 'metrics are off (CTX_METRICS=off)');
      if (access === 'loopback' && !isLoopbackAddress(ctx.req.remoteAddress))
        throw new CtxError('PERMISSION_DENIED', 'metrics are served to loopback callers only (CTX_METRICS=loopback; use CTX_METRICS=token to scrape from elsewhere)');
      if (access === 'token') {
        const auth = ctx.req.headers.authorization ?? '';
        const given = /^Bearer\s+(.+)$/i.exec(auth)?.[1]?.trim();
        if (!given || !expected || !timingSafeEqual(digest(given), expected)) throw new CtxError('UNAUTHENTICATED', 'metrics need Authorization: Bearer <CTX_METRICS_TOKEN>');
      }
      return Reply.raw(await metrics.text(), { contentType: metrics.contentType });
    },
  };
}
