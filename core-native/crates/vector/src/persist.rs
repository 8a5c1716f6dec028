//! File format of a saved index (little-endian):
//!
//! ```text
//! "CTXVIDX\x01" u32 version u32 dim u8 kind
//! strings  u32 n, n × (u32 len, bytes)
//! records  u32 slots-of-records, u32 live, live × (u32 rec, u128 id, u32 slot, u32 account,
//!          u32 owner, u32 uri, u32 parent, u8 ctype, u8 level, u16 ntags, ntags × u32, i64 created,
//!          i64 updated, u32 peer, u32 doc)
//! slots    u32 n, n × u32 record (u32::MAX = tombstone/free)
//! bm25     u32 terms, terms × (u32 len, bytes, u32 n, n × (u32 doc, u32 tf)), u32 docs,
//!          docs × (u32 record, u32 length)
//! vectors  flat (kind 0): slots × dim × f32; kind 1: faiss::write_index of the IndexHNSWFlat
//!          (native build); kind 2: the pure-Rust graph (`hnsw.rs`, the build without FAISS)
//! trailer  u64 body length, u32 CRC-32 of the body, "CTXVEND\x01"
//! ```
//!
//! Saving writes `<path>.tmp-<pid>-<n>`, fsyncs it, renames it over `<path>` and fsyncs the
//! directory, so a crash leaves either the old or the new file. Loading verifies the length and
//! the checksum over the whole body before parsing anything; any mismatch is `Corrupt`.
//!
//! A flat file is read by either build. A graph written by the other build is `Incompatible`
//! (its caller rebuilds the index from RocksDB and logs why), never read as something else.
use std::fs::{self, File};
use std::io::{BufReader, BufWriter, Read, Seek, SeekFrom, Write};
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};

use crate::bm25::Bm25;
use crate::error::{Error, Result};
use crate::{Config, Graph, Interner, Rec, VectorIndex, Vectors, NONE};

/// The `kind` byte of a graph written by this build.
const GRAPH_KIND: u8 = if cfg!(feature = "faiss") { 1 } else { 2 };

fn graph_kind_name(kind: u8) -> &'static str {
    match kind {
        1 => "a FAISS HNSW graph (the native core)",
        2 => "a pure-Rust HNSW graph (the core built without FAISS, e.g. wasm)",
        _ => "an unknown vector layout",
    }
}

const MAGIC: &[u8; 8] = b"CTXVIDX\x01";
const END: &[u8; 8] = b"CTXVEND\x01";
// 2: BM25 terms are stemmed (a version-1 file must be rebuilt, not reused).
const VERSION: u32 = 2;
const TRAILER: u64 = 20;

struct HashWriter<W: Write> {
    inner: W,
    crc: crc32fast::Hasher,
    len: u64,
}

impl<W: Write> Write for HashWriter<W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let n = self.inner.write(buf)?;
        self.crc.update(&buf[..n]);
        self.len += n as u64;
        Ok(n)
    }
    fn flush(&mut self) -> std::io::Result<()> {
        self.inner.flush()
    }
}

fn w32<W: Write>(w: &mut W, v: u32) -> std::io::Result<()> {
    w.write_all(&v.to_le_bytes())
}

fn f32_bytes(v: &[f32]) -> &[u8] {
    // SAFETY: f32 has no padding or invalid bit patterns; the slice is reinterpreted read-only.
    unsafe { std::slice::from_raw_parts(v.as_ptr() as *const u8, std::mem::size_of_val(v)) }
}

static TMP_COUNTER: AtomicU64 = AtomicU64::new(0);

/// Tells this process's temporary files from another's: the pid, or under WASI (which has no
/// process ids: `std::process::id` panics there) the clock at first use.
fn process_tag() -> u64 {
    #[cfg(not(target_os = "wasi"))]
    return std::process::id() as u64;
    #[cfg(target_os = "wasi")]
    {
        static TAG: std::sync::OnceLock<u64> = std::sync::OnceLock::new();
        *TAG.get_or_init(|| std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_nanos() as u64 % 1_000_000_007))
    }
}

