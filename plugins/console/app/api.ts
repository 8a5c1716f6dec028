/**
 * Every call the console makes, in one module: the public HTTP API with the signed-in user's key.
 * Nothing else in the app calls fetch, so moving to the generated TypeScript SDK (clients/typescript)
 * is a change of this file only. The key lives in sessionStorage: gone with the tab, never in a URL
 * or a cookie.
 */
const KEY = 'ctx.console.key';
/** Fired on window when the API refuses the stored key. */
export const SIGNED_OUT = 'ctx-console-signed-out';

export class ApiError extends Error {
  constructor(readonly status: number, readonly code: string, message: string, readonly details?: unknown) {
    super(message);
  }
}

export const session = {
  key: (): string | null => sessionStorage.getItem(KEY),
  set: (key: string) => sessionStorage.setItem(KEY, key),
  clear: () => sessionStorage.removeItem(KEY),
};

type Query = Record<string, string | number | boolean | undefined | null>;

function url(path: string, query?: Query): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(query ?? {})) if (v !== undefined && v !== null && v !== '') q.set(k, String(v));
  const s = q.toString();
  return s ? `${path}?${s}` : path;
}

function headers(extra: Record<string, string> = {}): Record<string, string> {
  const key = session.key();
  return key ? { 'x-api-key': key, ...extra } : extra;
}

async function fail(res: Response): Promise<never> {
  let code = 'HTTP_' + res.status;
  let message = res.statusText || `HTTP ${res.status}`;
  let details: unknown;
  try {
    const body = await res.json();
    if (body?.error) ({ code, message, details } = body.error);
  } catch {
    /* not an envelope */
  }
  // A key that stopped working (regenerated, user removed): the shell goes back to the sign-in form.
  if (res.status === 401 && session.key()) dispatchEvent(new Event(SIGNED_OUT));
  throw new ApiError(res.status, code, message, details);
}

async function call<T>(method: string, path: string, opts: { query?: Query; body?: unknown } = {}): Promise<T> {
  const init: RequestInit = { method, headers: headers(opts.body === undefined ? {} : { 'content-type': 'application/json' }) };
  if (opts.body !== undefined) init.body = JSON.stringify(opts.body);
  const res = await fetch(url(path, opts.query), init);
  if (!res.ok) return fail(res);
  const env = await res.json();
  return env.result as T;
}

const get = <T>(path: string, query?: Query) => call<T>('GET', path, { query });
const post = <T>(path: string, body: unknown = {}) => call<T>('POST', path, { body });

// ---- types (the parts of the results the console shows) ------------------------------------------
export interface Identity { account_id: string; user_id: string; role: 'ROOT' | 'ADMIN' | 'USER' }
export interface Entry { name: string; uri: string; isDir: boolean; size?: number; modTime?: string; abstract?: string; access?: string }
export interface Stat { name: string; uri: string; isDir: boolean; size: number; modTime: string; isLocked: boolean; id?: string; count?: number }
export interface Hit { uri: string; context_type: string; level: number; abstract: string; overview?: string | null; score: number; match_reason: string; category?: string }
export interface FindResult { memories: Hit[]; resources: Hit[]; skills: Hit[]; total: number; query_plan?: unknown; provenance?: unknown }
export interface TaskEvent { seq: number; recorded_at: string; kind: string; status: string; stage: string | null; operation: string | null; error: string | null }
export interface Task { task_id: string; task_type: string; status: string; stage: string | null; resource_id?: string | null; created_at: number; updated_at: number; result: unknown; error: unknown }
export interface SessionRef { session_id: string; uri: string }
export interface SessionInfo { session_id: string; uri: string; created_at: string; updated_at: string; message_count: number; total_message_count: number; commit_count: number; memories_extracted: Record<string, number>; last_commit_at: string | null }
export interface Message { id: string; role: string; parts: Array<{ type: string; text?: string; uri?: string }>; created_at: string }
export interface Commit { oid: string; message: string; author: { name: string; time_seconds: number }; parents: string[] }
export interface Component { name: string; is_healthy: boolean; has_errors: boolean; status: string }
export interface Skill { name: string; uri: string; description: string; tags: string[] }
export interface Watch { task_id: string; path: string; to_uri: string; watch_interval: number; is_active: boolean; last_status: string | null; last_error: string | null; next_execution_time: string | null }
export interface Account { account_id: string; admin_user_id?: string; created_at?: string }
export interface User { account_id: string; user_id: string; role: string; created_at: string }

