/**
 * The bot's own records in its keyspace, per account (`${account}\0...`, dropped with the account):
 * conversation turns per user and session, answered responses (the targets of feedback) and
 * feedback. Not the sessions plugin's sessions: a bot session is the chat's short memory only.
 */
import type { Kv } from 'ctx/plugin';

const S = '\0';
/** Turns kept per session and sent back to the model: enough context, bounded prompt size. */
export const HISTORY_TURNS = 40;

export interface Turn {
  role: 'user' | 'assistant';
  content: string;
}
export interface ResponseRecord {
  session_id: string;
  user_id: string;
  created_at: number;
}
export interface FeedbackRecord {
  response_id: string;
  session_id: string;
  user_id: string;
  feedback_type: string;
  feedback_score?: number;
  feedback_reason?: string;
  feedback_text?: string;
  channel_id?: string;
  feedback_delay_sec: number;
  created_at: number;
}

export class BotStore {
  constructor(private readonly kv: Kv) {}

  private sessionKey(account: string, user: string, session: string) {
    return `${account}${S}s${S}${user}${S}${session}`;
  }

  async history(account: string, user: string, session: string): Promise<Turn[]> {
    return (await this.kv.getJson<Turn[]>(this.sessionKey(account, user, session))) ?? [];
  }

  /** Appends the exchange and, when answered, the response record, in one batch. */
  async record(account: string, user: string, session: string, turns: Turn[], response?: { id: string; rec: ResponseRecord }): Promise<void> {
    const all = [...(await this.history(account, user, session)), ...turns].slice(-HISTORY_TURNS);
    const ops = [this.kv.putJsonOp(this.sessionKey(account, user, session), all)];
    if (response) ops.push(this.kv.putJsonOp(`${account}${S}r${S}${response.id}`, response.rec));
    await this.kv.batch(ops);
  }

  response(account: string, id: string): Promise<ResponseRecord | undefined> {
    return this.kv.getJson<ResponseRecord>(`${account}${S}r${S}${id}`);
  }

  /** Every feedback is kept (a user may change their mind); the latest is last by key. */
  addFeedback(account: string, f: FeedbackRecord): Promise<void> {
    return this.kv.putJson(`${account}${S}f${S}${f.response_id}${S}${String(f.created_at).padStart(16, '0')}`, f);
  }

  async feedback(account: string, responseId: string): Promise<FeedbackRecord[]> {
    const out: FeedbackRecord[] = [];
    for await (const [, v] of this.kv.scanPrefix(`${account}${S}f${S}${responseId}${S}`)) out.push(JSON.parse(v.toString('utf8')));
    return out;
  }

  async dropAccount(account: string): Promise<void> {
    const keys: string[] = [];
    for await (const [k] of this.kv.scanPrefix(`${account}${S}`)) keys.push(k);
    for (let i = 0; i < keys.length; i += 1000) await this.kv.batch(keys.slice(i, i + 1000).map((k) => this.kv.delOp(k)));
  }
}
