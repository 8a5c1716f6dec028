// ctx-vector shim over FAISS 1.7.3 (see shim.h). Every exported function
// runs its body inside guarded(), which turns any C++ exception into an error
// code and message.
#include "shim.h"

#include <faiss/IndexFlat.h>
#include <faiss/IndexHNSW.h>
#include <faiss/impl/AuxIndexStructures.h>
#include <faiss/impl/DistanceComputer.h>
#include <faiss/impl/FaissException.h>
#include <faiss/impl/IDSelector.h>
#include <faiss/impl/io.h>
#include <faiss/index_io.h>
#include <immintrin.h>
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <new>
#include <queue>
#include <stdexcept>
#include <utility>
#include <vector>

struct ctxv_index {
    faiss::Index* index;
    int kind;
    // One lock per graph vertex, kept across small adds (see incremental_hnsw_add).
    std::vector<omp_lock_t> locks = {};
    ~ctxv_index() {
        for (auto& l : locks) omp_destroy_lock(&l);
    }
};

namespace {

struct ArgError : std::runtime_error {
    using std::runtime_error::runtime_error;
};
struct CallbackFailed : std::runtime_error {
    using std::runtime_error::runtime_error;
};

void set_err(ctxv_error* err, int code, const char* msg) {
    if (!err) return;
    err->code = code;
    std::snprintf(err->message, sizeof err->message, "%s", msg);
}

template <class F>
int guarded(ctxv_error* err, F&& body) {
    try {
        body();
        set_err(err, CTXV_OK, "");
        return CTXV_OK;
    } catch (const faiss::FaissException& e) {
        set_err(err, CTXV_ERR_FAISS, e.what());
        return CTXV_ERR_FAISS;
    } catch (const std::bad_alloc&) {
        set_err(err, CTXV_ERR_ALLOC, "out of memory");
        return CTXV_ERR_ALLOC;
    } catch (const ArgError& e) {
        set_err(err, CTXV_ERR_ARG, e.what());
        return CTXV_ERR_ARG;
    } catch (const CallbackFailed& e) {
        set_err(err, CTXV_ERR_CALLBACK, e.what());
        return CTXV_ERR_CALLBACK;
    } catch (const std::exception& e) {
        set_err(err, CTXV_ERR_STD, e.what());
        return CTXV_ERR_STD;
    } catch (...) {
        set_err(err, CTXV_ERR_UNKNOWN, "unknown C++ exception");
        return CTXV_ERR_UNKNOWN;
    }
}

int threads_or_all(int32_t n) { return n > 0 ? n : omp_get_num_procs(); }

// IDSelector over a caller-owned bitmap (bit i of byte i>>3 = label i).
struct BitmapSelector final : faiss::IDSelector {
    const uint8_t* bits;
    int64_t nbits;
    BitmapSelector(const uint8_t* b, int64_t n) : bits(b), nbits(n) {}
    bool is_member(int64_t id) const override {
        return id >= 0 && id < nbits && ((bits[id >> 3] >> (id & 7)) & 1);
    }
};


faiss::IndexHNSW* as_hnsw(const ctxv_index* idx) {
    if (!idx || idx->kind != CTXV_KIND_HNSW) throw ArgError("not an HNSW index");
    return static_cast<faiss::IndexHNSW*>(idx->index);
}

const float* storage_of(const ctxv_index* idx) {
    if (idx->kind == CTXV_KIND_HNSW) {
        auto* h = static_cast<faiss::IndexHNSW*>(idx->index);
        auto* flat = dynamic_cast<const faiss::IndexFlatCodes*>(h->storage);
        return flat ? reinterpret_cast<const float*>(flat->codes.data()) : nullptr;
    }
    auto* flat = dynamic_cast<const faiss::IndexFlat*>(idx->index);
    return flat ? flat->get_xb() : nullptr;
}

// ---- dot product kernels (FAISS from Debian is built for baseline x86-64) --

float dot_scalar(const float* a, const float* b, int64_t d) {
    float s0 = 0, s1 = 0, s2 = 0, s3 = 0;
    int64_t i = 0;
    for (; i + 4 <= d; i += 4) {
        s0 += a[i] * b[i];
        s1 += a[i + 1] * b[i + 1];
        s2 += a[i + 2] * b[i + 2];
        s3 += a[i + 3] * b[i + 3];
    }
    for (; i < d; i++) s0 += a[i] * b[i];
    return (s0 + s1) + (s2 + s3);
}

__attribute__((target("avx2,fma"))) float dot_avx2(const float* a,
                                                    const float* b,
                                                    int64_t d) {
    __m256 s0 = _mm256_setzero_ps(), s1 = _mm256_setzero_ps();
    __m256 s2 = _mm256_setzero_ps(), s3 = _mm256_setzero_ps();
    int64_t i = 0;
    for (; i + 32 <= d; i += 32) {
        s0 = _mm256_fmadd_ps(_mm256_loadu_ps(a + i), _mm256_loadu_ps(b + i), s0);
        s1 = _mm256_fmadd_ps(_mm256_loadu_ps(a + i + 8), _mm256_loadu_ps(b + i + 8), s1);
        s2 = _mm256_fmadd_ps(_mm256_loadu_ps(a + i + 16), _mm256_loadu_ps(b + i + 16), s2);
        s3 = _mm256_fmadd_ps(_mm256_loadu_ps(a + i + 24), _mm256_loadu_ps(b + i + 24), s3);
    }
    for (; i + 8 <= d; i += 8)
        s0 = _mm256_fmadd_ps(_mm256_loadu_ps(a + i), _mm256_loadu_ps(b + i), s0);
    __m256 s = _mm256_add_ps(_mm256_add_ps(s0, s1), _mm256_add_ps(s2, s3));
    __m128 lo = _mm_add_ps(_mm256_castps256_ps128(s), _mm256_extractf128_ps(s, 1));
    lo = _mm_hadd_ps(lo, lo);
    lo = _mm_hadd_ps(lo, lo);
    float r = _mm_cvtss_f32(lo);
    for (; i < d; i++) r += a[i] * b[i];
    return r;
}

using DotFn = float (*)(const float*, const float*, int64_t);

DotFn pick_dot() {
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) return dot_avx2;
    return dot_scalar;
}