// ---- configuration and identity -------------------------------------------------------------------
export const api = {
  /** Written into the page by the server: dev mode serves loopback callers without a key. */
  devMode: () => document.querySelector('meta[name="ctx-dev-mode"]')?.getAttribute('content') === 'true',
  whoami: () => get<Identity>('/console/whoami'),

  // file system and content
  /** A directory's entries; directories carry their L0 (cut to 160 characters). */
  ls: (uri: string, offset = 0, limit = 500) => get<Entry[]>('/api/v1/fs/ls', { uri, offset, limit, node_limit: limit, abs_limit: 160 }),
  stat: (uri: string) => get<Stat>('/api/v1/fs/stat', { uri }),
  attrs: (uri: string) => get<{ context_type: string; attrs: { tags: string[]; memory?: Record<string, unknown> } }>('/api/v1/fs/attrs', { uri }),
  abstract: (uri: string) => get<string>('/api/v1/content/abstract', { uri }),
  overview: (uri: string) => get<string>('/api/v1/content/overview', { uri }),
  read: (uri: string) => get<string>('/api/v1/content/read', { uri }),
  write: (uri: string, content: string) => post<{ uri: string }>('/api/v1/content/write', { uri, content, mode: 'replace' }),
  setTags: (uri: string, tags: string[]) => post('/api/v1/content/set_tags', { uri, tags, mode: 'replace' }),
  mkdir: (uri: string) => post('/api/v1/fs/mkdir', { uri }),
  mv: (from_uri: string, to_uri: string) => post('/api/v1/fs/mv', { from_uri, to_uri }),
  rm: (uri: string) => call('DELETE', url('/api/v1/fs', { uri, recursive: true })),
  relations: (uri: string) => get<Array<{ uri: string; reason: string }>>('/api/v1/relations', { uri }),
  buildGraph: (space: string, output_uri: string) => post<{ graph_uri: string }>('/api/v1/relations/build_graph', { space_uris: [space], output_uri }),
  resourceInfo: (uri: string) => get<Record<string, unknown>>('/api/v1/resources/info', { uri }),

  /** Uploads bytes as a temp file, reporting progress (XHR: fetch has no upload progress). */
  upload(file: Blob, name: string, onProgress: (fraction: number) => void): Promise<{ temp_file_id: string }> {
    return new Promise((resolve, reject) => {
      const xhr = new XMLHttpRequest();
      xhr.open('POST', '/api/v1/resources/temp_upload');
      for (const [k, v] of Object.entries(headers())) xhr.setRequestHeader(k, v);
      xhr.upload.onprogress = (e) => e.lengthComputable && onProgress(e.loaded / e.total);
      xhr.onerror = () => reject(new ApiError(0, 'NETWORK', 'upload failed: network error'));
      xhr.onload = () => {
        let body: { result?: { temp_file_id: string }; error?: { code: string; message: string } } = {};
        try {
          body = JSON.parse(xhr.responseText);
        } catch {
          /* keep empty */
        }
        if (xhr.status >= 200 && xhr.status < 300 && body.result) resolve(body.result);
        else reject(new ApiError(xhr.status, body.error?.code ?? 'HTTP_' + xhr.status, body.error?.message ?? 'upload failed'));
      };
      const form = new FormData();
      form.append('file', file, name);
      xhr.send(form);
    });
  },
  addResource: (body: { temp_file_id?: string; path?: string; parent?: string; to?: string; reason?: string; watch_interval?: number }) => post<{ root_uri: string; task_id: string; status: string }>('/api/v1/resources', body),

  // retrieval
  find: (body: Record<string, unknown>) => post<FindResult>('/api/v1/search/find', body),
  search: (body: Record<string, unknown>) => post<FindResult>('/api/v1/search/search', body),
  grep: (body: Record<string, unknown>) => post<{ matches: Array<{ uri: string; line: number; content: string }>; count: number }>('/api/v1/search/grep', body),
  glob: (body: Record<string, unknown>) => post<{ matches: string[]; count: number }>('/api/v1/search/glob', body),

  // sessions
  sessions: () => get<SessionRef[]>('/api/v1/sessions'),
  session: (id: string) => get<SessionInfo>(`/api/v1/sessions/${encodeURIComponent(id)}`),
  createSession: () => post<{ session_id: string }>('/api/v1/sessions', {}),
  addMessage: (id: string, role: string, content: string) => post(`/api/v1/sessions/${encodeURIComponent(id)}/messages`, { role, content }),
  context: (id: string) => get<{ messages: Message[]; latest_archive_overview?: string; pre_archive_abstracts?: Array<{ archive_id: string; abstract: string }> }>(`/api/v1/sessions/${encodeURIComponent(id)}/context`, { token_budget: 100000 }),
  commitSession: (id: string) => post<{ task_id: string | null; archive_uri: string | null; archived: boolean }>(`/api/v1/sessions/${encodeURIComponent(id)}/commit`, {}),
  deleteSession: (id: string) => call('DELETE', `/api/v1/sessions/${encodeURIComponent(id)}`),

  // tasks
  tasks: (query: Query = {}) => get<Task[]>('/api/v1/tasks', { limit: 200, ...query }),
  task: (id: string) => get<Task>(`/api/v1/tasks/${encodeURIComponent(id)}`),
  /** The record with its execution events, which the API puts in `result.execution_events` (kept out of the result shown). */
  async taskWithEvents(id: string): Promise<{ task: Task; events: TaskEvent[] }> {
    const t = await get<Task>(`/api/v1/tasks/${encodeURIComponent(id)}`, { include_events: true });
    const { execution_events, ...rest } = (t.result ?? {}) as { execution_events?: { items: TaskEvent[] } | null };
    return { task: { ...t, result: Object.keys(rest).length ? rest : null }, events: execution_events?.items ?? [] };
  },
  cancelTask: (id: string) => post(`/api/v1/tasks/${encodeURIComponent(id)}/cancel`),

  // skills, watches
  skills: () => get<{ skills: Skill[]; total: number }>('/api/v1/skills'),
  addSkill: (data: string) => post<{ name: string; uri: string }>('/api/v1/skills', { data, wait: true }),
  skill: (name: string) => get<Record<string, unknown>>(`/api/v1/skills/${encodeURIComponent(name)}`, { include_content: true }),
  deleteSkill: (name: string) => call('DELETE', `/api/v1/skills/${encodeURIComponent(name)}`),
  watches: () => get<{ tasks: Watch[]; total: number }>('/api/v1/watches'),
  setWatchActive: (task_id: string, is_active: boolean) => call('PATCH', `/api/v1/watches/${encodeURIComponent(task_id)}`, { body: { is_active } }),
  triggerWatch: (task_id: string) => post(`/api/v1/watches/${encodeURIComponent(task_id)}/trigger`),
  deleteWatch: (task_id: string) => call('DELETE', `/api/v1/watches/${encodeURIComponent(task_id)}`),

  // packs
  async exportPack(uri: string): Promise<Blob> {
    const res = await fetch('/api/v1/pack/export', { method: 'POST', headers: headers({ 'content-type': 'application/json' }), body: JSON.stringify({ uri }) });
    if (!res.ok) return fail(res);
    return res.blob();
  },
  importPack: (temp_file_id: string, parent: string, on_conflict: string) => post<{ uri: string }>('/api/v1/pack/import', { temp_file_id, parent, on_conflict }),

  // snapshots
  /** An account that never committed has no branch yet: that is an empty history, not an error. */
  snapshotLog: (limit = 200) =>
    get<Commit[]>('/api/v1/snapshot/log', { limit }).catch((e) => {
      if (e instanceof ApiError && e.code === 'NOT_FOUND' && /no commits/.test(e.message)) return [] as Commit[];
      throw e;
    }),
  snapshotCommit: (message: string) => post<{ result: string; commit_oid: string | null }>('/api/v1/snapshot/commit', { message }),
  async snapshotFile(ref: string, path: string): Promise<string> {
    const res = await fetch(url('/api/v1/snapshot/show', { target_ref: ref, path }), { headers: headers() });
    if (!res.ok) return fail(res);
    return res.text();
  },
  snapshotRestore: (source_commit: string, dry_run: boolean, project_dir?: string) =>
    post<{ result: string; diff?: { to_write: Array<{ path: string }>; to_delete: Array<{ path: string }>; unchanged: number | unknown[] }; written?: number; deleted?: number }>('/api/v1/snapshot/restore', { source_commit, dry_run, project_dir }),

  // admin
  accounts: () => get<Account[]>('/api/v1/admin/accounts'),
  createAccount: (account_id: string, admin_user_id: string) => post<{ user_key: string }>('/api/v1/admin/accounts', { account_id, admin_user_id }),
  deleteAccount: (id: string) => call('DELETE', `/api/v1/admin/accounts/${encodeURIComponent(id)}`),
  users: (account: string) => get<User[]>(`/api/v1/admin/accounts/${encodeURIComponent(account)}/users`),
  createUser: (account: string, user_id: string, role: string) => post<{ user_key: string }>(`/api/v1/admin/accounts/${encodeURIComponent(account)}/users`, { user_id, role }),
  deleteUser: (account: string, user: string) => call('DELETE', `/api/v1/admin/accounts/${encodeURIComponent(account)}/users/${encodeURIComponent(user)}`),
  setRole: (account: string, user: string, role: string) => call('PUT', `/api/v1/admin/accounts/${encodeURIComponent(account)}/users/${encodeURIComponent(user)}/role`, { body: { role } }),
  regenerateKey: (account: string, user: string) => post<{ user_key: string }>(`/api/v1/admin/accounts/${encodeURIComponent(account)}/users/${encodeURIComponent(user)}/key`),

  // system
  async health(): Promise<{ healthy: boolean; version: string }> {
    const res = await fetch('/health', { headers: headers() });
    if (!res.ok) return fail(res);
    return res.json();
  },
  async ready(): Promise<{ status: string; checks: Record<string, string> }> {
    const res = await fetch('/ready');
    // 503 still carries the checks: show them.
    return res.json();
  },
  observer: () => get<{ is_healthy: boolean; errors: string[]; components: Record<string, Component> }>('/api/v1/observer/system'),
  queueWait: () => post('/api/v1/system/wait', { timeout: 0 }),
  async metrics(): Promise<string | null> {
    const res = await fetch('/metrics', { headers: headers() });
    return res.ok ? res.text() : null;
  },
};

export const setReaders = (uri: string, readers: string[] | null) => post('/api/v1/fs/access', { uri, readers });
