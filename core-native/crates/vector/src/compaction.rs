//! Compaction: rebuilding the vector store without tombstones (and turning a flat store that
//! outgrew its threshold into a graph), either in one call or in phases that leave the index
//! usable while the expensive build runs.
use std::collections::{HashMap, HashSet};

use crate::Graph;
use crate::{kernels, Config, Error, Kind, Result, VectorIndex, Vectors, NONE};

/// The live vectors copied out of the index for a background compaction.
pub struct CompactionSnapshot {
    dim: usize,
    cfg: Config,
    to_hnsw: bool,
    /// Records in the order of `data` rows (their new slots).
    order: Vec<u32>,
    data: Vec<f32>,
}

/// A vector store built from a snapshot without holding the index, ready to be installed.
pub struct CompactionBuilt {
    /// New row → record.
    order: Vec<u32>,
    vectors: Vectors,
    codes: Vec<i8>,
    scales: Vec<f32>,
    /// Rows whose record changed after the row was written (tombstones once installed).
    stale: Vec<bool>,
    /// Record → its newest row.
    row_of: HashMap<u32, u32>,
    build_threads: usize,
}

/// Records changed since the previous call, with their current vectors (`None`: removed).
pub type CompactionChanges = Vec<(u32, Option<Vec<f32>>)>;

impl CompactionBuilt {
    /// Catches up with changes made while it was built, without holding the index: the changed
    /// records' rows become stale and their current vectors are appended.
    pub fn apply(&mut self, changes: CompactionChanges) -> Result<()> {
        for (r, _) in &changes {
            if let Some(&row) = self.row_of.get(r) {
                self.stale[row as usize] = true;
            }
        }
        let live: Vec<(u32, Vec<f32>)> = changes.into_iter().filter_map(|(r, v)| v.map(|v| (r, v))).collect();
        if live.is_empty() {
            return Ok(());
        }
        let d = live[0].1.len();
        let mut buf = Vec::with_capacity(live.len() * d);
        for (_, v) in &live {
            buf.extend_from_slice(v);
        }
        match &mut self.vectors {
            Vectors::Hnsw(h) => h.add(&buf, self.build_threads)?,
            Vectors::Flat(data) => data.extend_from_slice(&buf),
        }
        let (c, sc) = quantize_all(&buf, d);
        self.codes.extend_from_slice(&c);
        self.scales.extend_from_slice(&sc);
        for (r, _) in live {
            self.row_of.insert(r, self.order.len() as u32);
            self.order.push(r);
            self.stale.push(false);
        }
        Ok(())
    }

    /// Rows appended by catch-ups so far.
    pub fn caught_up(&self) -> usize {
        self.stale.len()
    }
}

/// Phase 2 of a background compaction: the expensive part (the HNSW graph build, the 8-bit
/// codes), run while searches and updates go on against the old store.
pub fn compaction_build(s: CompactionSnapshot) -> Result<CompactionBuilt> {
    let d = s.dim;
    let (codes, scales) = quantize_all(&s.data, d);
    let vectors = if s.to_hnsw {
        let mut h = Graph::new_hnsw(d, s.cfg.hnsw_m, s.cfg.ef_construction, s.cfg.ef_search)?;
        h.add(&s.data, s.cfg.build_threads)?;
        h.shrink_to_fit()?;
        Vectors::Hnsw(h)
    } else {
        Vectors::Flat(s.data)
    };
    let row_of = s.order.iter().enumerate().map(|(i, r)| (*r, i as u32)).collect();
    let stale = vec![false; s.order.len()];
    Ok(CompactionBuilt { order: s.order, vectors, codes, scales, stale, row_of, build_threads: s.cfg.build_threads })
}

/// 8-bit codes and scales of every row of `all`, on all cores.
fn quantize_all(all: &[f32], d: usize) -> (Vec<i8>, Vec<f32>) {
    let n = all.len() / d;
    let mut codes = vec![0i8; n * d];
    let mut scales = vec![0f32; n];
    let threads = crate::max_threads().min(8);
    let per = n.div_ceil(threads).max(1);
    std::thread::scope(|s| {
        for ((cs, ss), start) in codes.chunks_mut(per * d).zip(scales.chunks_mut(per)).zip((0..n).step_by(per)) {
            s.spawn(move || {
                for (j, sc) in ss.iter_mut().enumerate() {
                    let v = &all[(start + j) * d..(start + j + 1) * d];
                    *sc = kernels::quantize(v, &mut cs[j * d..(j + 1) * d]);
                }
            });
        }
    });
    (codes, scales)
}

impl VectorIndex {
    /// True when tombstones are a quarter of the graph (`compact` then pays for itself), or when a
    /// flat store grew past the threshold through `upsert_deferred`.
    pub fn needs_compaction(&self) -> bool {
        !self.compacting()
            && ((self.tombstones > 1000 && self.tombstones * 4 > self.slot_rec.len())
                || (self.kind() == Kind::Flat && self.live > self.cfg.flat_threshold))
    }

