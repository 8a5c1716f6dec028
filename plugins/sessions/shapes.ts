/** Result shapes of the sessions routes (the OpenAPI document) and the session-info view. */
import { resultObject, s } from 'ctx/plugin';
import { extractedCounts } from './commit.js';
import { POLICY_FIELDS } from './policy.js';
import { uriOf } from './store.js';
import type { SessionMeta } from './types.js';

export const anyObject = s.record(s.any());
export const policySchema = resultObject(Object.fromEntries(Object.keys(POLICY_FIELDS).map((k) => [k, s.int()])));
export const partSchema = s.record(s.any()).describe('text {type, text}; context {type, uri, context_type, abstract}; tool {type, tool_id, tool_name, skill_uri, tool_input, tool_output, tool_status}');
export const messageSchema = resultObject({ id: s.string(), role: s.string(), parts: s.array(partSchema), created_at: s.string(), peer_id: s.string().optional() });
export const userSchema = resultObject({ account_id: s.string(), user_id: s.string() });
export const infoSchema = resultObject({
  session_id: s.string(),
  uri: s.string(),
  created_at: s.string(),
  updated_at: s.string(),
  message_count: s.int(),
  total_message_count: s.int(),
  commit_count: s.int(),
  memories_extracted: s.record(s.int()),
  last_commit_at: s.string().describe('ISO 8601; "" before the first commit'),
  llm_token_usage: s.record(s.int()),
  embedding_token_usage: s.record(s.int()),
  user: userSchema,
  pending_tokens: s.int(),
  auto_commit_policy: policySchema.nullable(),
});
export const configSchema = resultObject({ session_id: s.string(), memory_extraction_config: anyObject, auto_commit_policy: policySchema.nullable() });
export const ackSchema = resultObject({ session_id: s.string(), message_count: s.int(), pending_tokens: s.int(), message_id: s.string().optional(), added: s.int().optional() });
export const commitSchema = resultObject({ session_id: s.string(), status: s.string(), task_id: s.string().nullable(), archive_uri: s.string().nullable(), archived: s.bool() });

export function info(meta: SessionMeta, dir: string) {
  return {
    session_id: meta.session_id,
    uri: uriOf(dir),
    created_at: meta.created_at,
    updated_at: meta.updated_at,
    message_count: meta.message_count,
    total_message_count: meta.total_message_count,
    commit_count: meta.commit_count,
    memories_extracted: extractedCounts(meta.memories_extracted),
    // "" before the first commit, as the reference answers (clients compare it as a string).
    last_commit_at: meta.last_commit_at ?? '',
    llm_token_usage: meta.llm_token_usage,
    // The reference's field; commits embed nothing themselves (the indexer embeds memory files).
    embedding_token_usage: { total_tokens: 0 },
    user: meta.user,
    pending_tokens: meta.pending_tokens,
    auto_commit_policy: meta.auto_commit_policy,
  };
}