pub fn save(idx: &VectorIndex, path: &Path) -> Result<()> {
    if let Some(dir) = path.parent() {
        if !dir.as_os_str().is_empty() {
            fs::create_dir_all(dir)?;
        }
    }
    let tmp = path.with_file_name(format!(
        "{}.tmp-{}-{}",
        path.file_name().and_then(|n| n.to_str()).unwrap_or("index"),
        process_tag(),
        TMP_COUNTER.fetch_add(1, Ordering::Relaxed)
    ));
    let result = (|| -> Result<()> {
        let file = File::create(&tmp)?;
        let mut w = HashWriter { inner: BufWriter::with_capacity(1 << 20, file), crc: crc32fast::Hasher::new(), len: 0 };
        write_body(idx, &mut w)?;
        let (len, crc) = (w.len, w.crc.clone().finalize());
        let mut inner = w.inner;
        inner.write_all(&len.to_le_bytes())?;
        inner.write_all(&crc.to_le_bytes())?;
        inner.write_all(END)?;
        let file = inner.into_inner().map_err(|e| Error::Io(e.into_error()))?;
        file.sync_all()?;
        Ok(())
    })();
    if let Err(e) = result {
        let _ = fs::remove_file(&tmp);
        return Err(e);
    }
    if let Err(e) = fs::rename(&tmp, path) {
        let _ = fs::remove_file(&tmp);
        return Err(e.into());
    }
    if let Some(dir) = path.parent() {
        let dir = if dir.as_os_str().is_empty() { Path::new(".") } else { dir };
        if let Ok(d) = File::open(dir) {
            let _ = d.sync_all();
        }
    }
    Ok(())
}

fn write_body<W: Write>(idx: &VectorIndex, w: &mut W) -> Result<()> {
    w.write_all(MAGIC)?;
    w32(w, VERSION)?;
    w32(w, idx.dim as u32)?;
    w.write_all(&[match idx.vectors {
        Vectors::Flat(_) => 0u8,
        Vectors::Hnsw(_) => GRAPH_KIND,
    }])?;
    w32(w, idx.strings.names.len() as u32)?;
    for s in &idx.strings.names {
        w32(w, s.len() as u32)?;
        w.write_all(s.as_bytes())?;
    }
    w32(w, idx.recs.len() as u32)?;
    w32(w, idx.live as u32)?;
    for (i, rec) in idx.recs.iter().enumerate() {
        let Some(r) = rec else { continue };
        let mut b = Vec::with_capacity(80 + r.tags.len() * 4);
        b.extend_from_slice(&(i as u32).to_le_bytes());
        b.extend_from_slice(&r.id.to_le_bytes());
        for v in [r.slot, r.account, r.owner, r.uri, r.parent] {
            b.extend_from_slice(&v.to_le_bytes());
        }
        b.push(r.ctype);
        b.push(r.level);
        b.extend_from_slice(&(r.tags.len() as u16).to_le_bytes());
        for t in r.tags.iter() {
            b.extend_from_slice(&t.to_le_bytes());
        }
        b.extend_from_slice(&r.created.to_le_bytes());
        b.extend_from_slice(&r.updated.to_le_bytes());
        b.extend_from_slice(&r.peer.to_le_bytes());
        b.extend_from_slice(&r.doc.to_le_bytes());
        w.write_all(&b)?;
    }
    w32(w, idx.slot_rec.len() as u32)?;
    let slots: Vec<u8> = idx.slot_rec.iter().flat_map(|s| s.to_le_bytes()).collect();
    w.write_all(&slots)?;
    let bm = &idx.bm25;
    w32(w, bm.term_names.len() as u32)?;
    for (t, p) in bm.term_names.iter().zip(&bm.postings) {
        w32(w, t.len() as u32)?;
        w.write_all(t.as_bytes())?;
        w32(w, p.len() as u32)?;
        let b: Vec<u8> = p.iter().flat_map(|(d, tf)| d.to_le_bytes().into_iter().chain(tf.to_le_bytes())).collect();
        w.write_all(&b)?;
    }
    w32(w, bm.doc_rec.len() as u32)?;
    let b: Vec<u8> =
        bm.doc_rec.iter().zip(&bm.doc_len).flat_map(|(r, l)| r.to_le_bytes().into_iter().chain(l.to_le_bytes())).collect();
    w.write_all(&b)?;
    match &idx.vectors {
        Vectors::Flat(v) => w.write_all(f32_bytes(v))?,
        Vectors::Hnsw(h) => h.write_to(w)?,
    }
    Ok(())
}

