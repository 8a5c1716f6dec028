/* ctx-vector: a small C ABI over the parts of FAISS 1.7.3 the crate uses.
 *
 * Debian's libfaiss-dev ships only the C++ library (no C API objects), so this
 * shim is compiled by build.rs. Every function catches all C++ exceptions and
 * reports them as (code, message) in a ctxv_error; no exception crosses into
 * Rust. Handles are opaque. Labels are FAISS's sequential ids (0..ntotal),
 * which the Rust side uses as its slot numbers.
 */
#ifndef CTXV_SHIM_H
#define CTXV_SHIM_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

enum {
    CTXV_OK = 0,
    CTXV_ERR_FAISS = 1,    /* faiss::FaissException */
    CTXV_ERR_ALLOC = 2,    /* std::bad_alloc */
    CTXV_ERR_STD = 3,      /* other std::exception */
    CTXV_ERR_UNKNOWN = 4,  /* anything else thrown */
    CTXV_ERR_ARG = 5,      /* invalid argument detected by the shim */
    CTXV_ERR_CALLBACK = 6  /* an I/O callback reported failure */
};

enum { CTXV_KIND_FLAT = 0, CTXV_KIND_HNSW = 1 };

typedef struct ctxv_error {
    int code;
    char message[512];
} ctxv_error;

typedef struct ctxv_index ctxv_index;

/* I/O callbacks: return 0 on success, non-zero on failure. */
typedef int (*ctxv_write_fn)(void* ctx, const void* data, size_t len);
typedef int (*ctxv_read_fn)(void* ctx, void* data, size_t len);

/* IndexFlatIP (exact; used as a benchmark baseline). */
int ctxv_new_flat_ip(int32_t dim, ctxv_index** out, ctxv_error* err);
/* IndexHNSWFlat with METRIC_INNER_PRODUCT. */
int ctxv_new_hnsw_ip(int32_t dim, int32_t m, int32_t ef_construction,
                     int32_t ef_search, ctxv_index** out, ctxv_error* err);
void ctxv_free(ctxv_index* idx);

int32_t ctxv_kind(const ctxv_index* idx);
int32_t ctxv_dim(const ctxv_index* idx);
int64_t ctxv_ntotal(const ctxv_index* idx);

/* Appends n vectors (labels ntotal..ntotal+n-1). nthreads <= 0: all cores. */
int ctxv_add(ctxv_index* idx, int64_t n, const float* x, int32_t nthreads,
             ctxv_error* err);

/* FAISS's own search. bitmap (nullable): bit i of byte i>>3 set = label i
 * allowed; passed to FAISS as an IDSelector through SearchParameters.sel.
 * Missing results have label -1. Scores are inner products. */
int ctxv_search(const ctxv_index* idx, int64_t n, const float* x, int64_t k,
                const uint8_t* bitmap, int64_t nbits, int32_t nthreads,
                float* scores, int64_t* labels, ctxv_error* err);

/* Our own HNSW traversal over FAISS's graph (one query, calling thread):
 * per-query ef, filter applied to results only (traversal uses every node,
 * hnswlib-style; allow == NULL admits every label), AVX2 dot products when the CPU has them. max_visits bounds
 * the work (0 = unbounded). Returns the number of results written (<= k) in
 * *nres. */
typedef int (*ctxv_allow_fn)(void* ctx, int64_t label);
int ctxv_hnsw_search_one(const ctxv_index* idx, const float* q, int64_t k,
                         int32_t ef, ctxv_allow_fn allow, void* allow_ctx,
                         int64_t max_visits, float* scores, int64_t* labels,
                         int64_t* nres, ctxv_error* err);

int ctxv_hnsw_set_ef_search(ctxv_index* idx, int32_t ef, ctxv_error* err);
int32_t ctxv_hnsw_ef_search(const ctxv_index* idx);

/* Contiguous ntotal*dim floats in label order; valid until the next add. */
const float* ctxv_vectors(const ctxv_index* idx);

/* Bytes held by FAISS: vector storage and graph (links, offsets, levels). */
void ctxv_memory(const ctxv_index* idx, size_t* vector_bytes,
                 size_t* graph_bytes);

/* Releases spare capacity of the storage and graph vectors (they grow by
 * doubling during adds). */
int ctxv_shrink_to_fit(ctxv_index* idx, ctxv_error* err);

/* faiss::write_index / read_index through callbacks. */
int ctxv_write(const ctxv_index* idx, ctxv_write_fn fn, void* ctx,
               ctxv_error* err);
int ctxv_read(ctxv_read_fn fn, void* ctx, ctxv_index** out, ctxv_error* err);

/* Dot product with the same kernel the custom HNSW search uses. */
float ctxv_dot(const float* a, const float* b, int64_t d);
int32_t ctxv_num_procs(void);

#ifdef __cplusplus
}
#endif

#endif
