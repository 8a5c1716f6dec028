/**
 * Legacy 0.3.x clients (spec Part 1, "Runtime compatibility without migration"): an `agent_id`
 * (the `X-Ctx-Agent` header, resolved by the runtime, or `agent_id` in a find/search body as a
 * 0.4.0 client configured with `agent_id` sends it) is the actor peer, and makes find and search
 * read the unmigrated `ctx://agent/{agent_id}` data next to the new peer data.
 */
import { invalidArgument, isValidId } from 'ctx/plugin';
import type { Identity } from 'ctx/plugin';
import type { VectorFilter } from './backends.js';

export interface LegacyFields {
  agent_id?: string;
  peer_id?: unknown;
}

/** The identity a find or search runs as, after its body's legacy fields; 400 for the refused ones. */
export function legacyIdentity(identity: Identity, body: LegacyFields): Identity {
  if (body.peer_id !== undefined)
    throw invalidArgument('peer_id is not supported by find and search: set the peer view with actor_peer_id (the X-Ctx-Actor-Peer header)', { field: 'peer_id' });
  const agent = body.agent_id;
  if (agent === undefined || agent === '') return identity;
  if (!isValidId(agent)) throw invalidArgument(`agent_id is not a valid id: ${JSON.stringify(agent)}`, { field: 'agent_id' });
  if (identity.legacyAgentId === agent) return identity;
  // A client configured with agent_id sends it as its actor peer too; any other peer view is both.
  if (identity.actorPeerId && identity.actorPeerId !== agent)
    throw invalidArgument(`actor_peer_id (${identity.actorPeerId}) and the legacy agent_id (${agent}) cannot be used together: configure one of them`, { field: 'agent_id' });
  return { ...identity, actorPeerId: agent, legacyAgentId: agent };
}

/**
 * In legacy mode, a find over the default scope also reads `ctx://agent/{agent_id}`: one more
 * alternative per filter that the request did not narrow to other URIs. The agent namespace is the
 * account's shared legacy data (readable by any user whose peer view is that agent), so no owner
 * space applies to it; the per-entry read check of the results still runs.
 */
export function legacyAgentFilters(identity: Identity, nav: VectorFilter, filters: VectorFilter[]): { navs: VectorFilter[]; filters: VectorFilter[] } {
  const agent = identity.legacyAgentId;
  if (!agent) return { navs: [], filters: [] };
  const prefixes = [`ctx://agent/${agent}`];
  const defaults = JSON.stringify(nav.uriPrefixes ?? null);
  const out: VectorFilter[] = [];
  for (const f of filters) {
    if (JSON.stringify(f.uriPrefixes ?? null) !== defaults || f.peer !== undefined) continue;
    const { ownerSpaces: _o, excludeUriPrefixes: _e, ...rest } = f;
    out.push({ ...rest, uriPrefixes: prefixes });
  }
  return { navs: out.length ? [{ account: nav.account, uriPrefixes: prefixes }] : [], filters: out };
}
