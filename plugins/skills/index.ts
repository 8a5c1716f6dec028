/**
 * Skills (spec Part 3 "Skill data", "Skills"): `POST /api/v1/skills` from a structured dict,
 * SKILL.md text, a tool definition, or an upload (SKILL.md or a zipped skill directory), plus the
 * reference's list, read and delete routes. Everything goes through the caller-scoped VFS; the
 * semantic plugin's indexer makes the result findable with `context_type: skill`.
 */
import { HOST_VERSION, definePlugin, invalidArgument, resultObject, s, type Identity, type PluginHost } from 'ctx/plugin';
import { checkName, parseError, parseSkillData, parseSkillMd, type Skill } from './parse.js';
import { deleteSkill, getSkill, listSkills, skillDirFiles, skillsRoot, writeSkill } from './store.js';
import { isZip, readZip, zipError, type ZipFile, type ZipLimits } from 'ctx/plugin';

/** A skill directory is small: tighter than the host's defaults for imported trees. */
const SKILL_ZIP_LIMITS: ZipLimits = { archiveBytes: 32 * 1024 * 1024, entries: 512, fileBytes: 8 * 1024 * 1024, totalBytes: 32 * 1024 * 1024, ratio: 200 };

const TASK_TYPE = 'skill_index';
const MAX_TEXT = 1024 * 1024;

const skillSummary = resultObject({
  type: s.enum(['skill'] as const),
  name: s.string(),
  uri: s.string(),
  root_uri: s.string(),
  skill_md_uri: s.string(),
  description: s.string(),
  tags: s.array(s.string()),
  allowed_tools: s.array(s.string()),
});

const queueStatus = resultObject({ pending: s.int(), processing: s.int(), completed: s.int(), errors: s.int() });

/** Path parameters as the OpenAPI document states them (the handlers check them). */
const PATH_PARAMS = { name: s.string({ min: 1, max: 128 }).annotate({ pattern: '^[A-Za-z0-9][A-Za-z0-9_-]*$' }) };

