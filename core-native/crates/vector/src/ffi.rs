//! Raw bindings to `cpp/shim.h` and a safe owner type, [`FaissIndex`].

use std::ffi::{c_int, c_void, CStr};
use std::io::{Read, Write};

use crate::error::{Error, Result};

#[repr(C)]
pub(crate) struct RawError {
    code: c_int,
    message: [u8; 512],
}

impl RawError {
    fn new() -> Self {
        RawError { code: 0, message: [0; 512] }
    }
    fn into_result(self, rc: c_int) -> Result<()> {
        if rc == 0 {
            return Ok(());
        }
        let msg = CStr::from_bytes_until_nul(&self.message)
            .map(|m| m.to_string_lossy().into_owned())
            .unwrap_or_else(|_| "unterminated FAISS error message".into());
        Err(Error::Faiss { code: rc, message: msg })
    }
}

#[repr(C)]
pub(crate) struct RawIndex {
    _private: [u8; 0],
}

type WriteFn = unsafe extern "C" fn(*mut c_void, *const c_void, usize) -> c_int;
pub(crate) type AllowFn = unsafe extern "C" fn(*mut c_void, i64) -> c_int;
type ReadFn = unsafe extern "C" fn(*mut c_void, *mut c_void, usize) -> c_int;

extern "C" {
    fn ctxv_new_flat_ip(dim: i32, out: *mut *mut RawIndex, err: *mut RawError) -> c_int;
    fn ctxv_new_hnsw_ip(
        dim: i32,
        m: i32,
        ef_construction: i32,
        ef_search: i32,
        out: *mut *mut RawIndex,
        err: *mut RawError,
    ) -> c_int;
    fn ctxv_free(idx: *mut RawIndex);
    fn ctxv_kind(idx: *const RawIndex) -> i32;
    fn ctxv_dim(idx: *const RawIndex) -> i32;
    fn ctxv_ntotal(idx: *const RawIndex) -> i64;
    fn ctxv_add(idx: *mut RawIndex, n: i64, x: *const f32, nthreads: i32, err: *mut RawError) -> c_int;
    fn ctxv_search(
        idx: *const RawIndex,
        n: i64,
        x: *const f32,
        k: i64,
        bitmap: *const u8,
        nbits: i64,
        nthreads: i32,
        scores: *mut f32,
        labels: *mut i64,
        err: *mut RawError,
    ) -> c_int;
    fn ctxv_hnsw_search_one(
        idx: *const RawIndex,
        q: *const f32,
        k: i64,
        ef: i32,
        allow: Option<AllowFn>,
        allow_ctx: *mut c_void,
        max_visits: i64,
        scores: *mut f32,
        labels: *mut i64,
        nres: *mut i64,
        err: *mut RawError,
    ) -> c_int;
    fn ctxv_hnsw_set_ef_search(idx: *mut RawIndex, ef: i32, err: *mut RawError) -> c_int;
    fn ctxv_hnsw_ef_search(idx: *const RawIndex) -> i32;
    fn ctxv_vectors(idx: *const RawIndex) -> *const f32;
    fn ctxv_memory(idx: *const RawIndex, vector_bytes: *mut usize, graph_bytes: *mut usize);
    fn ctxv_shrink_to_fit(idx: *mut RawIndex, err: *mut RawError) -> c_int;
    fn ctxv_write(idx: *const RawIndex, f: WriteFn, ctx: *mut c_void, err: *mut RawError) -> c_int;
    fn ctxv_read(f: ReadFn, ctx: *mut c_void, out: *mut *mut RawIndex, err: *mut RawError) -> c_int;
    fn ctxv_dot(a: *const f32, b: *const f32, d: i64) -> f32;
    fn ctxv_num_procs() -> i32;
}

/// Which FAISS structure a [`FaissIndex`] holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FaissKind {
    /// `IndexFlatIP` (exact).
    Flat,
    /// `IndexHNSWFlat` with inner product.
    Hnsw,
}

