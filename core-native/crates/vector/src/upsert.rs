//! Writes: inserting, replacing and removing records, keeping vectors, 8-bit codes, bitmap
//! indexes and BM25 documents in step.
use std::collections::HashMap;

use crate::{kernels, parse_id, Error, Filter, Kind, RecordAttrs, Result, VectorIndex, Vectors, NONE};

impl VectorIndex {
    pub(crate) fn check_vectors(&self, v: &[f32], n: usize) -> Result<()> {
        if v.len() != n * self.dim {
            return Err(Error::InvalidArgument(format!(
                "expected {n} x {} = {} floats, got {}",
                self.dim,
                n * self.dim,
                v.len()
            )));
        }
        if let Some(i) = v.iter().position(|x| !x.is_finite()) {
            return Err(Error::InvalidArgument(format!("vector {} has a non-finite component", i / self.dim)));
        }
        Ok(())
    }

    pub(crate) fn set_code(&mut self, slot: u32, v: &[f32]) {
        let d = self.dim;
        let s = slot as usize;
        if self.scales.len() <= s {
            self.scales.resize(s + 1, 0.0);
            self.codes.resize((s + 1) * d, 0);
        }
        self.scales[s] = kernels::quantize(v, &mut self.codes[s * d..(s + 1) * d]);
    }

    pub(crate) fn kill_slot(&mut self, slot: u32) {
        if slot == NONE {
            return;
        }
        self.touch(self.slot_rec[slot as usize]);
        self.slot_rec[slot as usize] = NONE;
        match self.vectors {
            Vectors::Flat(_) => self.free_slots.push(slot),
            Vectors::Hnsw(_) => self.tombstones += 1,
        }
    }

    /// Inserts or replaces records by id. A record whose vector is unchanged keeps its slot (only
    /// its attributes are re-indexed), so metadata updates never touch the graph.
    pub fn upsert(&mut self, ids: &[&str], vectors: &[f32], attrs: &[RecordAttrs]) -> Result<()> {
        self.upsert_impl(ids, vectors, attrs, true)
    }

    /// Like `upsert`, but never turns the flat store into a graph (a build of seconds): callers on
    /// a latency-sensitive thread use this and leave the conversion to `compact` when
    /// `needs_compaction` says so.
    pub fn upsert_deferred(&mut self, ids: &[&str], vectors: &[f32], attrs: &[RecordAttrs]) -> Result<()> {
        self.upsert_impl(ids, vectors, attrs, false)
    }

