/** `ctx://` URIs: parse and canonicalize, build and compare, authorize. Rules and choices: README.md. */
export type { Access, ContextType, CtxUri, ParseOptions, Scope, UserSpace } from './types.js';
export { parseUri, SCHEME } from './parse.js';
export { joinUri, isAncestorOrSelf, relativePath, rootUriOf, spaceRootDepth, uriFromPath } from './paths.js';
export { authorize, canRead } from './authorize.js';
export { isRecordId, isValidId, RESERVED_IDS } from './ids.js';
export { MAX_SEGMENT_BYTES, MAX_URI_BYTES } from './segments.js';
