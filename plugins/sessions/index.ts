/**
 * Sessions plugin (spec Part 3 "Sessions", "Session info", "Auto-commit policy", "Message"):
 * conversations stored under `ctx://user/{user}/sessions/{id}/`, context assembly within a token
 * budget, and commits that archive messages and extract long-term memories. README.md has the
 * details.
 */
import { definePlugin, HOST_VERSION, isValidId, type Identity } from 'ctx/plugin';
import { messageText } from './messages.js';
import { sessionDir } from './store.js';
import { createSessionsKit, type SessionsOptions } from './kit.js';
import { registerSessionRoutes } from './session-routes.js';
import { registerMessageRoutes } from './message-routes.js';
import { registerArchiveRoutes } from './archive-routes.js';

export type { SessionsOptions } from './kit.js';

export interface SessionsService {
  /** The last `n` messages of a session as text, or null when the caller has no such session. */
  recentText(identity: Identity, sessionId: string, n: number): Promise<string[] | null>;
}

declare module 'ctx/plugin' {
  interface Services {
    sessions: SessionsService;
  }
}

export const createSessionsPlugin = (opts: SessionsOptions = {}) => definePlugin({
  name: 'sessions',
  version: HOST_VERSION,
  dependsOn: ['tasks'],
  // Every session file is read and written through its owner's scoped view; a message append and
  // a commit are each ONE atomic batch (writeFiles) under a tree lock on the session directory.
  privileges: ['owner-views'],
  privilegeReasons: { 'owner-views': "idle auto-commit archives a session for its owner in the background, with no request: it reads and writes as that user" },
  setup(host) {
    const kit = createSessionsKit(host, opts);
    const { store } = kit;
    host.provide('sessions', {
      async recentText(identity, sessionId, n) {
        if (!isValidId(sessionId)) return null;
        const dir = sessionDir(identity.userId, sessionId);
        if (!(await store.meta(identity.accountId, dir))) return null;
        return (await store.live(identity.accountId, dir)).slice(-n).map(messageText).filter(Boolean);
      },
    } satisfies SessionsService);

    registerSessionRoutes(host, kit);
    registerMessageRoutes(host, kit);
    registerArchiveRoutes(host, kit);
  },
});

export default createSessionsPlugin();