/// An owned FAISS index (inner product). Labels are sequential: the i-th
/// vector added has label i.
pub struct FaissIndex {
    raw: *mut RawIndex,
}

// SAFETY: the handle is uniquely owned; FAISS's const methods (search, read
// accessors) are safe to call concurrently, and every mutating method here
// takes `&mut self`.
unsafe impl Send for FaissIndex {}
// SAFETY: see above; `&self` methods only call const FAISS methods.
unsafe impl Sync for FaissIndex {}

impl Drop for FaissIndex {
    fn drop(&mut self) {
        // SAFETY: `raw` came from ctxv_new_* / ctxv_read and is freed once.
        unsafe { ctxv_free(self.raw) }
    }
}

fn check_dim(dim: usize) -> Result<i32> {
    i32::try_from(dim).ok().filter(|d| *d > 0).ok_or(Error::InvalidArgument(format!("bad dimension {dim}")))
}

impl FaissIndex {
    /// Exact `IndexFlatIP`.
    pub fn new_flat(dim: usize) -> Result<Self> {
        let d = check_dim(dim)?;
        let mut raw = std::ptr::null_mut();
        let mut err = RawError::new();
        // SAFETY: out-pointers are valid for the call.
        let rc = unsafe { ctxv_new_flat_ip(d, &mut raw, &mut err) };
        err.into_result(rc)?;
        Ok(FaissIndex { raw })
    }

    /// `IndexHNSWFlat(dim, m)` with inner product.
    pub fn new_hnsw(dim: usize, m: usize, ef_construction: usize, ef_search: usize) -> Result<Self> {
        let d = check_dim(dim)?;
        let mut raw = std::ptr::null_mut();
        let mut err = RawError::new();
        // SAFETY: out-pointers are valid for the call.
        let rc = unsafe {
            ctxv_new_hnsw_ip(d, m as i32, ef_construction as i32, ef_search as i32, &mut raw, &mut err)
        };
        err.into_result(rc)?;
        Ok(FaissIndex { raw })
    }

    pub fn kind(&self) -> FaissKind {
        // SAFETY: `raw` is a live handle.
        if unsafe { ctxv_kind(self.raw) } == 1 {
            FaissKind::Hnsw
        } else {
            FaissKind::Flat
        }
    }

    pub fn dim(&self) -> usize {
        // SAFETY: `raw` is a live handle.
        unsafe { ctxv_dim(self.raw) as usize }
    }

