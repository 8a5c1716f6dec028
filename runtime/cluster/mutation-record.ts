/**
 * The mutation record (docs/scale-out.md, "What a mutation record holds"): one `Kv.batch` of a
 * shard as the bytes appended to its stream. Binary, not JSON: values are file contents and
 * vectors, and base64 would cost a third more on the wire and a copy on both ends.
 *
 *   u8 version (1) · u32 header length · header JSON {node, txn, chunk, chunks}
 *   then per op: u8 (0 put, 1 del) · u32 key length · key (UTF-8) · [u32 value length · value]
 *
 * A batch larger than the NATS message limit is split into chunks of the same `txn`; a replica
 * applies the transaction only with its last chunk, so a leader dying between chunks leaves
 * nothing half-applied.
 */
import type { KvOp } from '../storage/backend.js';

export const RECORD_VERSION = 1;

export interface RecordHeader {
  node: string;
  /** Unique per transaction (node id + counter): chunks of one batch share it. */
  txn: string;
  chunk: number;
  chunks: number;
}

export interface DecodedRecord {
  header: RecordHeader;
  ops: KvOp[];
}

function opSize(op: KvOp): number {
  return 1 + 4 + Buffer.byteLength(op.key) + (op.type === 'put' ? 4 + (op.value?.length ?? 0) : 0);
}

function encodeOne(header: RecordHeader, ops: KvOp[], size: number): Buffer {
  const head = Buffer.from(JSON.stringify(header));
  const out = Buffer.allocUnsafe(1 + 4 + head.length + size);
  let o = out.writeUInt8(RECORD_VERSION, 0);
  o = out.writeUInt32BE(head.length, o);
  o += head.copy(out, o);
  for (const op of ops) {
    o = out.writeUInt8(op.type === 'put' ? 0 : 1, o);
    const klen = out.write(op.key, o + 4);
    o = out.writeUInt32BE(klen, o) + klen;
    if (op.type === 'put') {
      const v = op.value ?? Buffer.alloc(0);
      o = out.writeUInt32BE(v.length, o);
      o += v.copy(out, o);
    }
  }
  return out;
}

/**
 * The chunks of one batch, each at most `maxBytes` (one op larger than that still gets a chunk
 * of its own: the publish then fails with the server's own limit, never silently).
 */
export function encodeRecord(node: string, txn: string, ops: KvOp[], maxBytes: number): Buffer[] {
  const groups: { ops: KvOp[]; size: number }[] = [];
  let cur = { ops: [] as KvOp[], size: 0 };
  // Room for the header JSON of a chunk.
  const budget = Math.max(1024, maxBytes - 256);
  for (const op of ops) {
    const n = opSize(op);
    if (cur.ops.length > 0 && cur.size + n > budget) {
      groups.push(cur);
      cur = { ops: [], size: 0 };
    }
    cur.ops.push(op);
    cur.size += n;
  }
  groups.push(cur);
  return groups.map((g, i) => encodeOne({ node, txn, chunk: i + 1, chunks: groups.length }, g.ops, g.size));
}

/** The header alone (a leader's own records come back through its consumer: their ops it has). */
export function decodeHeader(buf: Uint8Array): RecordHeader {
  const b = Buffer.from(buf.buffer, buf.byteOffset, buf.byteLength);
  if (b.length < 5 || b.readUInt8(0) !== RECORD_VERSION) throw new Error(`not a version-${RECORD_VERSION} mutation record`);
  const o = 5 + b.readUInt32BE(1);
  if (o > b.length) throw new Error('truncated mutation record header');
  return JSON.parse(b.subarray(5, o).toString('utf8')) as RecordHeader;
}

export function decodeRecord(buf: Uint8Array): DecodedRecord {
  const b = Buffer.from(buf.buffer, buf.byteOffset, buf.byteLength);
  const header = decodeHeader(b);
  let o = 5 + b.readUInt32BE(1);
  const ops: KvOp[] = [];
  while (o < b.length) {
    const t = b.readUInt8(o);
    const klen = b.readUInt32BE(o + 1);
    const key = b.subarray(o + 5, o + 5 + klen).toString('utf8');
    o += 5 + klen;
    if (t === 0) {
      const vlen = b.readUInt32BE(o);
      // A copy: the message buffer is the client's and may be reused.
      ops.push({ type: 'put', key, value: Buffer.from(b.subarray(o + 4, o + 4 + vlen)) });
      o += 4 + vlen;
    } else if (t === 1) ops.push({ type: 'del', key });
    else throw new Error(`unknown op type ${t} in mutation record`);
  }
  if (o !== b.length) throw new Error('truncated mutation record');
  return { header, ops };
}