struct HashReader<T: Read> {
    inner: T,
    crc: crc32fast::Hasher,
}

impl<T: Read> Read for HashReader<T> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.crc.update(&buf[..n]);
        Ok(n)
    }
}

struct R<T: Read> {
    r: T,
}

fn corrupt(what: &str) -> Error {
    Error::Corrupt(what.to_string())
}

impl<T: Read> R<T> {
    fn bytes(&mut self, n: usize) -> Result<Vec<u8>> {
        let mut b = vec![0u8; n];
        self.r.read_exact(&mut b).map_err(|_| corrupt("truncated body"))?;
        Ok(b)
    }
    fn arr<const N: usize>(&mut self) -> Result<[u8; N]> {
        let mut b = [0u8; N];
        self.r.read_exact(&mut b).map_err(|_| corrupt("truncated body"))?;
        Ok(b)
    }
    fn u32(&mut self) -> Result<u32> {
        Ok(u32::from_le_bytes(self.arr()?))
    }
    fn u8(&mut self) -> Result<u8> {
        Ok(self.arr::<1>()?[0])
    }
    /// A count that must fit in what is left of the file (guards allocations).
    fn count(&mut self, remaining: u64, unit: u64) -> Result<usize> {
        let n = self.u32()? as u64;
        if n.saturating_mul(unit) > remaining {
            return Err(corrupt("count larger than the file"));
        }
        Ok(n as usize)
    }
}