export default definePlugin({
  name: 'skills',
  version: HOST_VERSION,
  // temp-files (uploads by temp_file_id).
  dependsOn: ['system'],
  setup(host) {
    const temp = host.use('temp-files');

    host.taskType({
      type: TASK_TYPE,
      cancellable: true,
      onRestart: 'resume',
      async run(task, raw) {
        const input = raw as { account: string; path: string };
        await task.setStage('processing_queue');
        const indexing = host.optional('indexing');
        if (!indexing) return { semantic_status: 'deferred', vector_status: 'deferred' };
        // The skill's writes queued their index work in their own batch; this follows it to the end.
        return { ...(await indexing.report(input.account, input.path, { wait: true, signal: task.signal, kind: 'dir' })) };
      },
    });

    /** A temp upload: a zipped skill directory, a SKILL.md, or a JSON skill/tool definition. */
    const fromUpload = async (who: Identity, id: string): Promise<{ skill: Skill; auxiliary: ZipFile[]; skipped: string[] }> => {
      const rec = await temp.resolve(who, id);
      if (rec.size > SKILL_ZIP_LIMITS.archiveBytes) throw invalidArgument(`the upload is larger than ${SKILL_ZIP_LIMITS.archiveBytes} bytes`, { field: 'temp_file_id', max: SKILL_ZIP_LIMITS.archiveBytes });
      const buf = await temp.read(who, id);
      if (isZip(buf)) {
        const dir = skillDirFiles(readZip(buf, SKILL_ZIP_LIMITS));
        if (!dir) throw zipError('no SKILL.md at the root or in a single top-level folder');
        const skill = parseSkillMd(text(dir.skillMd.data, 'SKILL.md'));
        return { skill, auxiliary: dir.auxiliary, skipped: dir.skipped };
      }
      if (buf.length > MAX_TEXT) throw invalidArgument(`a SKILL.md upload is larger than ${MAX_TEXT} bytes`, { field: 'temp_file_id', max: MAX_TEXT });
      const body = text(buf, rec.filename);
      if (/\.json$/i.test(rec.filename)) {
        let parsed: unknown;
        try {
          parsed = JSON.parse(body);
        } catch (err) {
          throw parseError(`${rec.filename} is not JSON: ${(err as Error).message}`, { field: 'temp_file_id' });
        }
        return { skill: parseSkillData(parsed), auxiliary: [], skipped: [] };
      }
      return { skill: parseSkillMd(body), auxiliary: [], skipped: [] };
    };

    host.route({
      method: 'POST',
      path: '/api/v1/skills',
      summary: "adds (or replaces) a skill in the caller's ctx://user/{id}/skills/",
      description:
        '`data` is a skill object (`name`, `description`, `content`, `allowed_tools`/`allowed-tools`, `tags`), a tool definition (an object with `inputSchema`; the name becomes kebab-case and SKILL.md is generated) or SKILL.md text; `temp_file_id` names an upload of a SKILL.md or a zipped skill directory. Give exactly one. Without `wait` the indexing runs as a task (`task_id`); with it the call waits (up to `timeout` seconds) and reports `queue_status`.',
      body: s.object({
        data: s.union([s.string({ max: MAX_TEXT }), s.record(s.any())], 'a skill object, a tool definition or SKILL.md text').nullable().optional(),
        temp_file_id: s.string({ min: 1, max: 128 }).annotate({ pattern: '^tmp_[0-9a-f]{32}$' }).nullable().optional(),
        wait: s.bool().default(false),
        timeout: s.number({ min: 0 }).nullable().optional(),
        telemetry: s.telemetry(),
      }).annotate({
        // Exactly one of data and temp_file_id.
        allOf: [
          {
            oneOf: [
              { required: ['data'], properties: { data: { not: { type: 'null' } } } },
              { required: ['temp_file_id'], properties: { temp_file_id: { type: 'string' } } },
            ],
          },
        ],
      }),
      response: resultObject({
        status: s.enum(['success', 'error'] as const),
        root_uri: s.string(),
        uri: s.string(),
        name: s.string(),
        auxiliary_files: s.int(),
        task_id: s.string().optional(),
        queue_status: queueStatus.optional(),
        semantic_status: s.string().optional(),
        vector_status: s.string().optional(),
        ignored_fields: s.array(s.string()).optional(),
        skipped_files: s.array(s.string()).optional(),
      }),
      errors: ['INVALID_ARGUMENT', 'PROCESSING_ERROR', 'NOT_FOUND', 'INVALID_URI', 'PERMISSION_DENIED'],
      async handler(ctx) {
        const b = ctx.body;
        const hasData = b.data !== undefined && b.data !== null;
        const hasTemp = b.temp_file_id !== undefined && b.temp_file_id !== null;
        if (hasData === hasTemp) throw invalidArgument(hasData ? 'data and temp_file_id are mutually exclusive' : "either 'data' or 'temp_file_id' must be provided", { field: 'data' });
        // Everything is parsed and checked before the first write: bad input leaves nothing behind.
        const { skill, auxiliary, skipped } = hasTemp ? await fromUpload(ctx.identity, b.temp_file_id!) : { skill: parseSkillData(b.data), auxiliary: [], skipped: [] };
        const { uri } = await writeSkill(ctx.vfs, ctx.identity.userId, skill, auxiliary);
        const out: Record<string, unknown> = { status: 'success', root_uri: uri, uri, name: skill.name, auxiliary_files: auxiliary.length };
        if (skill.ignoredFields.length) out.ignored_fields = skill.ignoredFields;
        if (skipped.length) out.skipped_files = skipped;
        const account = ctx.identity.accountId;
        const path = ctx.vfs.resolve(uri, 'write').path;
        if (!b.wait) {
          const task = await host.tasks.create(TASK_TYPE, ctx.identity, { resourceId: uri, input: { account, path } });
          return { ...out, task_id: task.task_id };
        }
        return { ...out, ...(await waitIndexed(host, account, path, b.timeout ?? undefined, ctx.signal)) };
      },
    });

    host.route({
      method: 'GET',
      path: '/api/v1/skills',
      summary: "the caller's skills with their SKILL.md metadata",
      query: s.object({ node_limit: s.int({ min: 0 }).default(1000) }),
      response: resultObject({ root_uri: s.string(), root_uris: s.array(s.string()), skills: s.array(skillSummary), total: s.int() }),
      async handler(ctx) {
        const root = skillsRoot(ctx.identity.userId);
        const skills = await listSkills(ctx.vfs, ctx.identity.userId, ctx.query.node_limit);
        return { root_uri: root, root_uris: [root], skills, total: skills.length };
      },
    });

    host.route({
      method: 'GET',
      path: '/api/v1/skills/{name}',
      params: PATH_PARAMS,
      summary: "one of the caller's skills: metadata, L0/L1, and on request SKILL.md and its file list",
      query: s.object({ include_content: s.bool().default(false), include_files: s.bool().default(false) }),
      response: resultObject({
        ...skillSummary.shape,
        abstract: s.string(),
        overview: s.string(),
        content: s.string().optional(),
        files: s.array(resultObject({ path: s.string(), uri: s.string(), kind: s.enum(['definition', 'summary', 'auxiliary', 'directory'] as const), size: s.int() })).optional(),
      }),
      errors: ['NOT_FOUND'],
      handler: (ctx) => getSkill(ctx.vfs, ctx.identity.userId, checkName(ctx.params.name, 'name'), { content: ctx.query.include_content, files: ctx.query.include_files }),
    });

    host.route({
      method: 'DELETE',
      path: '/api/v1/skills/{name}',
      params: PATH_PARAMS,
      summary: "removes one of the caller's skills (its directory and index records)",
      response: resultObject({ name: s.string(), uri: s.string(), root_uri: s.string(), deleted: s.int() }),
      errors: ['NOT_FOUND'],
      handler: (ctx) => deleteSkill(ctx.vfs, ctx.identity.userId, checkName(ctx.params.name, 'name')),
    });
  },
});

function text(data: Buffer, name: string): string {
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(data);
  } catch {
    throw parseError(`${name} is not UTF-8 text`, { field: 'temp_file_id' });
  }
}

/** Waits for the skill's index work; a timeout is not an error: the skill is stored, `pending` says what is left. */
async function waitIndexed(host: PluginHost, account: string, path: string, timeoutSec: number | undefined, signal: AbortSignal) {
  const indexing = host.optional('indexing');
  if (!indexing) return { semantic_status: 'deferred', vector_status: 'deferred', queue_status: { pending: 0, processing: 0, completed: 0, errors: 0 } };
  return indexing.compact(await indexing.report(account, path, { wait: true, timeoutMs: timeoutSec === undefined ? undefined : timeoutSec * 1000, signal, kind: 'dir' }));
}
