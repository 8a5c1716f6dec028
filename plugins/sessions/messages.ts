/**
 * Add-message input (spec Part 3 "Message"): simple mode (`content`) or parts mode (`parts`, which
 * wins when both are given), every part type checked field by field. Unknown fields are rejected.
 */
import { invalidArgument, isValidId, s } from 'ctx/plugin';
import type { Identity } from 'ctx/plugin';
import { CONTEXT_TYPES, ROLES, TOOL_STATUSES, type Message, type Part, type Role } from './types.js';

export const LIMITS = { partsPerMessage: 1000, batch: 100, messageBytes: 4 * 1024 * 1024 } as const;

const typeName = (v: unknown) => (v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v);
const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

const PART_FIELDS: Record<Part['type'], readonly string[]> = {
  text: ['type', 'text'],
  context: ['type', 'uri', 'context_type', 'abstract'],
  tool: ['type', 'tool_id', 'tool_name', 'skill_uri', 'tool_input', 'tool_output', 'tool_status'],
};

function str(p: Record<string, unknown>, key: string, field: string, def = ''): string {
  const v = p[key];
  if (v === undefined || v === null) return def;
  if (typeof v !== 'string') throw invalidArgument(`${field}.${key} must be a string, got ${typeName(v)}`, { field: `${field}.${key}` });
  return v;
}

function oneOf<T extends string>(p: Record<string, unknown>, key: string, field: string, allowed: readonly T[], def: T): T {
  const v = str(p, key, field, def);
  if (!(allowed as readonly string[]).includes(v)) throw invalidArgument(`${field}.${key} must be one of ${allowed.join(', ')}, got ${JSON.stringify(v).slice(0, 60)}`, { field: `${field}.${key}` });
  return v as T;
}

export function parsePart(raw: unknown, field: string): Part {
  if (!isObject(raw)) throw invalidArgument(`${field} must be an object, got ${typeName(raw)}`, { field });
  const type = raw.type;
  if (type !== 'text' && type !== 'context' && type !== 'tool')
    throw invalidArgument(`${field}.type must be text, context or tool, got ${JSON.stringify(type)?.slice(0, 40)}`, { field: `${field}.type` });
  for (const key of Object.keys(raw))
    if (!PART_FIELDS[type].includes(key)) throw invalidArgument(`unknown field ${JSON.stringify(key)} in a ${type} part (known: ${PART_FIELDS[type].join(', ')})`, { field: `${field}.${key}` });
  switch (type) {
    case 'text':
      if (typeof raw.text !== 'string') throw invalidArgument(`${field}.text must be a string, got ${typeName(raw.text)}`, { field: `${field}.text` });
      return { type, text: raw.text };
    case 'context':
      return { type, uri: str(raw, 'uri', field), context_type: oneOf(raw, 'context_type', field, CONTEXT_TYPES, 'memory'), abstract: str(raw, 'abstract', field) };
    case 'tool': {
      const input = raw.tool_input;
      if (input !== undefined && input !== null && !isObject(input)) throw invalidArgument(`${field}.tool_input must be an object, got ${typeName(input)}`, { field: `${field}.tool_input` });
      return {
        type,
        tool_id: str(raw, 'tool_id', field),
        tool_name: str(raw, 'tool_name', field),
        skill_uri: str(raw, 'skill_uri', field),
        tool_input: (input as Record<string, unknown> | undefined) ?? null,
        tool_output: str(raw, 'tool_output', field),
        tool_status: oneOf(raw, 'tool_status', field, TOOL_STATUSES, 'pending'),
      };
    }
  }
}

/** The part shapes parsePart accepts, for the OpenAPI document (no other fields). */
// Optional string fields take null for their default.
const STR = { type: ['string', 'null'] };
const PART_DOC = {
  oneOf: [
    { type: 'object', required: ['type', 'text'], additionalProperties: false, properties: { type: { const: 'text' }, text: { type: 'string' } } },
    { type: 'object', required: ['type'], additionalProperties: false, properties: { type: { const: 'context' }, uri: STR, context_type: { enum: [...CONTEXT_TYPES] }, abstract: STR } },
    {
      type: 'object',
      required: ['type'],
      additionalProperties: false,
      properties: { type: { const: 'tool' }, tool_id: STR, tool_name: STR, skill_uri: STR, tool_input: { type: ['object', 'null'] }, tool_output: STR, tool_status: { enum: [...TOOL_STATUSES] } },
    },
  ],
};
/** A peer id (runtime/uri/ids.ts; reserved words aside). */
const PEER_ID = '^[A-Za-z0-9][A-Za-z0-9_.@-]{0,127}$';

