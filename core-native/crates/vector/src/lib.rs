//! ctx-vector: the vector index of ctx. FAISS (through `cpp/shim.cpp`) holds the vectors and, above
//! a size threshold, the HNSW graph; this crate adds what FAISS lacks for a multi-tenant store:
//! string ids, update/remove (tombstones + compaction), a per-record attribute store with bitmap
//! indexes so filters are evaluated inside the core, a query planner choosing between an exact scan
//! of the filtered candidates and a filtered graph walk, BM25 over the same records, hybrid fusion,
//! and an atomic checksummed file format. See docs/vector-index.md for the measured thresholds.
pub mod bm25;
mod compaction;
pub mod error;
#[cfg(feature = "faiss")]
pub mod ffi;
mod filter;
mod hier;
pub mod hnsw;
mod hybrid;
pub mod kernels;
mod persist;
mod search;
mod types;
mod upsert;

pub use compaction::{compaction_build, CompactionBuilt, CompactionChanges, CompactionSnapshot};
pub use hier::{Expansion, HierHit, HierParams, HierPrep, HierResult};
pub use hybrid::{DenseWeight, DENSE_WEIGHT};
pub use persist::{load, save};
pub use types::*;

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use roaring::RoaringBitmap;

pub use error::{Error, Result};

/// The HNSW graph: FAISS's in the native build, the pure-Rust one without the `faiss` feature
/// (the wasm build). Both have the same surface; a saved file tags which one wrote it.
#[cfg(feature = "faiss")]
pub type Graph = ffi::FaissIndex;
#[cfg(not(feature = "faiss"))]
pub type Graph = hnsw::HnswIndex;

/// Threads a parallel step may use. One under WebAssembly: a wasi thread is a Worker, whose
/// start costs more than the work these steps split, and the calling thread must not block on it.
pub fn max_threads() -> usize {
    ctx_core::hash::available_threads()
}

const NONE: u32 = u32::MAX;

/// A record number that an index (bitmap, slot map, id map) holds but the record store does not.
fn missing(r: u32) -> Error {
    Error::Internal(format!("record {r} is indexed but absent"))
}

#[derive(Default)]
pub(crate) struct Interner {
    map: HashMap<Arc<str>, u32>,
    names: Vec<Arc<str>>,
}

impl Interner {
    fn get(&self, s: &str) -> Option<u32> {
        self.map.get(s).copied()
    }
    fn intern(&mut self, s: &str) -> u32 {
        if let Some(&id) = self.map.get(s) {
            return id;
        }
        let id = self.names.len() as u32;
        let a: Arc<str> = Arc::from(s);
        self.map.insert(a.clone(), id);
        self.names.push(a);
        id
    }
    fn name(&self, id: u32) -> &str {
        &self.names[id as usize]
    }
    fn bytes(&self) -> usize {
        self.names.iter().map(|n| n.len() + 16 + 8 + 24).sum()
    }
}

#[derive(Clone)]
pub(crate) struct Rec {
    id: u128,
    slot: u32,
    account: u32,
    owner: u32,
    uri: u32,
    parent: u32,
    ctype: u8,
    level: u8,
    tags: Box<[u32]>,
    created: i64,
    updated: i64,
    peer: u32,
    doc: u32,
}

pub(crate) enum Vectors {
    Flat(Vec<f32>),
    Hnsw(Graph),
}

fn key(a: u32, v: u32) -> u64 {
    ((a as u64) << 32) | v as u64
}


pub struct VectorIndex {
    pub(crate) dim: usize,
    pub(crate) cfg: Config,
    pub(crate) strings: Interner,
    pub(crate) recs: Vec<Option<Rec>>,
    pub(crate) free_recs: Vec<u32>,
    pub(crate) by_id: HashMap<u128, u32>,
    pub(crate) vectors: Vectors,
    /// Vector slot → record (NONE = free or tombstoned).
    pub(crate) slot_rec: Vec<u32>,
    /// Flat store only: reusable slots.
    pub(crate) free_slots: Vec<u32>,
    pub(crate) codes: Vec<i8>,
    pub(crate) scales: Vec<f32>,
    pub(crate) tombstones: usize,
    pub(crate) live: usize,
    by_account: HashMap<u32, RoaringBitmap>,
    by_owner: HashMap<u64, RoaringBitmap>,
    by_ctype: HashMap<u64, RoaringBitmap>,
    by_level: HashMap<u64, RoaringBitmap>,
    by_tag: HashMap<u64, RoaringBitmap>,
    by_peer: HashMap<u64, RoaringBitmap>,
    /// (account, directory uri) → records at or below it (directory records included).
    by_prefix: HashMap<u64, RoaringBitmap>,
    /// (account, uri) → level-2 records with exactly that uri.
    by_leaf_uri: HashMap<u64, Vec<u32>>,
    pub(crate) bm25: bm25::Bm25,
    /// While a background compaction runs: the records whose vector or slot changed since its
    /// snapshot (their slots in the new store are stale and get replaced when it is installed).
    dirty: Option<HashSet<u32>>,
}