    pub fn len(&self) -> usize {
        // SAFETY: `raw` is a live handle.
        unsafe { ctxv_ntotal(self.raw) as usize }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Appends `x.len() / dim` vectors. `threads == 0` uses every core.
    pub fn add(&mut self, x: &[f32], threads: usize) -> Result<()> {
        let d = self.dim();
        if x.len() % d != 0 {
            return Err(Error::InvalidArgument(format!("vector data length {} is not a multiple of {d}", x.len())));
        }
        let mut err = RawError::new();
        // SAFETY: `x` holds n*d floats; FAISS copies them.
        let rc = unsafe { ctxv_add(self.raw, (x.len() / d) as i64, x.as_ptr(), threads as i32, &mut err) };
        err.into_result(rc)
    }

    /// FAISS's own search for `queries.len() / dim` queries. `allow` is an
    /// optional bitmap (bit i of byte i/8 = label i allowed) handed to FAISS as
    /// an `IDSelector`. Returns (scores, labels), `k` per query, label -1 when
    /// fewer than `k` results exist.
    pub fn search(&self, queries: &[f32], k: usize, allow: Option<&[u8]>, threads: usize) -> Result<(Vec<f32>, Vec<i64>)> {
        let d = self.dim();
        if queries.len() % d != 0 || k == 0 {
            return Err(Error::InvalidArgument("query length must be n*dim and k > 0".into()));
        }
        let n = queries.len() / d;
        let mut scores = vec![f32::NEG_INFINITY; n * k];
        let mut labels = vec![-1i64; n * k];
        let (bp, nbits) = match allow {
            Some(b) => (b.as_ptr(), (b.len() * 8) as i64),
            None => (std::ptr::null(), 0),
        };
        let mut err = RawError::new();
        // SAFETY: buffers hold n*k entries; the bitmap outlives the call.
        let rc = unsafe {
            ctxv_search(
                self.raw,
                n as i64,
                queries.as_ptr(),
                k as i64,
                bp,
                nbits,
                threads as i32,
                scores.as_mut_ptr(),
                labels.as_mut_ptr(),
                &mut err,
            )
        };
        err.into_result(rc)?;
        Ok((scores, labels))
    }

    /// Our HNSW traversal (shim) for one query on the calling thread, with a
    /// per-query `ef`; `allow` decides which labels may be returned (the graph
    /// itself is walked through every node, so a filter never disconnects it).
    /// Returns (score, label) best first.
    pub fn hnsw_search_one(
        &self,
        query: &[f32],
        k: usize,
        ef: usize,
        allow: Option<&dyn Fn(i64) -> bool>,
        max_visits: usize,
    ) -> Result<Vec<(f32, i64)>> {
        if query.len() != self.dim() || k == 0 {
            return Err(Error::InvalidArgument("query length must be dim and k > 0".into()));
        }
        let mut scores = vec![0f32; k];
        let mut labels = vec![0i64; k];
        let mut n = 0i64;
        let mut holder = allow;
        let (cb, ctx): (Option<AllowFn>, *mut c_void) = match holder.as_mut() {
            Some(f) => (Some(allow_cb), f as *mut &dyn Fn(i64) -> bool as *mut c_void),
            None => (None, std::ptr::null_mut()),
        };
        let mut err = RawError::new();
        // SAFETY: buffers hold k entries; the closure outlives the call.
        let rc = unsafe {
            ctxv_hnsw_search_one(
                self.raw,
                query.as_ptr(),
                k as i64,
                ef.min(i32::MAX as usize) as i32,
                cb,
                ctx,
                max_visits as i64,
                scores.as_mut_ptr(),
                labels.as_mut_ptr(),
                &mut n,
                &mut err,
            )
        };
        err.into_result(rc)?;
        Ok(scores.into_iter().zip(labels).take(n as usize).collect())
    }

    pub fn set_ef_search(&mut self, ef: usize) -> Result<()> {
        let mut err = RawError::new();
        // SAFETY: live handle; `&mut self` excludes concurrent searches.
        let rc = unsafe { ctxv_hnsw_set_ef_search(self.raw, ef.min(i32::MAX as usize) as i32, &mut err) };
        err.into_result(rc)
    }

    pub fn ef_search(&self) -> usize {
        // SAFETY: live handle.
        unsafe { ctxv_hnsw_ef_search(self.raw) as usize }
    }

    /// The stored vectors, `len() * dim()` floats in label order.
    pub fn vectors(&self) -> &[f32] {
        let n = self.len() * self.dim();
        if n == 0 {
            return &[];
        }
        // SAFETY: FAISS keeps ntotal*d contiguous floats in its flat storage;
        // the slice borrows `self`, and the storage only moves on `add`,
        // which needs `&mut self`.
        unsafe {
            let p = ctxv_vectors(self.raw);
            assert!(!p.is_null(), "FAISS storage is not flat");
            std::slice::from_raw_parts(p, n)
        }
    }

    /// (vector storage bytes, graph bytes), allocated capacity.
    pub fn memory(&self) -> (usize, usize) {
        let (mut v, mut g) = (0usize, 0usize);
        // SAFETY: live handle, valid out-pointers.
        unsafe { ctxv_memory(self.raw, &mut v, &mut g) };
        (v, g)
    }

    pub fn shrink_to_fit(&mut self) -> Result<()> {
        let mut err = RawError::new();
        // SAFETY: live handle, exclusive access.
        let rc = unsafe { ctxv_shrink_to_fit(self.raw, &mut err) };
        err.into_result(rc)
    }

    /// `faiss::write_index` into `w`.
    pub fn write_to<W: Write>(&self, w: &mut W) -> Result<()> {
        let mut state = WriteState { w: w as &mut dyn Write, io_error: None };
        let mut err = RawError::new();
        // SAFETY: `state` outlives the call; the callback only runs during it.
        let rc = unsafe { ctxv_write(self.raw, write_cb, &mut state as *mut WriteState as *mut c_void, &mut err) };
        if let Some(e) = state.io_error {
            return Err(Error::Io(e));
        }
        err.into_result(rc)
    }

    /// `faiss::read_index` from `r`.
    pub fn read_from<R: Read>(r: &mut R) -> Result<Self> {
        let mut state = ReadState { r: r as &mut dyn Read, io_error: None };
        let mut raw = std::ptr::null_mut();
        let mut err = RawError::new();
        // SAFETY: `state` outlives the call; the callback only runs during it.
        let rc = unsafe { ctxv_read(read_cb, &mut state as *mut ReadState as *mut c_void, &mut raw, &mut err) };
        if let Some(e) = state.io_error {
            return Err(Error::Io(e));
        }
        err.into_result(rc)?;
        Ok(FaissIndex { raw })
    }
}

struct WriteState<'a> {
    w: &'a mut dyn Write,
    io_error: Option<std::io::Error>,
}

