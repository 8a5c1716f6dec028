/** `GET /api/v1/resources/info`: what a resource root was imported from (never credentials). */
import { notFound, resultObject, s, type PluginHost } from 'ctx/plugin';

export function registerInfoRoute(host: PluginHost): void {
  host.route({
    method: 'GET',
    path: '/api/v1/resources/info',
    summary: 'what a resource root was imported from: source, reason, instruction, time, task (never credentials)',
    query: s.object({ uri: s.uri() }),
    response: resultObject({
      uri: s.string(),
      source_type: s.string(),
      source: s.string(),
      reason: s.string(),
      instruction: s.string(),
      imported_at: s.string(),
      task_id: s.string(),
      commit: s.string().optional(),
      media: s.record(s.any()).optional(),
      processing_mode: s.string().optional(),
    }),
    errors: ['INVALID_URI', 'PERMISSION_DENIED', 'NOT_FOUND'],
    async handler(ctx) {
      const node = await ctx.vfs.stat(ctx.query.uri);
      const rec = node?.meta?.resource as Record<string, unknown> | undefined;
      if (!node || !rec) throw notFound(`not an imported resource root: ${ctx.query.uri}`, { resource: ctx.query.uri });
      return { uri: node.uri, ...rec };
    },
  });
}