const DotFn g_dot = pick_dot();

// Visited marks reused across queries on one thread (no per-query memset).
struct Visited {
    std::vector<uint16_t> marks;
    uint16_t epoch = 0;
    void prepare(size_t n) {
        if (marks.size() < n) marks.resize(n, 0);
        if (++epoch == 0) {
            std::fill(marks.begin(), marks.end(), 0);
            epoch = 1;
        }
    }
    bool seen(int64_t i) {
        if (marks[i] == epoch) return true;
        marks[i] = epoch;
        return false;
    }
};
thread_local Visited tl_visited;

// ---- I/O adapters ----------------------------------------------------------

struct CallbackWriter : faiss::IOWriter {
    ctxv_write_fn fn;
    void* ctx;
    CallbackWriter(ctxv_write_fn f, void* c) : fn(f), ctx(c) { name = "ctx-vector"; }
    size_t operator()(const void* ptr, size_t size, size_t nitems) override {
        size_t len = size * nitems;
        if (len && fn(ctx, ptr, len) != 0) throw CallbackFailed("write callback failed");
        return nitems;
    }
};

struct CallbackReader : faiss::IOReader {
    ctxv_read_fn fn;
    void* ctx;
    CallbackReader(ctxv_read_fn f, void* c) : fn(f), ctx(c) { name = "ctx-vector"; }
    size_t operator()(void* ptr, size_t size, size_t nitems) override {
        size_t len = size * nitems;
        if (len && fn(ctx, ptr, len) != 0) throw CallbackFailed("read callback failed (truncated or unreadable index)");
        return nitems;
    }
};

// HNSW distances are minimized, so inner products are negated (as FAISS's own
// storage distance computer does for METRIC_INNER_PRODUCT); the dot product is
// the shim's SIMD one, where Debian's FAISS build computes it with scalar code.
struct NegatedIpDistance final : faiss::DistanceComputer {
    const float* base;
    int64_t d;
    const float* q = nullptr;
    NegatedIpDistance(const float* b, int64_t dim) : base(b), d(dim) {}
    void set_query(const float* x) override { q = x; }
    float operator()(idx_t i) override { return -g_dot(q, base + i * d, d); }
    float symmetric_dis(idx_t i, idx_t j) override { return -g_dot(base + i * d, base + j * d, d); }
};

