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
  /** Plugin-supplied context travelling with the change (e.g. tags for the first vector upsert). */
  hint?: Record<string, unknown>;
}

export const SIDECARS = new Set(['.abstract.md', '.overview.md', '.relations.json']);
export const DIR_MODE = 0o40755;
export const FILE_MODE = 0o100644;
