//! A pure-Rust HNSW graph (inner product) for builds without FAISS: the WebAssembly core, where
//! FAISS (C++ with BLAS and OpenMP) cannot go. It has the surface of `ffi::FaissIndex` that the
//! index uses (sequential labels, vectors contiguous in label order, one filtered walk per query
//! with a visit budget), so `VectorIndex` is the same code over either graph.
//!
//! Not a crate: the ones on crates.io own their vector storage (we read vectors by slot from it)
//! and their file formats (ours is a section of the checksummed index file), and none takes a
//! per-query admission callback that leaves the walk itself unfiltered.
//!
//! Layout: level-0 neighbour lists of `2m` ids per node in one array, upper levels `m` ids per
//! level in a per-node box (only ~1/m of the nodes have one); `NIL` pads a short list.
use std::cell::RefCell;
use std::cmp::{Ordering, Reverse};
use std::collections::BinaryHeap;
use std::io::{Read, Write};

use crate::error::{Error, Result};
use crate::kernels;

const NIL: u32 = u32::MAX;
const MAGIC: &[u8; 8] = b"CTXHNSW1";

#[derive(Clone, Copy, PartialEq, Debug)]
struct Scored(f32, u32);
impl Eq for Scored {}
impl Ord for Scored {
    fn cmp(&self, o: &Self) -> Ordering {
        self.0.total_cmp(&o.0).then_with(|| o.1.cmp(&self.1))
    }
}
impl PartialOrd for Scored {
    fn partial_cmp(&self, o: &Self) -> Option<Ordering> {
        Some(self.cmp(o))
    }
}

/// Epoch-stamped visited marks, one set per thread, reused across queries.
struct Visited {
    mark: Vec<u32>,
    epoch: u32,
}

impl Visited {
    fn prepare(&mut self, n: usize) {
        if self.mark.len() < n {
            self.mark.resize(n, 0);
        }
        self.epoch = self.epoch.wrapping_add(1);
        if self.epoch == 0 {
            self.mark.iter_mut().for_each(|m| *m = 0);
            self.epoch = 1;
        }
    }
    /// True when `v` was already seen (and marks it).
    #[inline]
    fn seen(&mut self, v: u32) -> bool {
        let m = &mut self.mark[v as usize];
        if *m == self.epoch {
            return true;
        }
        *m = self.epoch;
        false
    }
}

thread_local! {
    static VISITED: RefCell<Visited> = const { RefCell::new(Visited { mark: Vec::new(), epoch: 0 }) };
}

pub struct HnswIndex {
    dim: usize,
    m: usize,
    ef_construction: usize,
    ef_search: usize,
    data: Vec<f32>,
    levels: Vec<u8>,
    base: Vec<u32>,
    upper: Vec<Box<[u32]>>,
    entry: u32,
    max_level: usize,
}

/// One node's neighbour candidates per level (0..=its top level searched), found read-only.
type Found = Vec<Vec<Scored>>;

