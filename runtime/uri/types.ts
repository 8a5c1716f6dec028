/** The shapes every `ctx://` consumer sees (spec Part 1, "URIs"). See README.md for the rules. */

export type Scope = 'root' | 'resources' | 'user' | 'agent';
export type ContextType = 'resource' | 'memory' | 'skill' | 'session';
/** The second level below `ctx://user/{user_id}/`. */
export type UserSpace = 'memories' | 'resources' | 'skills' | 'sessions' | 'peers';
export type Access = 'read' | 'write';

export interface CtxUri {
  /** Canonical form: `ctx://resources/a/b.md`, `ctx://user/u1/memories`, `ctx://` for the root; no trailing slash except the root. */
  uri: string;
  /** Storage path without the scheme: `resources/a/b.md`, `''` for the root. */
  path: string;
  /** `path` split on '/'; `[]` for the root. */
  segments: string[];
  scope: Scope;
  /** For `user/{u}/...`. */
  userId?: string;
  /** The user space (`user/{u}/{space}/...`). */
  space?: UserSpace;
  /** For `user/{u}/peers/{p}/...`. */
  peerId?: string;
  /** For `agent/{agent_id}/...` (legacy namespace; the id maps to a peer id). */
  agentId?: string;
  /** For `.../skills/{skill}/...`. */
  skillName?: string;
  /** For `user/{u}/sessions/{s}/...`. */
  sessionId?: string;
  /** `null` for containers: root, `user`, `user/{u}`, `user/{u}/peers`, `user/{u}/peers/{p}`, `agent`, `agent/{a}`. */
  contextType: ContextType | null;
  /** The legacy agent namespace and the `ctx://session` alias. */
  readOnly: boolean;
  /** The original spelling (normalized) when `ctx://~` or `ctx://session` was expanded. */
  aliasOf?: string;
  /** Last segment; `''` for the root. */
  name: string;
  /** Canonical parent URI; `null` for the root. */
  parent: string | null;
}

export interface ParseOptions {
  /** Request field named in errors (`details.field`); default `'uri'`. */
  field?: string;
}