    pub(crate) fn upsert_impl(&mut self, ids: &[&str], vectors: &[f32], attrs: &[RecordAttrs], convert: bool) -> Result<()> {
        let n = ids.len();
        if attrs.len() != n {
            return Err(Error::InvalidArgument(format!("{n} ids but {} attrs", attrs.len())));
        }
        self.check_vectors(vectors, n)?;
        let parsed: Vec<u128> = ids.iter().map(|s| parse_id(s)).collect::<Result<_>>()?;
        let d = self.dim;
        // Validate every record before changing anything.
        for a in attrs {
            if a.account.is_empty() || a.level > 2 || a.tags.len() > 1024 {
                self.make_rec(0, a)?;
            }
        }
        let mut pending: Vec<(u32, usize)> = Vec::new(); // (record, row) needing a new graph slot
        for (i, (&id, a)) in parsed.iter().zip(attrs).enumerate() {
            let v = &vectors[i * d..(i + 1) * d];
            let mut rec = self.make_rec(id, a)?;
            let r = match self.by_id.get(&id).copied() {
                Some(r) => {
                    let old = self.recs.get_mut(r as usize).and_then(|x| x.take()).ok_or_else(|| Error::Internal(format!("record {r} of an id is absent")))?;
                    self.unindex_rec(r, &old);
                    rec.doc = old.doc;
                    if old.doc != NONE && old.account != rec.account {
                        self.bm25.set_account(old.doc, rec.account);
                    }
                    let same = old.slot != NONE && self.vector(old.slot) == v;
                    if same {
                        rec.slot = old.slot;
                    } else if let Vectors::Flat(data) = &mut self.vectors {
                        if old.slot != NONE {
                            data[old.slot as usize * d..(old.slot as usize + 1) * d].copy_from_slice(v);
                            rec.slot = old.slot;
                            self.set_code(old.slot, v);
                            self.touch(r);
                        }
                    } else {
                        self.kill_slot(old.slot);
                    }
                    r
                }
                None => {
                    let r = match self.free_recs.pop() {
                        Some(r) => r,
                        None => {
                            self.recs.push(None);
                            (self.recs.len() - 1) as u32
                        }
                    };
                    self.by_id.insert(id, r);
                    self.live += 1;
                    r
                }
            };
            if rec.slot == NONE {
                if let Vectors::Flat(data) = &mut self.vectors {
                    let slot = match self.free_slots.pop() {
                        Some(s) => {
                            data[s as usize * d..(s as usize + 1) * d].copy_from_slice(v);
                            s
                        }
                        None => {
                            if data.capacity() < data.len() + d {
                                // Grow by a quarter instead of doubling: memory stays near 1x.
                                data.reserve_exact((data.len() / 4).max(d * 256));
                            }
                            data.extend_from_slice(v);
                            self.slot_rec.push(NONE);
                            (self.slot_rec.len() - 1) as u32
                        }
                    };
                    self.slot_rec[slot as usize] = r;
                    rec.slot = slot;
                    self.set_code(slot, v);
                    self.touch(r);
                } else {
                    pending.push((r, i));
                }
            }
            self.index_rec(r, &rec);
            self.recs[r as usize] = Some(rec);
        }
        if !pending.is_empty() {
            // A record upserted twice in one call gets only its last row.
            let mut last: HashMap<u32, usize> = HashMap::new();
            for (r, i) in &pending {
                last.insert(*r, *i);
            }
            let mut rows: Vec<(u32, usize)> = last.into_iter().collect();
            rows.sort_by_key(|x| x.1);
            let mut buf = Vec::with_capacity(rows.len() * d);
            for (_, i) in &rows {
                buf.extend_from_slice(&vectors[i * d..(i + 1) * d]);
            }
            let base = self.slot_rec.len() as u32;
            if let Vectors::Hnsw(h) = &mut self.vectors {
                h.add(&buf, self.cfg.build_threads)?;
            }
            for (j, (r, _)) in rows.iter().enumerate() {
                let slot = base + j as u32;
                self.slot_rec.push(*r);
                self.rec_mut(*r)?.slot = slot;
                self.set_code(slot, &buf[j * d..(j + 1) * d]);
                self.touch(*r);
            }
        }
        // A background compaction owns the conversion while it runs.
        if convert && !self.compacting() && self.kind() == Kind::Flat && self.live > self.cfg.flat_threshold {
            self.compact()?;
        }
        Ok(())
    }

    pub(crate) fn remove_rec(&mut self, r: u32) {
        let Some(rec) = self.recs.get_mut(r as usize).and_then(|x| x.take()) else { return };
        self.unindex_rec(r, &rec);
        self.kill_slot(rec.slot);
        if rec.doc != NONE {
            self.bm25.kill(rec.doc);
        }
        self.by_id.remove(&rec.id);
        self.free_recs.push(r);
        self.live -= 1;
    }

    pub fn remove(&mut self, ids: &[&str]) -> Result<usize> {
        let parsed: Vec<u128> = ids.iter().map(|s| parse_id(s)).collect::<Result<_>>()?;
        let mut n = 0;
        for id in parsed {
            if let Some(r) = self.by_id.get(&id).copied() {
                self.remove_rec(r);
                n += 1;
            }
        }
        Ok(n)
    }

    pub fn remove_where(&mut self, f: &Filter) -> usize {
        let c = self.candidates(f);
        for r in c.iter() {
            self.remove_rec(r);
        }
        c.len() as usize
    }
}