pub fn load(path: &Path) -> Result<VectorIndex> {
    let trace = std::env::var_os("CTX_VECTOR_LOAD_TRACE").is_some();
    let t0 = std::time::Instant::now();
    let mark = |what: &str| {
        if trace {
            eprintln!("ctx-vector load: {what} at {:.2} s", t0.elapsed().as_secs_f64());
        }
    };
    let mut file = File::open(path)?;
    let size = file.metadata()?.len();
    if size < 8 + TRAILER {
        return Err(corrupt(&format!("{} is too short ({size} bytes)", path.display())));
    }
    file.seek(SeekFrom::Start(size - TRAILER))?;
    let mut t = [0u8; TRAILER as usize];
    file.read_exact(&mut t)?;
    if &t[12..20] != END {
        return Err(corrupt("missing end marker (truncated or not a ctx vector index)"));
    }
    let body_len = le_u64(&t[0..8]);
    let want_crc = le_u32(&t[8..12]);
    if body_len != size - TRAILER {
        return Err(corrupt("length in trailer does not match the file"));
    }
    // One pass: the body is hashed while it is parsed, and nothing parsed is used before the
    // checksum matched. Every count is bounded by the file size, so a damaged length cannot
    // trigger a huge allocation first.
    file.seek(SeekFrom::Start(0))?;
    let mut r = R { r: HashReader { inner: BufReader::with_capacity(4 << 20, file.take(body_len)), crc: crc32fast::Hasher::new() } };
    if &r.arr::<8>()? != MAGIC {
        return Err(corrupt("bad magic (not a ctx vector index)"));
    }
    let version = r.u32()?;
    if version != VERSION {
        return Err(Error::Incompatible(format!("format version {version}, expected {VERSION}")));
    }
    let dim = r.u32()? as usize;
    let kind = r.u8()?;
    let mut idx = VectorIndex::with_config(dim, Config::default())?;
    let nstr = r.count(body_len, 4)?;
    let mut strings = Interner::default();
    for _ in 0..nstr {
        let len = r.count(body_len, 1)?;
        let s = String::from_utf8(r.bytes(len)?).map_err(|_| corrupt("string is not UTF-8"))?;
        strings.intern(&s);
    }
    if strings.names.len() != nstr {
        return Err(corrupt("duplicate strings"));
    }
    let nrecs = r.count(body_len, 1)?;
    let live = r.count(body_len, 64)?;
    let mut recs: Vec<Option<Rec>> = vec![None; nrecs];
    let sid = |v: u32| -> Result<u32> { if (v as usize) < nstr { Ok(v) } else { Err(corrupt("string id out of range")) } };
    for _ in 0..live {
        let i = r.u32()? as usize;
        let id = u128::from_le_bytes(r.arr()?);
        let slot = r.u32()?;
        let account = sid(r.u32()?)?;
        let owner = sid(r.u32()?)?;
        let uri = sid(r.u32()?)?;
        let parent = sid(r.u32()?)?;
        let ctype = r.u8()?;
        let level = r.u8()?;
        let ntags = u16::from_le_bytes(r.arr()?) as usize;
        let mut tags = Vec::with_capacity(ntags);
        for _ in 0..ntags {
            tags.push(sid(r.u32()?)?);
        }
        let created = i64::from_le_bytes(r.arr()?);
        let updated = i64::from_le_bytes(r.arr()?);
        let peer = r.u32()?;
        if peer != NONE {
            sid(peer)?;
        }
        let doc = r.u32()?;
        if i >= nrecs || recs[i].is_some() || ctype > 3 || level > 2 {
            return Err(corrupt("bad record"));
        }
        recs[i] = Some(Rec { id, slot, account, owner, uri, parent, ctype, level, tags: tags.into(), created, updated, peer, doc });
    }
    let nslots = r.count(body_len, 4)?;
    let raw = r.bytes(nslots * 4)?;
    let slot_rec: Vec<u32> = raw.chunks_exact(4).map(le_u32).collect();
    let mut bm = Bm25::default();
    let nterms = r.count(body_len, 8)?;
    for _ in 0..nterms {
        let len = r.count(body_len, 1)?;
        let t = String::from_utf8(r.bytes(len)?).map_err(|_| corrupt("term is not UTF-8"))?;
        let np = r.count(body_len, 8)?;
        let raw = r.bytes(np * 8)?;
        let p: Vec<(u32, u32)> = raw
            .chunks_exact(8)
            .map(|c| (le_u32(&c[0..4]), le_u32(&c[4..8])))
            .collect();
        bm.total_postings += p.len() as u64;
        bm.terms.insert(t.as_str().into(), bm.term_names.len() as u32);
        bm.term_names.push(t.into());
        bm.postings.push(p);
    }
    let ndocs = r.count(body_len, 8)?;
    let raw = r.bytes(ndocs * 8)?;
    for c in raw.chunks_exact(8) {
        let rec = le_u32(&c[0..4]);
        let len = le_u32(&c[4..8]);
        bm.doc_rec.push(rec);
        bm.doc_len.push(len);
        if rec != crate::bm25::DEAD {
            bm.live_docs += 1;
            bm.live_len += len as u64;
        }
    }
    if bm.postings.iter().flatten().any(|(d, _)| *d as usize >= ndocs) {
        return Err(corrupt("posting refers to a missing document"));
    }
    mark("records, slots, bm25");
    let vectors = if kind == 0 {
        let mut v = vec![0f32; nslots * dim];
        // SAFETY: any bit pattern is a valid f32; the buffer is exactly nslots*dim floats.
        let bytes = unsafe { std::slice::from_raw_parts_mut(v.as_mut_ptr() as *mut u8, v.len() * 4) };
        r.r.read_exact(bytes).map_err(|_| corrupt("truncated vectors"))?;
        Vectors::Flat(v)
    } else if kind == GRAPH_KIND {
        let h = Graph::read_from(&mut r.r).map_err(|e| Error::Corrupt(format!("HNSW graph: {e}")))?;
        if !graph_is_hnsw(&h) || h.dim() != dim || h.len() != nslots {
            return Err(corrupt("HNSW graph does not match the records"));
        }
        Vectors::Hnsw(h)
    } else {
        return Err(Error::Incompatible(format!(
            "the file holds {}, which this core ({}) cannot read",
            graph_kind_name(kind),
            graph_kind_name(GRAPH_KIND)
        )));
    };
    let mut rest = Vec::new();
    r.r.read_to_end(&mut rest).map_err(|_| corrupt("unreadable body"))?;
    if !rest.is_empty() {
        return Err(corrupt("trailing bytes after the vectors"));
    }
    if r.r.crc.clone().finalize() != want_crc {
        return Err(corrupt("checksum mismatch"));
    }
    mark("vectors + checksum");
    // Cross-check records and slots so a logic error cannot index out of bounds later.
    for (i, rec) in recs.iter().enumerate() {
        if let Some(rec) = rec {
            if rec.slot as usize >= nslots || slot_rec[rec.slot as usize] != i as u32 {
                return Err(corrupt("record and slot tables disagree"));
            }
            if rec.doc != NONE && (rec.doc as usize >= ndocs || bm.doc_rec[rec.doc as usize] != i as u32) {
                return Err(corrupt("record and text tables disagree"));
            }
        }
    }
    for (s, r) in slot_rec.iter().enumerate() {
        if *r != NONE && ((*r as usize) >= nrecs || recs[*r as usize].as_ref().map(|x| x.slot) != Some(s as u32)) {
            return Err(corrupt("slot table refers to a missing record"));
        }
    }
    // The file keeps no per-account BM25 statistics: they follow from each document's record.
    // (A live document no record owns, which saving never writes, counts in no searchable account.)
    bm.rebuild_accounts(|r| recs.get(r as usize).and_then(|x| x.as_ref()).map_or(NONE, |x| x.account));
    mark("bm25 accounts");
    idx.strings = strings;
    idx.live = live;
    idx.by_id = recs.iter().enumerate().filter_map(|(i, r)| r.as_ref().map(|r| (r.id, i as u32))).collect();
    if idx.by_id.len() != live {
        return Err(corrupt("duplicate record ids"));
    }
    idx.free_recs = recs.iter().enumerate().filter(|(_, r)| r.is_none()).map(|(i, _)| i as u32).rev().collect();
    idx.recs = recs;
    match vectors {
        Vectors::Flat(_) => {
            idx.free_slots = slot_rec.iter().enumerate().filter(|(_, r)| **r == NONE).map(|(i, _)| i as u32).collect();
            idx.tombstones = 0;
        }
        Vectors::Hnsw(_) => {
            idx.tombstones = slot_rec.iter().filter(|r| **r == NONE).count();
        }
    }
    idx.slot_rec = slot_rec;
    idx.vectors = vectors;
    idx.bm25 = bm;
    mark("tables");
    idx.recompute_codes();
    mark("codes");
    idx.reindex_all();
    mark("bitmaps");
    Ok(idx)
}

/// Little-endian integers from slices the caller cut to length (`chunks_exact`, fixed ranges).
fn le_u32(b: &[u8]) -> u32 {
    u32::from_le_bytes([b[0], b[1], b[2], b[3]])
}

fn le_u64(b: &[u8]) -> u64 {
    u64::from_le_bytes([b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7]])
}

#[cfg(feature = "faiss")]
fn graph_is_hnsw(h: &Graph) -> bool {
    h.kind() == crate::ffi::FaissKind::Hnsw
}

#[cfg(not(feature = "faiss"))]
fn graph_is_hnsw(_: &Graph) -> bool {
    true
}
