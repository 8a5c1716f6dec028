export type NodeKind = 'dir' | 'file';

/** What the VFS stores per node (JSON in RocksDB, kept small: listings read one per entry). */
export interface NodeMeta {
  kind: NodeKind;
  size: number;
  mode: number;
  /** Milliseconds since the epoch. */
  mtime: number;
  ctime: number;
  tags?: string[];
  /** Files: `sha256:<hex>` of the content. */
  sha256?: string;
  /** Files: the deterministic 32-hex key of the level-2 vector record. */
  id?: string;
  /** Free-form metadata owned by plugins (memory fields, source info...). */
  meta?: Record<string, unknown>;
}

export interface Entry extends NodeMeta {
  /** Internal path, e.g. `resources/docs/a.md`; '' is the account root. */
  path: string;
  name: string;
}

export type ChangeType = 'write' | 'mkdir' | 'rm' | 'mv' | 'meta';

export interface ChangeEvent {
  type: ChangeType;
  account: string;
  path: string;
  kind: NodeKind;
  /** mv: the old path. */
  from?: string;
  /** rm and mv: every affected path (the subtree), so consumers can update each record. */
  paths?: string[];
  /**
   * Plugin-supplied context travelling with the change: `tags` for the first vector upsert, and
   * `index` (an `IndexHint`) for sidecar writes whose indexing the writer asks for.
   */
  hint?: Record<string, unknown>;
}

/**
 * What a sidecar write asks of the indexer (sidecars are its own output, so it skips them
 * otherwise): `dir-created`, the `.abstract.md` written by a mkdir, index the new directory;
 * `sidecar-edited`, a user's edit of `.abstract.md`/`.overview.md`, rebuild that directory's L0/L1
 * vectors from it; `vectors-only`, on a file write or a meta change (an import with
 * `processing_mode: vectors_only`), embed what changed without generating L0/L1 text. Passed as
 * `hint: { index: ... }` with the write; whoever indexes honours it in
 * the same atomic batch as the write.
 */
export type IndexHint = 'dir-created' | 'sidecar-edited' | 'vectors-only';

export const SIDECARS = new Set(['.abstract.md', '.overview.md', '.relations.json']);
export const DIR_MODE = 0o40755;
export const FILE_MODE = 0o100644;