// Adds a few vectors to an HNSW graph on the calling thread. FAISS's add
// (hnsw_add_vertices) initializes and destroys one OpenMP lock per vertex of
// the WHOLE graph on every call, which made each small add O(ntotal): at 100k
// vectors that was ~2 ms per call of 16. Here the locks persist with the
// index and only the new vertices get one. The graph built is the one FAISS
// builds: same level draws (prepare_level_tab), vertices linked from the
// highest level down, the same add_with_locks per vertex.
void incremental_hnsw_add(ctxv_index* idx, int64_t n, const float* x) {
    auto* h = as_hnsw(idx);
    auto& hnsw = h->hnsw;
    const int64_t n0 = h->ntotal;
    if ((int64_t)hnsw.levels.size() != n0) throw ArgError("HNSW level table out of step with the index");
    h->storage->add(n, x);
    h->ntotal = h->storage->ntotal;
    hnsw.prepare_level_tab(n, false);
    const int64_t ntotal = h->ntotal;
    const size_t had = idx->locks.size();
    if ((size_t)ntotal > had) {
        idx->locks.resize(ntotal);
        for (size_t i = had; i < (size_t)ntotal; i++) omp_init_lock(&idx->locks[i]);
    }
    std::vector<int64_t> order(n);
    for (int64_t i = 0; i < n; i++) order[i] = n0 + i;
    std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) { return hnsw.levels[a] > hnsw.levels[b]; });
    NegatedIpDistance dis(storage_of(idx), h->d);
    faiss::VisitedTable vt(ntotal);
    for (int64_t pt_id : order) {
        dis.set_query(x + (pt_id - n0) * h->d);
        hnsw.add_with_locks(dis, hnsw.levels[pt_id] - 1, (int)pt_id, idx->locks, vt);
    }
}

// Below this many vectors an add goes through incremental_hnsw_add; larger
// ones (graph builds, compaction) use FAISS's parallel add.
// CTXV_FAISS_ADD=1 forces FAISS's own add everywhere (A/B runs of examples/hnsw_insert).
const int64_t INCREMENTAL_ADD_MAX = std::getenv("CTXV_FAISS_ADD") ? 0 : 1024;

}  // namespace