impl VectorIndex {
    pub fn new(dim: usize) -> Result<Self> {
        Self::with_config(dim, Config::default())
    }

    pub fn with_config(dim: usize, cfg: Config) -> Result<Self> {
        if dim == 0 || dim > 16_384 {
            return Err(Error::InvalidArgument(format!("dimension must be in 1..=16384, got {dim}")));
        }
        Ok(VectorIndex {
            dim,
            cfg,
            strings: Interner::default(),
            recs: Vec::new(),
            free_recs: Vec::new(),
            by_id: HashMap::new(),
            vectors: Vectors::Flat(Vec::new()),
            slot_rec: Vec::new(),
            free_slots: Vec::new(),
            codes: Vec::new(),
            scales: Vec::new(),
            tombstones: 0,
            live: 0,
            by_account: HashMap::new(),
            by_owner: HashMap::new(),
            by_ctype: HashMap::new(),
            by_level: HashMap::new(),
            by_tag: HashMap::new(),
            by_peer: HashMap::new(),
            by_prefix: HashMap::new(),
            by_leaf_uri: HashMap::new(),
            bm25: bm25::Bm25::default(),
            dirty: None,
        })
    }

    pub fn config(&self) -> &Config {
        &self.cfg
    }

    pub fn set_config(&mut self, cfg: Config) {
        self.cfg = cfg;
    }

    pub fn dim(&self) -> usize {
        self.dim
    }

    pub fn len(&self) -> usize {
        self.live
    }

    pub fn is_empty(&self) -> bool {
        self.live == 0
    }

    pub fn kind(&self) -> Kind {
        match self.vectors {
            Vectors::Flat(_) => Kind::Flat,
            Vectors::Hnsw(_) => Kind::Hnsw,
        }
    }

    #[inline]
    fn all_vectors(&self) -> &[f32] {
        match &self.vectors {
            Vectors::Flat(v) => v,
            Vectors::Hnsw(h) => h.vectors(),
        }
    }

    #[inline]
    fn vector(&self, slot: u32) -> &[f32] {
        let d = self.dim;
        &self.all_vectors()[slot as usize * d..(slot as usize + 1) * d]
    }

    // ---- attributes and bitmap indexes ------------------------------------------------------

    pub fn get(&self, id: &str) -> Result<Option<(RecordAttrs, Vec<f32>)>> {
        let id = parse_id(id)?;
        let Some(&r) = self.by_id.get(&id) else { return Ok(None) };
        let rec = self.rec(r)?;
        Ok(Some((self.attrs_of(rec), self.vector(rec.slot).to_vec())))
    }

    #[inline]
    pub(crate) fn rec(&self, r: u32) -> Result<&Rec> {
        self.recs.get(r as usize).and_then(|x| x.as_ref()).ok_or_else(|| missing(r))
    }

    pub(crate) fn rec_mut(&mut self, r: u32) -> Result<&mut Rec> {
        self.recs.get_mut(r as usize).and_then(|x| x.as_mut()).ok_or_else(|| missing(r))
    }

    // ---- stats ---------------------------------------------------------------------------------

    pub fn stats(&self) -> Stats {
        let (vector_bytes, graph_bytes) = match &self.vectors {
            Vectors::Flat(v) => (v.capacity() * 4, 0),
            Vectors::Hnsw(h) => h.memory(),
        };
        let bitmaps = |m: &HashMap<u64, RoaringBitmap>| m.values().map(|b| b.serialized_size() + 48).sum::<usize>();
        let attr_bytes = self.recs.capacity() * std::mem::size_of::<Option<Rec>>()
            + self.recs.iter().flatten().map(|r| r.tags.len() * 4).sum::<usize>()
            + self.by_id.capacity() * 24
            + self.slot_rec.capacity() * 4
            + self.strings.bytes()
            + self.by_account.values().map(|b| b.serialized_size()).sum::<usize>()
            + bitmaps(&self.by_owner)
            + bitmaps(&self.by_ctype)
            + bitmaps(&self.by_level)
            + bitmaps(&self.by_tag)
            + bitmaps(&self.by_peer)
            + bitmaps(&self.by_prefix)
            + self.by_leaf_uri.capacity() * 40;
        Stats {
            size: self.live,
            dim: self.dim,
            kind: self.kind(),
            vector_bytes,
            code_bytes: self.codes.capacity() + self.scales.capacity() * 4,
            graph_bytes,
            attr_bytes,
            text_bytes: self.bm25.bytes(),
            deleted: self.tombstones,
            text_docs: self.bm25.live_docs as usize,
        }
    }

    /// Rebuilds all bitmap indexes from the records (after loading).
    pub(crate) fn reindex_all(&mut self) {
        let recs: Vec<(u32, Rec)> =
            self.recs.iter().enumerate().filter_map(|(i, r)| r.as_ref().map(|r| (i as u32, r.clone()))).collect();
        for (r, rec) in &recs {
            self.index_rec(*r, rec);
        }
    }
}

#[cfg(test)]
mod tests;
#[cfg(test)]
mod hnsw_tests;
