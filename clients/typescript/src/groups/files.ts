/** fs (directories, metadata, moves) and content (tiers, writes, downloads). */
import type { Transport } from '../transport.js';
import type { QueryOf, RequestOptions } from '../types.js';
import { toDownload, withBody, withQuery, type Download } from './define.js';

export function fsGroup(t: Transport) {
  return {
    /** Lists a directory (`recursive`, paging, sorting, tags). */
    ls: withQuery(t, 'getFsLs'),
    /** The subtree under a directory. */
    tree: withQuery(t, 'getFsTree'),
    /** One entry's metadata. */
    stat: withQuery(t, 'getFsStat'),
    /** An entry's attributes (tags, access). */
    attrs: withQuery(t, 'getFsAttrs'),
    /** Creates a directory and its parents; an existing one is left as it is. */
    mkdir: withBody(t, 'postFsMkdir', true),
    /** Moves a file or directory. */
    mv: withBody(t, 'postFsMv'),
    /** Deletes a file, or a directory with `recursive: true`. */
    rm: (query: QueryOf<'deleteFs'>, o?: RequestOptions) => t.call('deleteFs', { query, ...o }),
    /** Sets an entry's readers. */
    access: withBody(t, 'postFsAccess', true),
    /** Sets, adds or removes tags. */
    setTags: withBody(t, 'postFsAttrsSetTags'),
  };
}

export function contentGroup(t: Transport) {
  return {
    /** L2: the full content (paged with offset/limit). */
    read: withQuery(t, 'getContentRead'),
    /** L0: the abstract. */
    abstract: withQuery(t, 'getContentAbstract'),
    /** L1: the overview. */
    overview: withQuery(t, 'getContentOverview'),
    /** Writes a file (replace, append, create). */
    write: withBody(t, 'postContentWrite'),
    /** Several writes under one root in one request. */
    batchWrite: withBody(t, 'postContentBatchWrite'),
    /** Recomputes tiers and vectors. */
    reindex: withBody(t, 'postContentReindex'),
    /** Sets, adds or removes tags on content. */
    setTags: withBody(t, 'postContentSetTags'),
    /** A file's raw bytes as a stream. */
    download: async (uri: string, o?: RequestOptions): Promise<Download> => toDownload(await t.send('getContentDownload', { query: { uri }, ...o })),
  };
}