extern "C" {

int ctxv_new_flat_ip(int32_t dim, ctxv_index** out, ctxv_error* err) {
    return guarded(err, [&] {
        if (dim <= 0 || !out) throw ArgError("dim must be positive");
        auto* idx = new faiss::IndexFlatIP(dim);
        *out = new ctxv_index{idx, CTXV_KIND_FLAT};
    });
}

int ctxv_new_hnsw_ip(int32_t dim, int32_t m, int32_t ef_construction,
                     int32_t ef_search, ctxv_index** out, ctxv_error* err) {
    return guarded(err, [&] {
        if (dim <= 0 || m < 2 || ef_construction < 1 || ef_search < 1 || !out)
            throw ArgError("invalid HNSW parameters");
        auto* idx = new faiss::IndexHNSWFlat(dim, m, faiss::METRIC_INNER_PRODUCT);
        idx->hnsw.efConstruction = ef_construction;
        idx->hnsw.efSearch = ef_search;
        *out = new ctxv_index{idx, CTXV_KIND_HNSW};
    });
}

void ctxv_free(ctxv_index* idx) {
    if (!idx) return;
    try {
        delete idx->index;
    } catch (...) {
    }
    delete idx;
}

int32_t ctxv_kind(const ctxv_index* idx) { return idx->kind; }
int32_t ctxv_dim(const ctxv_index* idx) { return (int32_t)idx->index->d; }
int64_t ctxv_ntotal(const ctxv_index* idx) { return idx->index->ntotal; }

int ctxv_add(ctxv_index* idx, int64_t n, const float* x, int32_t nthreads,
             ctxv_error* err) {
    return guarded(err, [&] {
        if (n < 0 || (n > 0 && !x)) throw ArgError("invalid add arguments");
        if (idx->index->ntotal + n > (int64_t)std::numeric_limits<int32_t>::max())
            throw ArgError("index is limited to 2^31-1 vectors");
        if (idx->kind == CTXV_KIND_HNSW && n > 0 && n <= INCREMENTAL_ADD_MAX && storage_of(idx)) {
            incremental_hnsw_add(idx, n, x);
            return;
        }
        omp_set_num_threads(threads_or_all(nthreads));
        idx->index->add(n, x);
        // FAISS's add left the graph with vertices this index has no lock for yet: they get one
        // on the next incremental add (the table only ever grows to ntotal).
    });
}

int ctxv_search(const ctxv_index* idx, int64_t n, const float* x, int64_t k,
                const uint8_t* bitmap, int64_t nbits, int32_t nthreads,
                float* scores, int64_t* labels, ctxv_error* err) {
    return guarded(err, [&] {
        if (n < 0 || k <= 0 || (n > 0 && (!x || !scores || !labels)))
            throw ArgError("invalid search arguments");
        if (n == 0) return;
        omp_set_num_threads(threads_or_all(nthreads));
        BitmapSelector sel(bitmap, nbits);
        if (idx->kind == CTXV_KIND_HNSW) {
            auto* h = static_cast<const faiss::IndexHNSW*>(idx->index);
            // 1.7.3: the queue size comes from hnsw.efSearch; the params'
            // efSearch only drives the stop test, so keep them equal.
            faiss::SearchParametersHNSW p;
            p.efSearch = h->hnsw.efSearch;
            p.sel = bitmap ? &sel : nullptr;
            h->search(n, x, k, scores, labels, &p);
        } else {
            faiss::SearchParameters p;
            p.sel = bitmap ? &sel : nullptr;
            idx->index->search(n, x, k, scores, labels, bitmap ? &p : nullptr);
        }
    });
}

int ctxv_hnsw_search_one(const ctxv_index* idx, const float* q, int64_t k,
                         int32_t ef, ctxv_allow_fn allow, void* allow_ctx,
                         int64_t max_visits, float* scores, int64_t* labels,
                         int64_t* nres, ctxv_error* err) {
    return guarded(err, [&] {
        const faiss::IndexHNSW* h = as_hnsw(idx);
        if (!q || k <= 0 || !scores || !labels || !nres) throw ArgError("invalid search arguments");
        *nres = 0;
        const faiss::HNSW& g = h->hnsw;
        const int64_t nt = h->ntotal;
        const float* xb = storage_of(idx);
        if (nt == 0 || g.entry_point < 0) return;
        if (!xb) throw ArgError("HNSW storage is not flat");
        const int64_t d = h->d;
        const size_t efs = (size_t)std::max<int64_t>(ef, k);
        auto vec = [&](int64_t v) { return xb + v * d; };

        Visited& vt = tl_visited;
        vt.prepare((size_t)nt);

        // Greedy descent through the upper levels.
        int64_t cur = g.entry_point;
        float cur_s = g_dot(q, vec(cur), d);
        for (int level = g.max_level; level >= 1; --level) {
            bool changed = true;
            while (changed) {
                changed = false;
                size_t b, e;
                g.neighbor_range(cur, level, &b, &e);
                for (size_t j = b; j < e; ++j) {
                    int v = g.neighbors[j];
                    if (v < 0) break;
                    float s = g_dot(q, vec(v), d);
                    if (s > cur_s) {
                        cur_s = s;
                        cur = v;
                        changed = true;
                    }
                }
            }
        }

        // Beam search on level 0. cand: best first; top: allowed results,
        // worst on top. Unallowed nodes are traversed but never returned.
        using P = std::pair<float, int64_t>;
        std::priority_queue<P> cand;
        std::priority_queue<P, std::vector<P>, std::greater<P>> top;
        vt.seen(cur);
        cand.push({cur_s, cur});
        if (!allow || allow(allow_ctx, cur)) top.push({cur_s, cur});
        int64_t visits = 1;
        while (!cand.empty()) {
            P c = cand.top();
            if (top.size() >= efs && c.first < top.top().first) break;
            cand.pop();
            size_t b, e;
            g.neighbor_range(c.second, 0, &b, &e);
            for (size_t j = b; j < e; ++j) {
                int v = g.neighbors[j];
                if (v < 0) break;
                _mm_prefetch((const char*)vec(v), _MM_HINT_T0);
            }
            for (size_t j = b; j < e; ++j) {
                int v = g.neighbors[j];
                if (v < 0) break;
                if (vt.seen(v)) continue;
                ++visits;
                float s = g_dot(q, vec(v), d);
                if (top.size() < efs || s > top.top().first) {
                    cand.push({s, v});
                    if (!allow || allow(allow_ctx, v)) {
                        top.push({s, v});
                        if (top.size() > efs) top.pop();
                    }
                }
            }
            if (max_visits > 0 && visits >= max_visits) break;
        }
        while (top.size() > (size_t)k) top.pop();
        int64_t n = (int64_t)top.size();
        for (int64_t i = n - 1; i >= 0; --i) {
            scores[i] = top.top().first;
            labels[i] = top.top().second;
            top.pop();
        }
        *nres = n;
    });
}

int ctxv_hnsw_set_ef_search(ctxv_index* idx, int32_t ef, ctxv_error* err) {
    return guarded(err, [&] {
        if (ef < 1) throw ArgError("efSearch must be >= 1");
        as_hnsw(idx)->hnsw.efSearch = ef;
    });
}

int32_t ctxv_hnsw_ef_search(const ctxv_index* idx) {
    if (idx->kind != CTXV_KIND_HNSW) return 0;
    return static_cast<const faiss::IndexHNSW*>(idx->index)->hnsw.efSearch;
}

const float* ctxv_vectors(const ctxv_index* idx) { return storage_of(idx); }

void ctxv_memory(const ctxv_index* idx, size_t* vector_bytes, size_t* graph_bytes) {
    size_t vb = 0, gb = 0;
    const faiss::Index* storage = idx->index;
    if (idx->kind == CTXV_KIND_HNSW) {
        auto* h = static_cast<const faiss::IndexHNSW*>(idx->index);
        const faiss::HNSW& g = h->hnsw;
        gb = g.neighbors.capacity() * sizeof(int) + g.offsets.capacity() * sizeof(size_t) +
             g.levels.capacity() * sizeof(int);
        storage = h->storage;
    }
    if (auto* flat = dynamic_cast<const faiss::IndexFlatCodes*>(storage)) vb = flat->codes.capacity();
    if (vector_bytes) *vector_bytes = vb;
    if (graph_bytes) *graph_bytes = gb;
}

int ctxv_shrink_to_fit(ctxv_index* idx, ctxv_error* err) {
    return guarded(err, [&] {
        faiss::Index* storage = idx->index;
        if (idx->kind == CTXV_KIND_HNSW) {
            auto* h = static_cast<faiss::IndexHNSW*>(idx->index);
            h->hnsw.neighbors.shrink_to_fit();
            h->hnsw.offsets.shrink_to_fit();
            h->hnsw.levels.shrink_to_fit();
            storage = h->storage;
        }
        if (auto* flat = dynamic_cast<faiss::IndexFlatCodes*>(storage)) flat->codes.shrink_to_fit();
    });
}

int ctxv_write(const ctxv_index* idx, ctxv_write_fn fn, void* ctx, ctxv_error* err) {
    return guarded(err, [&] {
        if (!fn) throw ArgError("missing write callback");
        CallbackWriter w(fn, ctx);
        faiss::write_index(idx->index, &w);
    });
}

int ctxv_read(ctxv_read_fn fn, void* ctx, ctxv_index** out, ctxv_error* err) {
    return guarded(err, [&] {
        if (!fn || !out) throw ArgError("missing read callback");
        CallbackReader r(fn, ctx);
        faiss::Index* index = faiss::read_index(&r);
        int kind;
        if (dynamic_cast<faiss::IndexHNSWFlat*>(index)) {
            kind = CTXV_KIND_HNSW;
        } else if (dynamic_cast<faiss::IndexFlatIP*>(index)) {
            kind = CTXV_KIND_FLAT;
        } else {
            delete index;
            throw ArgError("unexpected FAISS index type in file");
        }
        if (index->metric_type != faiss::METRIC_INNER_PRODUCT) {
            delete index;
            throw ArgError("FAISS index in file is not inner-product");
        }
        *out = new ctxv_index{index, kind};
    });
}

float ctxv_dot(const float* a, const float* b, int64_t d) { return g_dot(a, b, d); }

int32_t ctxv_num_procs(void) { return omp_get_num_procs(); }

}  // extern "C"
