/** Retrieval (find, search, grep, glob), code navigation and relations. */
import type { Transport } from '../transport.js';
import type { BodyOf, RequestOptions } from '../types.js';
import { withBody, withQuery } from './define.js';

export function searchGroup(t: Transport) {
  return {
    /** Vector + lexical retrieval over stored contexts. */
    find: withBody(t, 'postSearchFind', true),
    /** find with session context (intent analysis). */
    search: withBody(t, 'postSearchSearch', true),
    /** Regular-expression search over content. */
    grep: withBody(t, 'postSearchGrep', true),
    /** Glob over URIs. */
    glob: withBody(t, 'postSearchGlob', true),
  };
}

export function codeGroup(t: Transport) {
  return {
    /** Symbols of a source file or directory. */
    outline: withBody(t, 'postCodeOutline', true),
    /** Symbol search. */
    search: withBody(t, 'postCodeSearch', true),
    /** A symbol's full source. */
    expand: withBody(t, 'postCodeExpand', true),
  };
}

export function relationsGroup(t: Transport) {
  return {
    /** Relations of a URI. */
    list: withQuery(t, 'getRelations'),
    /** Links one URI to others. */
    link: withBody(t, 'postRelationsLink'),
    /** Removes a link. */
    unlink: (body: BodyOf<'deleteRelationsLink'>, o?: RequestOptions) => t.call('deleteRelationsLink', { body, ...o }),
    /** Builds a relation graph over spaces. */
    buildGraph: withBody(t, 'postRelationsBuildGraph'),
  };
}