struct ReadState<'a> {
    r: &'a mut dyn Read,
    io_error: Option<std::io::Error>,
}

unsafe extern "C" fn write_cb(ctx: *mut c_void, data: *const c_void, len: usize) -> c_int {
    // SAFETY: ctx is the WriteState passed by write_to; data holds len bytes.
    let state = unsafe { &mut *(ctx as *mut WriteState) };
    let buf = unsafe { std::slice::from_raw_parts(data as *const u8, len) };
    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| state.w.write_all(buf))) {
        Ok(Ok(())) => 0,
        Ok(Err(e)) => {
            state.io_error = Some(e);
            1
        }
        Err(_) => 1,
    }
}

unsafe extern "C" fn allow_cb(ctx: *mut c_void, label: i64) -> c_int {
    // SAFETY: ctx points at the `&dyn Fn` held by hnsw_search_one for the call.
    let f = unsafe { &*(ctx as *const &dyn Fn(i64) -> bool) };
    // A panic must not unwind into C++; treat it as "not allowed".
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| f(label))).map(|b| b as c_int).unwrap_or(0)
}

unsafe extern "C" fn read_cb(ctx: *mut c_void, data: *mut c_void, len: usize) -> c_int {
    // SAFETY: ctx is the ReadState passed by read_from; data has room for len.
    let state = unsafe { &mut *(ctx as *mut ReadState) };
    let buf = unsafe { std::slice::from_raw_parts_mut(data as *mut u8, len) };
    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| state.r.read_exact(buf))) {
        Ok(Ok(())) => 0,
        Ok(Err(e)) => {
            state.io_error = Some(e);
            1
        }
        Err(_) => 1,
    }
}

/// The shim's dot product (AVX2+FMA when available); used to cross-check.
pub fn shim_dot(a: &[f32], b: &[f32]) -> f32 {
    assert_eq!(a.len(), b.len());
    // SAFETY: both slices hold a.len() floats.
    unsafe { ctxv_dot(a.as_ptr(), b.as_ptr(), a.len() as i64) }
}

/// Cores OpenMP sees.
pub fn num_procs() -> usize {
    // SAFETY: plain query.
    unsafe { ctxv_num_procs().max(1) as usize }
}