    /// Drops tombstones by rebuilding the vector store from live records (HNSW: a new graph; a
    /// collection that shrank below half the flat threshold goes back to flat).
    pub fn compact(&mut self) -> Result<()> {
        // The background phases run back to back: one rebuild path for both.
        if self.compacting() {
            return Err(Error::InvalidArgument("a background compaction is running".into()));
        }
        self.compaction_begin()?;
        let done = self.compaction_snapshot().and_then(compaction_build).and_then(|b| self.compaction_finish(b));
        if done.is_err() {
            self.compaction_abort();
        }
        done
    }

    pub(crate) fn recompute_codes(&mut self) {
        let (codes, scales) = quantize_all(self.all_vectors(), self.dim);
        self.codes = codes;
        self.scales = scales;
    }

    // ---- background compaction ---------------------------------------------------------------
    //
    // `compact` holds the index for the whole rebuild (seconds to minutes with a graph). The
    // background variant splits it so searches and updates only wait for the two short ends:
    // 1. `compaction_begin` (exclusive, instant): start recording which records' vectors change;
    // 2. `compaction_snapshot` (shared): copy the live vectors in slot order;
    // 3. `compaction_build` (no access to the index): build the graph and the codes;
    // 4. `compaction_finish` (exclusive): append the current vectors of the records changed
    //    meanwhile, tombstone their stale rows, and swap the new store in.

    /// True while a background compaction is between `compaction_begin` and its finish/abort.
    pub fn compacting(&self) -> bool {
        self.dirty.is_some()
    }

    pub fn compaction_begin(&mut self) -> Result<()> {
        if self.dirty.is_some() {
            return Err(Error::InvalidArgument("a compaction is already running".into()));
        }
        self.dirty = Some(HashSet::new());
        Ok(())
    }

    pub fn compaction_snapshot(&self) -> Result<CompactionSnapshot> {
        let d = self.dim;
        let to_hnsw = self.live > self.cfg.flat_threshold / 2 && self.kind() == Kind::Hnsw || self.live > self.cfg.flat_threshold;
        let mut order = Vec::with_capacity(self.live);
        for &r in self.slot_rec.iter().filter(|r| **r != NONE) {
            order.push((self.rec(r)?.slot, r));
        }
        order.sort_unstable();
        let mut data = Vec::with_capacity(order.len() * d);
        for &(slot, _) in &order {
            data.extend_from_slice(self.vector(slot));
        }
        let order = order.into_iter().map(|(_, r)| r).collect();
        Ok(CompactionSnapshot { dim: d, cfg: self.cfg.clone(), to_hnsw, order, data })
    }

    pub fn compaction_abort(&mut self) {
        self.dirty = None;
    }

    /// Phase 3 (exclusive, brief): the records changed since the snapshot or the previous call,
    /// with their current vectors; tracking goes on. The caller applies them to the new store
    /// without holding the index, so the final exclusive step only has the last few to add.
    pub fn compaction_changes(&mut self) -> CompactionChanges {
        let Some(dirty) = self.dirty.as_mut() else { return Vec::new() };
        let mut changed: Vec<u32> = std::mem::take(dirty).into_iter().collect();
        changed.sort_unstable();
        changed
            .into_iter()
            .map(|r| {
                let v = self.recs.get(r as usize).and_then(|x| x.as_ref()).filter(|rec| rec.slot != NONE).map(|rec| self.vector(rec.slot).to_vec());
                (r, v)
            })
            .collect()
    }

    /// Phase 4 (exclusive): apply the last changes and install the new store.
    pub fn compaction_finish(&mut self, mut built: CompactionBuilt) -> Result<()> {
        let last = self.compaction_changes();
        built.apply(last)?;
        self.dirty = None;
        // Nothing can fail from here on: install.
        let CompactionBuilt { mut order, vectors, codes, scales, stale, .. } = built;
        let flat = matches!(vectors, Vectors::Flat(_));
        let mut dead = Vec::new();
        for (row, r) in order.iter_mut().enumerate() {
            if stale[row] {
                *r = NONE;
                dead.push(row as u32);
            } else if let Some(rec) = self.recs.get_mut(*r as usize).and_then(|x| x.as_mut()) {
                rec.slot = row as u32;
            } else {
                // Cannot happen (a removed record is a change, so its row is stale); a row nobody
                // owns is a tombstone rather than a reason to fail halfway through the install.
                *r = NONE;
                dead.push(row as u32);
            }
        }
        self.vectors = vectors;
        self.slot_rec = order;
        self.codes = codes;
        self.scales = scales;
        if flat {
            self.free_slots = dead;
            self.tombstones = 0;
        } else {
            self.free_slots.clear();
            self.tombstones = dead.len();
        }
        self.bm25.compact();
        Ok(())
    }

    pub(crate) fn touch(&mut self, r: u32) {
        if let Some(d) = &mut self.dirty {
            d.insert(r);
        }
    }
}
