/**
 * The part both example backends share: compile sessions with the runtime protocol's semantics
 * (owner = a digest of the caller's key, Idempotency-Key per owner, cancel → cancelling →
 * cancelled, terminal sessions answer as they are) and a deterministic compile job that works
 * through ctx's public HTTP API with the caller's own key: it lists and reads the `from` trees and
 * the skill, and writes `INDEX.md` into `to`. No LLM: a real backend would run its agent here.
 */
import { createHash, randomUUID } from 'node:crypto';

export type Status = 'pending' | 'running' | 'cancelling' | 'completed' | 'failed' | 'cancelled';
export interface State {
  status: Status;
  stage: string | null;
  error: string | null;
  meta: Record<string, unknown>;
  result: Record<string, unknown> | null;
}
export interface Payload {
  from: string[];
  to: string;
  skill: string;
  instruction?: string;
  args?: Record<string, unknown>;
}

export class BadRequest extends Error {}
export class NotFound extends Error {}

const TERMINAL = new Set<Status>(['completed', 'failed', 'cancelled']);
export const isTerminal = (s: Status) => TERMINAL.has(s);

/** A submit body as `/runtime/v1/tasks` takes it; throws BadRequest before any session exists. */
export function checkSubmit(body: unknown): Payload {
  const b = (body ?? {}) as { task_type?: unknown; payload?: Record<string, unknown> };
  if (b.task_type !== 'compile') throw new BadRequest(`unsupported task_type ${JSON.stringify(b.task_type)}`);
  const p = b.payload;
  if (!p || typeof p !== 'object') throw new BadRequest('payload is required');
  if (!Array.isArray(p.from) || !p.from.length || !p.from.every((x) => typeof x === 'string' && x)) throw new BadRequest('payload.from must be a non-empty array of URIs');
  if (typeof p.to !== 'string' || !p.to) throw new BadRequest('payload.to is required');
  if (typeof p.skill !== 'string' || !p.skill) throw new BadRequest('payload.skill is required');
  return p as unknown as Payload;
}

interface Session {
  id: string;
  owner: string;
  state: State;
  controller: AbortController;
  watchers: Set<(s: State) => void>;
}

export class Sessions {
  private readonly sessions = new Map<string, Session>();
  private readonly idem = new Map<string, string>();
  /** Every X-API-Key seen, so the test can check the key travelled (never logged anywhere). */
  readonly seenKeys: string[] = [];
  /** How many jobs actually ran (idempotent resubmits do not add one). */
  runs = 0;

  /** ctx's base URL; settable because ctx and its backend each need the other's address at start. */
  constructor(public ctxUrl: string) {}

  static owner(apiKey: string | undefined): string {
    if (!apiKey) throw new BadRequest('X-API-Key is required');
    return createHash('sha256').update(apiKey).digest('hex');
  }

  submit(apiKey: string | undefined, idemKey: string | undefined, payload: Payload): string {
    const owner = Sessions.owner(apiKey);
    this.seenKeys.push(apiKey!);
    const k = idemKey ? `${owner}:${idemKey}` : undefined;
    if (k && this.idem.has(k)) return this.idem.get(k)!;
    const s: Session = { id: randomUUID(), owner, state: { status: 'pending', stage: 'queued', error: null, meta: { backend: 'example' }, result: null }, controller: new AbortController(), watchers: new Set() };
    this.sessions.set(s.id, s);
    if (k) this.idem.set(k, s.id);
    this.runs++;
    void this.run(s, apiKey!, payload);
    return s.id;
  }

  status(apiKey: string | undefined, id: string): State {
    return { ...this.own(apiKey, id).state };
  }

  cancel(apiKey: string | undefined, id: string): State {
    const s = this.own(apiKey, id);
    if (!isTerminal(s.state.status) && s.state.status !== 'cancelling') {
      this.set(s, { status: 'cancelling' });
      s.controller.abort();
    }
    return { ...s.state };
  }

  watch(apiKey: string | undefined, id: string, fn: (s: State) => void): () => void {
    const s = this.own(apiKey, id);
    fn({ ...s.state });
    if (isTerminal(s.state.status)) return () => {};
    s.watchers.add(fn);
    return () => s.watchers.delete(fn);
  }

  private own(apiKey: string | undefined, id: string): Session {
    const s = this.sessions.get(id);
    if (!s || s.owner !== Sessions.owner(apiKey)) throw new NotFound(`session not found: ${id}`);
    return s;
  }

  private set(s: Session, patch: Partial<State>): void {
    s.state = { ...s.state, ...patch };
    for (const w of s.watchers) w({ ...s.state });
    if (isTerminal(s.state.status)) s.watchers.clear();
  }

  private async run(s: Session, apiKey: string, p: Payload): Promise<void> {
    const signal = s.controller.signal;
    const api = async (method: string, path: string, body?: unknown) => {
      const res = await fetch(`${this.ctxUrl}${path}`, { method, signal, headers: { 'x-api-key': apiKey, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
      const json = (await res.json()) as { result?: unknown; error?: { message?: string } };
      if (!res.ok) throw new Error(`${method} ${path.split('?')[0]}: HTTP ${res.status} ${json.error?.message ?? ''}`);
      return json.result;
    };
    try {
      await new Promise((r) => setTimeout(r, 5));
      if (signal.aborted) return this.set(s, { status: 'cancelled', stage: 'cancelled' });
      this.set(s, { status: 'running', stage: 'reading' });
      const skillUri = p.skill.endsWith('SKILL.md') ? p.skill : `${p.skill.replace(/\/$/, '')}/SKILL.md`;
      const skill = String(await api('GET', `/api/v1/content/read?uri=${encodeURIComponent(skillUri)}`));
      const lines: string[] = [`# Index`, '', `Skill: ${skill.match(/^name:\s*(.+)$/m)?.[1] ?? skillUri}`, ''];
      let read = 0;
      for (const dir of p.from) {
        const entries = (await api('GET', `/api/v1/fs/ls?recursive=true&uri=${encodeURIComponent(dir)}`)) as Array<{ uri: string; isDir: boolean; name: string }>;
        for (const e of entries) {
          if (e.isDir || e.name.startsWith('.')) continue;
          const text = String(await api('GET', `/api/v1/content/read?uri=${encodeURIComponent(e.uri)}`));
          lines.push(`- ${e.uri}: ${text.split('\n')[0].slice(0, 120)}`);
          read++;
        }
      }
      if (signal.aborted) return this.set(s, { status: 'cancelled', stage: 'cancelled' });
      this.set(s, { stage: 'writing' });
      const target = `${p.to.replace(/\/$/, '')}/INDEX.md`;
      const w = (await api('POST', '/api/v1/content/write', { uri: target, content: `${lines.join('\n')}\n` })) as { uri: string };
      this.set(s, { status: 'completed', stage: 'completed', result: { written: [w.uri], files_read: read } });
    } catch (err) {
      if (signal.aborted) return this.set(s, { status: 'cancelled', stage: 'cancelled' });
      this.set(s, { status: 'failed', error: (err as Error).message });
    }
  }
}
