/** Resources, sessions, skills, packs, snapshots, privacy configs and watches. */
import type { Transport } from '../transport.js';
import type { BodyOf, QueryOf, RequestOptions, ResultOf } from '../types.js';
import { bare, toDownload, withBody, withQuery, type Download } from './define.js';

export function resourcesGroup(t: Transport) {
  const tempUpload = async (file: Blob, filename = 'upload.zip', query?: QueryOf<'postResourcesTempUpload'>, o?: RequestOptions) => {
    const form = new FormData();
    form.append('file', file, filename);
    return t.call('postResourcesTempUpload', { body: form, query, ...o });
  };
  return {
    /** Adds a resource from a URL, a git repository, a server-side path or a temp upload; returns `{root_uri, task_id}`. */
    add: withBody(t, 'postResources'),
    /** Metadata of an added resource. */
    info: withQuery(t, 'getResourcesInfo'),
    /** Uploads a file (multipart part `file`) for a later add or pack import; returns `{temp_file_id}`. */
    tempUpload,
  };
}

export function sessionsGroup(t: Transport) {
  const id = (session_id: string) => ({ session_id });
  return {
    create: (body: BodyOf<'postSessions'> = {}, o?: RequestOptions) => t.call('postSessions', { body, ...o }),
    list: bare(t, 'getSessions'),
    get: (sessionId: string, query?: QueryOf<'getSessionsSessionId'>, o?: RequestOptions) => t.call('getSessionsSessionId', { path: id(sessionId), query, ...o }),
    delete: (sessionId: string, o?: RequestOptions) => t.call('deleteSessionsSessionId', { path: id(sessionId), ...o }),
    addMessage: (sessionId: string, body: BodyOf<'postSessionsSessionIdMessages'>, o?: RequestOptions) =>
      t.call('postSessionsSessionIdMessages', { path: id(sessionId), body, ...o }),
    addMessages: (sessionId: string, body: BodyOf<'postSessionsSessionIdMessagesBatch'>, o?: RequestOptions) =>
      t.call('postSessionsSessionIdMessagesBatch', { path: id(sessionId), body, ...o }),
    /** Archives the messages and extracts memories in the background; returns the task. */
    commit: (sessionId: string, body: BodyOf<'postSessionsSessionIdCommit'> = {}, o?: RequestOptions) =>
      t.call('postSessionsSessionIdCommit', { path: id(sessionId), body, ...o }),
    extract: (sessionId: string, body: BodyOf<'postSessionsSessionIdExtract'> = {}, o?: RequestOptions) =>
      t.call('postSessionsSessionIdExtract', { path: id(sessionId), body, ...o }),
    context: (sessionId: string, query?: QueryOf<'getSessionsSessionIdContext'>, o?: RequestOptions) =>
      t.call('getSessionsSessionIdContext', { path: id(sessionId), query, ...o }),
    archive: (sessionId: string, archiveId: string, o?: RequestOptions) =>
      t.call('getSessionsSessionIdArchivesArchiveId', { path: { session_id: sessionId, archive_id: archiveId }, ...o }),
    config: (sessionId: string, body: BodyOf<'patchSessionsSessionIdConfig'>, o?: RequestOptions) =>
      t.call('patchSessionsSessionIdConfig', { path: id(sessionId), body, ...o }),
    used: (sessionId: string, body: BodyOf<'postSessionsSessionIdUsed'>, o?: RequestOptions) =>
      t.call('postSessionsSessionIdUsed', { path: id(sessionId), body, ...o }),
  };
}

export function skillsGroup(t: Transport) {
  return {
    add: withBody(t, 'postSkills'),
    list: (query?: QueryOf<'getSkills'>, o?: RequestOptions) => t.call('getSkills', { query, ...o }),
    get: (name: string, query?: QueryOf<'getSkillsName'>, o?: RequestOptions) => t.call('getSkillsName', { path: { name }, query, ...o }),
    delete: (name: string, o?: RequestOptions) => t.call('deleteSkillsName', { path: { name }, ...o }),
  };
}

