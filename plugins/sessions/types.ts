/** Shapes of what the sessions plugin stores (spec Part 3 "Message", "Session info"). */

export type Role = 'user' | 'assistant' | 'system';
export const ROLES: readonly Role[] = ['user', 'assistant', 'system'];
export const CONTEXT_TYPES = ['resource', 'memory', 'skill'] as const;
export const TOOL_STATUSES = ['pending', 'running', 'completed', 'error'] as const;

export interface TextPart {
  type: 'text';
  text: string;
}
export interface ContextPart {
  type: 'context';
  uri: string;
  context_type: (typeof CONTEXT_TYPES)[number];
  abstract: string;
}
export interface ToolPart {
  type: 'tool';
  tool_id: string;
  tool_name: string;
  skill_uri: string;
  tool_input: Record<string, unknown> | null;
  tool_output: string;
  tool_status: (typeof TOOL_STATUSES)[number];
}
export type Part = TextPart | ContextPart | ToolPart;

export interface Message {
  id: string;
  role: Role;
  parts: Part[];
  created_at: string;
  peer_id?: string;
  metadata?: Record<string, unknown>;
}

export const MEMORY_CATEGORIES = [
  'profile',
  'preferences',
  'entities',
  'events',
  'identity',
  'soul',
  'cases',
  'patterns',
  'trajectories',
  'experiences',
  'tools',
  'skills',
] as const;
export type MemoryCategory = (typeof MEMORY_CATEGORIES)[number];

export interface AutoCommitPolicy {
  pending_token_threshold: number;
  message_count_threshold: number;
  idle_timeout_seconds: number;
  keep_recent_count: number;
  min_commit_interval_seconds: number;
}

export interface MemoryPolicy {
  self: boolean;
  peer: boolean;
  working_memory: { enabled: boolean };
  /** null: every enabled schema. */
  memory_types: MemoryCategory[] | null;
}

export interface TokenUsage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
}

/** `.meta.json` of a session directory: written in the same atomic batch as the messages it counts. */
export interface SessionMeta {
  session_id: string;
  created_at: string;
  updated_at: string;
  user: { account_id: string; user_id: string };
  /** Live (unarchived) messages. */
  message_count: number;
  total_message_count: number;
  /** Tokens of the live messages. */
  pending_tokens: number;
  commit_count: number;
  last_commit_at: string | null;
  /** Number of the last archive made (`archive_001` is 1). */
  archive_seq: number;
  memories_extracted: Record<string, number>;
  llm_token_usage: TokenUsage;
  auto_commit_policy: AutoCommitPolicy | null;
  memory_policy: MemoryPolicy;
  memory_extraction_config: { events: { tags: string[] } };
  contexts_used: string[];
  skills_used: string[];
  /** URIs recorded by `/used` since the last commit (its `active_count_updated`). */
  used_since_commit: string[];
  last_auto_commit_at: string | null;
}
