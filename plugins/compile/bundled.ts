/**
 * The bundled execution backend: compile sessions run in this process by the agent loop. It is the
 * backend behind `POST /api/v1/compile` when no `CTX_EXECUTION_BACKEND_URL` is set, and the one
 * ctx itself serves over `/runtime/v1` and gRPC. Sessions live in memory (a restart fails the
 * compile task that was waiting on one, as the task manager does for every interrupted task).
 */
import { randomUUID } from 'node:crypto';
import { CtxError, invalidArgument, notFound, type Llm, type Logger, type ScopedVfs } from 'ctx/plugin';
import { runAgent } from './agent.js';
import { TERMINAL, type CompilePayload, type RuntimeStatus } from './protocol.js';

/** Finished sessions kept for status calls; the oldest are dropped beyond this. */
const KEEP_FINISHED = 1000;

interface Session {
  id: string;
  owner: string;
  idemKey?: string;
  state: RuntimeStatus;
  controller: AbortController;
  done: Promise<void>;
  watchers: Set<(s: RuntimeStatus) => void>;
}

export interface SubmitRequest {
  owner: string;
  idempotencyKey?: string;
  payload: CompilePayload;
  /** The owner's view of the VFS; every read and write of the agent goes through it. */
  vfs: ScopedVfs;
}

export class BundledBackend {
  private readonly sessions = new Map<string, Session>();
  private readonly byIdem = new Map<string, string>();
  private readonly finished: string[] = [];

  constructor(private readonly llm: () => Llm | null, private readonly log: Logger) {}

  /** Starts a session, or returns the one this owner already started with the same key. */
  submit(req: SubmitRequest): string {
    if (req.payload.args && Object.keys(req.payload.args).length > 0)
      throw invalidArgument(`the bundled execution backend takes no args (got ${Object.keys(req.payload.args).join(', ')}); it uses the configured LLM`, { field: 'payload.args' });
    const idem = req.idempotencyKey ? `${req.owner}\0${req.idempotencyKey}` : undefined;
    const existing = idem ? this.byIdem.get(idem) : undefined;
    if (existing && this.sessions.has(existing)) return existing;
    const s: Session = {
      id: randomUUID(),
      owner: req.owner,
      idemKey: idem,
      state: { status: 'pending', stage: 'queued', error: null, meta: { backend: 'bundled' }, result: null },
      controller: new AbortController(),
      done: Promise.resolve(),
      watchers: new Set(),
    };
    this.sessions.set(s.id, s);
    if (idem) this.byIdem.set(idem, s.id);
    s.done = this.execute(s, req).catch((err) => this.log.error('compile session bookkeeping failed', { session_id: s.id, error: err }));
    return s.id;
  }

  status(owner: string, id: string): RuntimeStatus {
    return { ...this.own(owner, id).state };
  }

  /** `cancelling` while the agent stops, then `cancelled`; a terminal session answers as it is. */
  cancel(owner: string, id: string): RuntimeStatus {
    const s = this.own(owner, id);
    if (!TERMINAL.has(s.state.status) && s.state.status !== 'cancelling') {
      this.update(s, { status: 'cancelling' });
      s.controller.abort(new CtxError('FAILED_PRECONDITION', 'compile cancelled'));
    }
    return { ...s.state };
  }

  /** Calls `fn` with the current state and every change until the session ends; returns an unsubscribe. */
  watch(owner: string, id: string, fn: (s: RuntimeStatus) => void): () => void {
    const s = this.own(owner, id);
    fn({ ...s.state });
    if (TERMINAL.has(s.state.status)) return () => {};
    s.watchers.add(fn);
    return () => s.watchers.delete(fn);
  }

  /** Stops every running session (shutdown) and waits for them. */
  async close(): Promise<void> {
    for (const s of this.sessions.values()) if (!TERMINAL.has(s.state.status)) s.controller.abort(new CtxError('UNAVAILABLE', 'server shutting down'));
    await Promise.all([...this.sessions.values()].map((s) => s.done));
  }

  private own(owner: string, id: string): Session {
    const s = this.sessions.get(id);
    // A foreign session is as unknown as a missing one: its id says nothing to another user.
    if (!s || s.owner !== owner) throw notFound(`execution session not found: ${id}`, { session_id: id });
    return s;
  }

  private update(s: Session, patch: Partial<RuntimeStatus>): void {
    s.state = { ...s.state, ...patch };
    const snapshot = { ...s.state };
    for (const w of s.watchers) w(snapshot);
    if (TERMINAL.has(s.state.status)) {
      s.watchers.clear();
      this.finished.push(s.id);
      while (this.finished.length > KEEP_FINISHED) {
        const old = this.sessions.get(this.finished.shift()!);
        if (!old) continue;
        this.sessions.delete(old.id);
        if (old.idemKey) this.byIdem.delete(old.idemKey);
      }
    }
  }

  private async execute(s: Session, req: SubmitRequest): Promise<void> {
    await new Promise((r) => setImmediate(r));
    if (s.controller.signal.aborted) return this.update(s, { status: 'cancelled', stage: 'cancelled' });
    const written: string[] = [];
    try {
      const llm = this.llm();
      if (!llm) throw new CtxError('UNAVAILABLE', 'compile needs an LLM: set CTX_LLM_BASE_URL (an OpenAI-compatible /v1 endpoint) and CTX_LLM_MODEL, or point CTX_EXECUTION_BACKEND_URL at an external execution backend');
      this.update(s, { status: 'running', stage: 'agent' });
      const skillFile = await resolveSkill(req.vfs, req.payload.skill);
      const r = await runAgent({
        vfs: req.vfs,
        llm,
        payload: req.payload,
        skillFile,
        signal: s.controller.signal,
        setStage: (stage) => {
          if (s.state.status === 'running' && s.state.stage !== stage) this.update(s, { stage });
        },
        onWrite: (uri) => {
          written.push(uri);
          s.state.meta = { ...s.state.meta, written: written.length };
        },
      });
      if (s.controller.signal.aborted) return this.update(s, { status: 'cancelled', stage: 'cancelled', result: { written } });
      this.update(s, {
        status: 'completed',
        stage: r.outcome,
        result: { to: req.vfs.resolve(req.payload.to, 'write', 'to').uri, written: r.written, files_written: r.written.length, summary: r.summary, turns: r.turns, token_usage: r.token_usage },
      });
    } catch (err) {
      if (s.controller.signal.aborted) return this.update(s, { status: 'cancelled', stage: 'cancelled', result: { written } });
      this.update(s, { status: 'failed', error: (err as Error).message?.slice(0, 500) || 'compile failed', result: written.length ? { written } : null });
    }
  }
}

/** `skill` names a skill directory or its SKILL.md; either way the SKILL.md must exist. */
export async function resolveSkill(vfs: ScopedVfs, skill: string): Promise<string> {
  const u = vfs.resolve(skill, 'read', 'skill').uri;
  const file = u.endsWith('/SKILL.md') ? u : `${u}/SKILL.md`;
  const st = await vfs.stat(file);
  if (!st || st.kind !== 'file') throw notFound(`skill has no SKILL.md: ${file}`, { field: 'skill', uri: file });
  return file;
}
