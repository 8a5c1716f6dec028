export type Role = 'ROOT' | 'ADMIN' | 'USER';

/** Who a request acts as. Resolved once per request by the auth layer; plugins never read auth headers. */
export interface Identity {
  accountId: string;
  userId: string;
  role: Role;
  /** Request-level peer view from `X-Ctx-Actor-Peer`, when set. */
  actorPeerId?: string;
  /**
   * Set (equal to `actorPeerId`) only when the peer view came from a legacy 0.3.x `agent_id`
   * (`X-Ctx-Agent`, or `agent_id` in a find/search/message body): legacy mode, where find and search
   * also read the unmigrated `ctx://agent/{agent_id}` data (spec Part 1, "Runtime compatibility").
   */
  legacyAgentId?: string;
}

/** Account, user, peer, skill and session ids: one safe segment, no separators or dots-only names. */
export const ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_.@-]{0,127}$/;