fn splitmix(mut x: u64) -> u64 {
    x = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    x = (x ^ (x >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    x ^ (x >> 31)
}

impl HnswIndex {
    pub fn new_hnsw(dim: usize, m: usize, ef_construction: usize, ef_search: usize) -> Result<Self> {
        if dim == 0 || m < 2 || m > 256 {
            return Err(Error::InvalidArgument(format!("bad HNSW parameters: dim {dim}, m {m}")));
        }
        Ok(HnswIndex {
            dim,
            m,
            ef_construction: ef_construction.max(1),
            ef_search: ef_search.max(1),
            data: Vec::new(),
            levels: Vec::new(),
            base: Vec::new(),
            upper: Vec::new(),
            entry: NIL,
            max_level: 0,
        })
    }

    pub fn dim(&self) -> usize {
        self.dim
    }
    pub fn len(&self) -> usize {
        self.levels.len()
    }
    pub fn is_empty(&self) -> bool {
        self.levels.is_empty()
    }
    pub fn vectors(&self) -> &[f32] {
        &self.data
    }
    pub fn ef_search(&self) -> usize {
        self.ef_search
    }
    pub fn set_ef_search(&mut self, ef: usize) -> Result<()> {
        self.ef_search = ef.max(1);
        Ok(())
    }
    pub fn memory(&self) -> (usize, usize) {
        let graph = self.base.capacity() * 4 + self.levels.capacity() + self.upper.iter().map(|u| u.len() * 4 + 16).sum::<usize>();
        (self.data.capacity() * 4, graph)
    }
    pub fn shrink_to_fit(&mut self) -> Result<()> {
        self.data.shrink_to_fit();
        self.base.shrink_to_fit();
        self.levels.shrink_to_fit();
        self.upper.shrink_to_fit();
        Ok(())
    }

    #[inline]
    fn vec(&self, v: u32) -> &[f32] {
        &self.data[v as usize * self.dim..(v as usize + 1) * self.dim]
    }
    #[inline]
    fn cap(&self, level: usize) -> usize {
        if level == 0 {
            2 * self.m
        } else {
            self.m
        }
    }
    #[inline]
    fn neigh(&self, v: u32, level: usize) -> &[u32] {
        let list = if level == 0 {
            let c = 2 * self.m;
            &self.base[v as usize * c..(v as usize + 1) * c]
        } else {
            &self.upper[v as usize][(level - 1) * self.m..level * self.m]
        };
        let n = list.iter().position(|x| *x == NIL).unwrap_or(list.len());
        &list[..n]
    }
    fn set_neigh(&mut self, v: u32, level: usize, ids: &[u32]) {
        let list = if level == 0 {
            let c = 2 * self.m;
            &mut self.base[v as usize * c..(v as usize + 1) * c]
        } else {
            &mut self.upper[v as usize][(level - 1) * self.m..level * self.m]
        };
        list.fill(NIL);
        list[..ids.len()].copy_from_slice(ids);
    }

    /// Level of node `i`: geometric with ratio 1/m, from a hash of the label so builds repeat.
    fn draw_level(&self, i: usize) -> usize {
        let u = ((splitmix(i as u64) >> 11) as f64 + 0.5) / (1u64 << 53) as f64;
        ((-u.ln()) / (self.m as f64).ln()).floor().min(32.0) as usize
    }

    /// Appends `x.len() / dim` vectors. Nodes are inserted in batches searched in parallel
    /// against the graph as it stood (then linked one by one); `threads == 0` uses every core, and
    /// small graphs are built one node at a time, where batching would cost recall.
    pub fn add(&mut self, x: &[f32], threads: usize) -> Result<()> {
        let d = self.dim;
        if x.len() % d != 0 {
            return Err(Error::InvalidArgument(format!("vector data length {} is not a multiple of {d}", x.len())));
        }
        let n_new = x.len() / d;
        let start = self.len();
        if start + n_new >= NIL as usize {
            return Err(Error::InvalidArgument("too many vectors for one graph".into()));
        }
        self.data.extend_from_slice(x);
        self.base.resize((start + n_new) * 2 * self.m, NIL);
        for i in start..start + n_new {
            let l = self.draw_level(i);
            self.levels.push(l as u8);
            self.upper.push(vec![NIL; l * self.m].into_boxed_slice());
        }
        let threads = if threads == 0 || cfg!(target_arch = "wasm32") { crate::max_threads() } else { threads }.max(1);
        let mut i = start;
        while i < start + n_new {
            let batch = if threads > 1 && i >= 2048 { (i / 8).clamp(1, 4096) } else { 1 }.min(start + n_new - i);
            let found: Vec<Found> = if batch == 1 {
                vec![self.find(i as u32)]
            } else {
                let per = batch.div_ceil(threads);
                let me = &*self;
                std::thread::scope(|s| {
                    let hs: Vec<_> = (i..i + batch)
                        .step_by(per)
                        .map(|b| s.spawn(move || (b..(b + per).min(i + batch)).map(|v| me.find(v as u32)).collect::<Vec<_>>()))
                        .collect();
                    hs.into_iter().flat_map(|h| h.join().expect("an HNSW build thread panicked")).collect()
                })
            };
            for (j, f) in found.into_iter().enumerate() {
                self.link((i + j) as u32, f);
            }
            i += batch;
        }
        Ok(())
    }

    /// The neighbour candidates of node `v` at each of its levels, searched in the current graph.
    fn find(&self, v: u32) -> Found {
        if self.entry == NIL {
            return Vec::new();
        }
        let q = self.vec(v);
        let level = self.levels[v as usize] as usize;
        let mut cur = Scored(kernels::dot(q, self.vec(self.entry)), self.entry);
        for l in (level + 1..=self.max_level).rev() {
            cur = self.greedy(q, cur, l);
        }
        let top = level.min(self.max_level);
        let mut out = vec![Vec::new(); top + 1];
        let mut eps = vec![cur];
        for l in (0..=top).rev() {
            let w = self.search_layer(q, &eps, self.ef_construction, l, None, 0);
            eps = w.clone();
            out[l] = w;
        }
        out
    }

    fn link(&mut self, v: u32, found: Found) {
        let level = self.levels[v as usize] as usize;
        if self.entry == NIL {
            self.entry = v;
            self.max_level = level;
            return;
        }
        for (l, cands) in found.into_iter().enumerate() {
            let chosen = self.select(&cands, self.cap(l));
            self.set_neigh(v, l, &chosen);
            for &u in &chosen {
                self.add_link(u, v, l);
            }
        }
        if level > self.max_level {
            self.max_level = level;
            self.entry = v;
        }
    }

    /// Adds `v` to `u`'s list at `level`, pruning with the heuristic when it is full.
    fn add_link(&mut self, u: u32, v: u32, level: usize) {
        let cap = self.cap(level);
        let cur = self.neigh(u, level);
        if cur.contains(&v) {
            return;
        }
        if cur.len() < cap {
            let mut ids = cur.to_vec();
            ids.push(v);
            self.set_neigh(u, level, &ids);
            return;
        }
        let uv = self.vec(u);
        let mut cands: Vec<Scored> = cur.iter().chain(std::iter::once(&v)).map(|&w| Scored(kernels::dot(uv, self.vec(w)), w)).collect();
        cands.sort_unstable_by(|a, b| b.cmp(a));
        let chosen = self.select(&cands, cap);
        self.set_neigh(u, level, &chosen);
    }

    /// The HNSW neighbour heuristic: best first, keep a candidate only when it is closer to the
    /// base than to every one kept (spreads the links across directions). `cands` is best first.
    fn select(&self, cands: &[Scored], cap: usize) -> Vec<u32> {
        let mut out: Vec<u32> = Vec::with_capacity(cap);
        for c in cands {
            if out.len() >= cap {
                break;
            }
            let cv = self.vec(c.1);
            if out.iter().all(|&s| kernels::dot(cv, self.vec(s)) < c.0) {
                out.push(c.1);
            }
        }
        out
    }

    fn greedy(&self, q: &[f32], mut cur: Scored, level: usize) -> Scored {
        loop {
            let mut changed = false;
            for &v in self.neigh(cur.1, level) {
                let s = kernels::dot(q, self.vec(v));
                if s > cur.0 {
                    cur = Scored(s, v);
                    changed = true;
                }
            }
            if !changed {
                return cur;
            }
        }
    }

    /// Beam search of one level from `eps`: the best `ef` nodes admitted by `allow`, best first.
    /// Nodes not admitted are still walked through, so a filter never disconnects the graph.
    fn search_layer(&self, q: &[f32], eps: &[Scored], ef: usize, level: usize, allow: Option<&dyn Fn(i64) -> bool>, max_visits: usize) -> Vec<Scored> {
        VISITED.with(|vt| {
            let mut vt = vt.borrow_mut();
            vt.prepare(self.len());
            let mut cand: BinaryHeap<Scored> = BinaryHeap::new();
            let mut top: BinaryHeap<Reverse<Scored>> = BinaryHeap::new();
            let ok = |v: u32| allow.is_none_or(|f| f(v as i64));
            for &e in eps {
                if vt.seen(e.1) {
                    continue;
                }
                cand.push(e);
                if ok(e.1) {
                    top.push(Reverse(e));
                }
            }
            while top.len() > ef {
                top.pop();
            }
            let mut visits = eps.len();
            while let Some(c) = cand.pop() {
                if top.len() >= ef && top.peek().is_some_and(|w| c.0 < w.0 .0) {
                    break;
                }
                for &v in self.neigh(c.1, level) {
                    if vt.seen(v) {
                        continue;
                    }
                    visits += 1;
                    let s = kernels::dot(q, self.vec(v));
                    if top.len() < ef || top.peek().is_some_and(|w| s > w.0 .0) {
                        cand.push(Scored(s, v));
                        if ok(v) {
                            top.push(Reverse(Scored(s, v)));
                            if top.len() > ef {
                                top.pop();
                            }
                        }
                    }
                }
                if max_visits > 0 && visits >= max_visits {
                    break;
                }
            }
            let mut out: Vec<Scored> = top.into_iter().map(|r| r.0).collect();
            out.sort_unstable_by(|a, b| b.cmp(a));
            out
        })
    }

    /// One query on the calling thread with its own `ef`; `allow` decides which labels may be
    /// returned. Returns (score, label) best first.
    pub fn hnsw_search_one(&self, query: &[f32], k: usize, ef: usize, allow: Option<&dyn Fn(i64) -> bool>, max_visits: usize) -> Result<Vec<(f32, i64)>> {
        if query.len() != self.dim || k == 0 {
            return Err(Error::InvalidArgument("query length must be dim and k > 0".into()));
        }
        if self.entry == NIL {
            return Ok(Vec::new());
        }
        let mut cur = Scored(kernels::dot(query, self.vec(self.entry)), self.entry);
        for l in (1..=self.max_level).rev() {
            cur = self.greedy(query, cur, l);
        }
        let res = self.search_layer(query, &[cur], ef.max(k), 0, allow, max_visits);
        Ok(res.into_iter().take(k).map(|s| (s.0, s.1 as i64)).collect())
    }

    /// Unfiltered search of `queries.len() / dim` queries at the index's `ef_search`, in FAISS's
    /// shape: `k` (score, label) per query, label -1 past the end.
    pub fn search(&self, queries: &[f32], k: usize, allow: Option<&[u8]>, _threads: usize) -> Result<(Vec<f32>, Vec<i64>)> {
        if queries.len() % self.dim != 0 || k == 0 {
            return Err(Error::InvalidArgument("query length must be n*dim and k > 0".into()));
        }
        let n = queries.len() / self.dim;
        let mut scores = vec![f32::NEG_INFINITY; n * k];
        let mut labels = vec![-1i64; n * k];
        let bit = |l: i64| allow.is_none_or(|b| b.get(l as usize / 8).is_some_and(|x| x & (1 << (l % 8)) != 0));
        for (i, q) in queries.chunks(self.dim).enumerate() {
            for (j, (s, l)) in self.hnsw_search_one(q, k, self.ef_search, Some(&bit), 0)?.into_iter().enumerate() {
                scores[i * k + j] = s;
                labels[i * k + j] = l;
            }
        }
        Ok((scores, labels))
    }

    pub fn write_to<W: Write>(&self, w: &mut W) -> Result<()> {
        w.write_all(MAGIC)?;
        for v in [self.dim, self.m, self.ef_construction, self.ef_search, self.len(), self.entry as usize, self.max_level] {
            w.write_all(&(v as u64).to_le_bytes())?;
        }
        w.write_all(bytes_of(&self.data))?;
        w.write_all(&self.levels)?;
        w.write_all(bytes_of(&self.base))?;
        for u in self.upper.iter().filter(|u| !u.is_empty()) {
            w.write_all(bytes_of(u))?;
        }
        Ok(())
    }

    /// Reads what `write_to` wrote, checking every id, so a damaged file is an error, never a
    /// walk out of bounds. Large arrays are read in pieces: a damaged count fails as truncated
    /// before it can allocate much.
    pub fn read_from<R: Read>(r: &mut R) -> Result<Self> {
        let bad = |w: &str| Error::Corrupt(format!("HNSW graph: {w}"));
        let mut magic = [0u8; 8];
        r.read_exact(&mut magic).map_err(|_| bad("truncated"))?;
        if &magic != MAGIC {
            return Err(bad("bad magic"));
        }
        let mut h = [0u64; 7];
        for x in h.iter_mut() {
            let mut b = [0u8; 8];
            r.read_exact(&mut b).map_err(|_| bad("truncated"))?;
            *x = u64::from_le_bytes(b);
        }
        let [dim, m, efc, efs, n, entry, max_level] = h.map(|x| x as usize);
        if dim == 0 || dim > 16_384 || !(2..=256).contains(&m) || n >= NIL as usize || max_level > 32 {
            return Err(bad("bad header"));
        }
        if (n == 0) != (entry as u32 == NIL) || (n > 0 && entry >= n) {
            return Err(bad("bad entry point"));
        }
        let mut g = HnswIndex::new_hnsw(dim, m, efc, efs)?;
        g.data = read_pod(r, n * dim).map_err(|_| bad("truncated vectors"))?;
        g.levels = read_pod(r, n).map_err(|_| bad("truncated levels"))?;
        g.base = read_pod(r, n * 2 * m).map_err(|_| bad("truncated links"))?;
        g.upper.reserve(n);
        for i in 0..n {
            let l = g.levels[i] as usize;
            if l > max_level {
                return Err(bad("node above the top level"));
            }
            g.upper.push(if l == 0 { Box::new([]) } else { read_pod::<u32, _>(r, l * m).map_err(|_| bad("truncated links"))?.into_boxed_slice() });
        }
        if g.base.iter().chain(g.upper.iter().flat_map(|u| u.iter())).any(|&v| v != NIL && v as usize >= n) {
            return Err(bad("link to a missing node"));
        }
        if n > 0 && g.levels[entry] as usize != max_level {
            return Err(bad("entry point is not on the top level"));
        }
        g.entry = if n == 0 { NIL } else { entry as u32 };
        g.max_level = max_level;
        Ok(g)
    }
}

/// Plain-old-data element types the file stores raw (little-endian hosts only: x86-64, wasm32).
trait Pod: Copy + Default {}
impl Pod for f32 {}
impl Pod for u32 {}
impl Pod for u8 {}

fn bytes_of<T: Pod>(v: &[T]) -> &[u8] {
    // SAFETY: Pod types have no padding and every byte pattern is valid; read-only view.
    unsafe { std::slice::from_raw_parts(v.as_ptr() as *const u8, std::mem::size_of_val(v)) }
}

fn read_pod<T: Pod, R: Read>(r: &mut R, n: usize) -> std::io::Result<Vec<T>> {
    const PIECE: usize = 1 << 20;
    let mut out: Vec<T> = Vec::new();
    while out.len() < n {
        let take = (n - out.len()).min(PIECE);
        let at = out.len();
        out.resize(at + take, T::default());
        // SAFETY: Pod types accept any bytes; the slice covers exactly the new elements.
        let b = unsafe { std::slice::from_raw_parts_mut(out[at..].as_mut_ptr() as *mut u8, take * std::mem::size_of::<T>()) };
        r.read_exact(b)?;
    }
    Ok(out)
}