/** The body of one message (also each item of `/messages/batch`). */
export const messageShape = {
  role: s.enum(ROLES),
  content: s.string().optional().describe('simple mode: one text part'),
  parts: s.array(s.any().annotate(PART_DOC), { max: LIMITS.partsPerMessage }).optional().describe('parts mode: text, context and tool parts; wins over content'),
  created_at: s.string({ max: 64 }).annotate({ format: 'date-time' }).optional().describe('ISO 8601; default now'),
  peer_id: s.string({ max: 128 }).annotate({ pattern: PEER_ID }).optional().describe('the peer that spoke (shared sessions)'),
  agent_id: s.string({ max: 128 }).annotate({ pattern: PEER_ID }).optional().describe('legacy 0.3.x: the agent that spoke; becomes peer_id'),
  role_id: s.string({ max: 128 }).optional().describe('legacy 0.3.x role isolation: accepted and ignored since 0.4.0'),
  metadata: s.record(s.any()).optional().describe('free-form, kept with the message'),
  telemetry: s.telemetry(),
};
/** Content or parts (parts win): a message without either is refused. */
// agent_id (legacy) and peer_id both name the speaker: a message gives one of them.
export const CONTENT_OR_PARTS = {
  allOf: [{ anyOf: [{ required: ['content'], properties: { content: { type: 'string' } } }, { required: ['parts'], properties: { parts: { type: 'array', minItems: 1 } } }] }, { not: { required: ['agent_id', 'peer_id'] } }],
};
export const messageBody = s.object(messageShape).annotate(CONTENT_OR_PARTS);
export type MessageInput = ReturnType<typeof messageBody.parse>;

export function buildMessage(input: MessageInput, id: string, field = 'body', identity?: Identity): Message {
  let parts: Part[];
  if (input.parts !== undefined) parts = input.parts.map((p, i) => parsePart(p, `${field === 'body' ? '' : field + '.'}parts[${i}]`));
  else if (input.content !== undefined) parts = [{ type: 'text', text: input.content }];
  else throw invalidArgument('a message needs content (simple mode) or parts (parts mode)', { field: field === 'body' ? 'content' : `${field}.content` });
  let created = new Date().toISOString();
  if (input.created_at !== undefined) {
    const t = Date.parse(input.created_at);
    if (!/^\d{4}-\d{2}-\d{2}/.test(input.created_at) || Number.isNaN(t)) throw invalidArgument(`created_at must be an ISO 8601 time, got ${JSON.stringify(input.created_at)}`, { field: 'created_at' });
    created = new Date(t).toISOString();
  }
  const peerId = messagePeer(input, field, identity);
  const m: Message = { id, role: input.role as Role, parts, created_at: created };
  if (peerId !== undefined) m.peer_id = peerId;
  if (input.metadata !== undefined) m.metadata = input.metadata;
  return m;
}

/**
 * The message's peer (spec Part 1, "Runtime compatibility without migration"). A legacy 0.3.x
 * client names its agent (`X-Ctx-Agent`, or `agent_id` on the message as a 0.4.0 client configured
 * with `agent_id` sends it): its assistant messages are that agent speaking, and an explicit
 * `peer_id` next to it is refused. `role_id` (0.3.x role isolation) is ignored.
 */
function messagePeer(input: MessageInput, field: string, identity: Identity | undefined): string | undefined {
  const at = (f: string) => (field === 'body' ? f : `${field}.${f}`);
  for (const f of ['peer_id', 'agent_id'] as const)
    if (input[f] !== undefined && !isValidId(input[f])) throw invalidArgument(`${f} is not a valid id: ${JSON.stringify(input[f])}`, { field: at(f) });
  const legacy = input.agent_id ?? identity?.legacyAgentId;
  if (legacy === undefined) return input.peer_id;
  if (input.peer_id !== undefined)
    throw invalidArgument(`peer_id cannot be used by a client configured with the legacy agent_id (${legacy}): drop agent_id and use actor_peer_id, or leave peer_id out`, { field: at('peer_id') });
  if (input.agent_id !== undefined && identity?.actorPeerId && identity.actorPeerId !== input.agent_id)
    throw invalidArgument(`actor_peer_id (${identity.actorPeerId}) and the legacy agent_id (${input.agent_id}) cannot be used together: configure one of them`, { field: at('agent_id') });
  return input.role === 'assistant' ? legacy : undefined;
}

/** The plain text of a message (extraction, summaries, search context). */
export function messageText(m: Message): string {
  return m.parts
    .map((p) => (p.type === 'text' ? p.text : p.type === 'context' ? p.abstract : `[${p.tool_name}] ${p.tool_output}`))
    .filter((t) => t.trim() !== '')
    .join('\n');
}

/**
 * Messages of a `messages.jsonl`. What this plugin writes is always whole (atomic batches); a file
 * written through the file system or restored from elsewhere may have lines that are not messages
 * (skipped) or older shapes (`content` instead of `parts`, no id), which are read as messages.
 */
export function parseJsonl(text: string): Message[] {
  const out: Message[] = [];
  let n = 0;
  for (const line of text.split('\n')) {
    if (line === '') continue;
    n++;
    let m: Partial<Message> & { content?: unknown };
    try {
      m = JSON.parse(line);
    } catch {
      continue;
    }
    if (typeof m !== 'object' || m === null) continue;
    if (!Array.isArray(m.parts)) m.parts = typeof m.content === 'string' ? [{ type: 'text', text: m.content }] : [];
    m.parts = m.parts.filter((p) => typeof p === 'object' && p !== null && (p.type === 'text' ? typeof p.text === 'string' : p.type === 'context' || p.type === 'tool'));
    if (typeof m.id !== 'string') m.id = `msg_line_${n}`;
    if (typeof m.role !== 'string') m.role = 'user';
    if (typeof m.created_at !== 'string') m.created_at = '';
    out.push(m as Message);
  }
  return out;
}

export const toJsonl = (ms: Message[]) => ms.map((m) => JSON.stringify(m) + '\n').join('');