export function packsGroup(t: Transport, tempUpload: ReturnType<typeof resourcesGroup>['tempUpload']) {
  const withUpload =
    <R>(call: (tempFileId: string) => Promise<R>) =>
    async (file: Blob | string): Promise<R> =>
      call(typeof file === 'string' ? file : (await tempUpload(file, 'pack.ctxpack')).temp_file_id);
  return {
    /** A subtree as a `.ctxpack` zip stream. */
    export: async (body: BodyOf<'postPackExport'>, o?: RequestOptions): Promise<Download> => toDownload(await t.send('postPackExport', { body, ...o })),
    /** The whole account as a zip stream (ROOT/ADMIN). */
    backup: async (body: BodyOf<'postPackBackup'> = {}, o?: RequestOptions): Promise<Download> => toDownload(await t.send('postPackBackup', { body, ...o })),
    /** Imports a pack: a Blob is uploaded first, a string is an existing temp_file_id. */
    import: (pack: Blob | string, body: Omit<BodyOf<'postPackImport'>, 'temp_file_id'>, o?: RequestOptions): Promise<ResultOf<'postPackImport'>> =>
      withUpload((temp_file_id) => t.call('postPackImport', { body: { ...body, temp_file_id }, ...o }))(pack),
    restore: (pack: Blob | string, body: Omit<BodyOf<'postPackRestore'>, 'temp_file_id'> = {}, o?: RequestOptions): Promise<ResultOf<'postPackRestore'>> =>
      withUpload((temp_file_id) => t.call('postPackRestore', { body: { ...body, temp_file_id }, ...o }))(pack),
  };
}

export function snapshotsGroup(t: Transport) {
  return {
    commit: withBody(t, 'postSnapshotCommit'),
    log: (query?: QueryOf<'getSnapshotLog'>, o?: RequestOptions) => t.call('getSnapshotLog', { query, ...o }),
    /** A commit's changes, or with `path` the file's bytes. */
    show: withQuery(t, 'getSnapshotShow'),
    restore: withBody(t, 'postSnapshotRestore'),
    getIgnore: bare(t, 'getSnapshotIgnore'),
    setIgnore: withBody(t, 'putSnapshotIgnore'),
    deleteIgnore: bare(t, 'deleteSnapshotIgnore'),
  };
}

export function privacyGroup(t: Transport) {
  const key = (category: string, target_key: string) => ({ category, target_key });
  return {
    list: bare(t, 'getPrivacyConfigs'),
    category: (category: string, o?: RequestOptions) => t.call('getPrivacyConfigsCategory', { path: { category }, ...o }),
    get: (category: string, targetKey: string, o?: RequestOptions) => t.call('getPrivacyConfigsCategoryTargetKey', { path: key(category, targetKey), ...o }),
    set: (category: string, targetKey: string, body: BodyOf<'postPrivacyConfigsCategoryTargetKey'>, o?: RequestOptions) =>
      t.call('postPrivacyConfigsCategoryTargetKey', { path: key(category, targetKey), body, ...o }),
    activate: (category: string, targetKey: string, body: BodyOf<'postPrivacyConfigsCategoryTargetKeyActivate'>, o?: RequestOptions) =>
      t.call('postPrivacyConfigsCategoryTargetKeyActivate', { path: key(category, targetKey), body, ...o }),
    versions: (category: string, targetKey: string, o?: RequestOptions) =>
      t.call('getPrivacyConfigsCategoryTargetKeyVersions', { path: key(category, targetKey), ...o }),
    version: (category: string, targetKey: string, version: number | string, o?: RequestOptions) =>
      t.call('getPrivacyConfigsCategoryTargetKeyVersionsVersion', { path: { ...key(category, targetKey), version: version as never }, ...o }),
  };
}

export function watchesGroup(t: Transport) {
  return {
    list: (query?: QueryOf<'getWatches'>, o?: RequestOptions) => t.call('getWatches', { query, ...o }),
    get: (taskId: string, o?: RequestOptions) => t.call('getWatchesTaskId', { path: { task_id: taskId }, ...o }),
    update: (taskId: string, body: BodyOf<'patchWatchesTaskId'>, o?: RequestOptions) => t.call('patchWatchesTaskId', { path: { task_id: taskId }, body, ...o }),
    updateByTarget: (toUri: string, body: BodyOf<'patchWatches'>, o?: RequestOptions) => t.call('patchWatches', { query: { to_uri: toUri }, body, ...o }),
    delete: (taskId: string, o?: RequestOptions) => t.call('deleteWatchesTaskId', { path: { task_id: taskId }, ...o }),
    deleteByTarget: (toUri: string, o?: RequestOptions) => t.call('deleteWatches', { query: { to_uri: toUri }, ...o }),
    trigger: (taskId: string, o?: RequestOptions) => t.call('postWatchesTaskIdTrigger', { path: { task_id: taskId }, ...o }),
    triggerByTarget: (toUri: string, o?: RequestOptions) => t.call('postWatchesTrigger', { query: { to_uri: toUri }, ...o }),
  };
}
