//! Distance kernels for exact scans. Debian's FAISS is compiled for baseline x86-64 (SSE2), while
//! the CPUs we run on have AVX2+FMA; these are picked at run time and fall back to portable code.

#[cfg(target_arch = "x86_64")]
use std::sync::OnceLock;

#[cfg(target_arch = "x86_64")]
fn has_avx2() -> bool {
    static HAS: OnceLock<bool> = OnceLock::new();
    *HAS.get_or_init(|| {
        #[cfg(target_arch = "x86_64")]
        {
            std::arch::is_x86_feature_detected!("avx2") && std::arch::is_x86_feature_detected!("fma")
        }
        #[cfg(not(target_arch = "x86_64"))]
        {
            false
        }
    })
}

fn dot_portable(a: &[f32], b: &[f32]) -> f32 {
    let mut s = [0f32; 8];
    let chunks = a.len() / 8;
    for c in 0..chunks {
        for j in 0..8 {
            s[j] += a[c * 8 + j] * b[c * 8 + j];
        }
    }
    let mut r: f32 = s.iter().sum();
    for i in chunks * 8..a.len() {
        r += a[i] * b[i];
    }
    r
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
unsafe fn hsum256(v: std::arch::x86_64::__m256) -> f32 {
    use std::arch::x86_64::*;
    let lo = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
    let sh = _mm_movehdup_ps(lo);
    let s = _mm_add_ps(lo, sh);
    let hi = _mm_movehl_ps(sh, s);
    _mm_cvtss_f32(_mm_add_ss(s, hi))
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
unsafe fn dot_avx2(a: &[f32], b: &[f32]) -> f32 {
    use std::arch::x86_64::*;
    let n = a.len();
    let (pa, pb) = (a.as_ptr(), b.as_ptr());
    let mut s0 = _mm256_setzero_ps();
    let mut s1 = _mm256_setzero_ps();
    let mut s2 = _mm256_setzero_ps();
    let mut s3 = _mm256_setzero_ps();
    let mut i = 0;
    while i + 32 <= n {
        s0 = _mm256_fmadd_ps(_mm256_loadu_ps(pa.add(i)), _mm256_loadu_ps(pb.add(i)), s0);
        s1 = _mm256_fmadd_ps(_mm256_loadu_ps(pa.add(i + 8)), _mm256_loadu_ps(pb.add(i + 8)), s1);
        s2 = _mm256_fmadd_ps(_mm256_loadu_ps(pa.add(i + 16)), _mm256_loadu_ps(pb.add(i + 16)), s2);
        s3 = _mm256_fmadd_ps(_mm256_loadu_ps(pa.add(i + 24)), _mm256_loadu_ps(pb.add(i + 24)), s3);
        i += 32;
    }
    while i + 8 <= n {
        s0 = _mm256_fmadd_ps(_mm256_loadu_ps(pa.add(i)), _mm256_loadu_ps(pb.add(i)), s0);
        i += 8;
    }
    let mut r = hsum256(_mm256_add_ps(_mm256_add_ps(s0, s1), _mm256_add_ps(s2, s3)));
    while i < n {
        r += *pa.add(i) * *pb.add(i);
        i += 1;
    }
    r
}

/// Inner product of two equal-length float vectors.
#[inline]
pub fn dot(a: &[f32], b: &[f32]) -> f32 {
    debug_assert_eq!(a.len(), b.len());
    #[cfg(target_arch = "x86_64")]
    if has_avx2() {
        // SAFETY: the CPU supports AVX2+FMA (checked once above).
        return unsafe { dot_avx2(a, b) };
    }
    #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
    return dot_simd128(a, b);
    #[allow(unreachable_code)]
    dot_portable(a, b)
}

/// The wasm build's inner product (built with `+simd128`, which every current engine has): four
/// independent 4-lane accumulators, as the AVX2 kernel does with 8-lane ones.
#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
fn dot_simd128(a: &[f32], b: &[f32]) -> f32 {
    use std::arch::wasm32::*;
    let n = a.len().min(b.len());
    let (pa, pb) = (a.as_ptr(), b.as_ptr());
    let mut acc = [f32x4_splat(0.0); 4];
    let mut i = 0;
    // SAFETY: every load reads 4 floats at i + 4j + 3 < n, inside both slices (unaligned loads).
    unsafe {
        while i + 16 <= n {
            for (j, s) in acc.iter_mut().enumerate() {
                let x = v128_load(pa.add(i + 4 * j) as *const v128);
                let y = v128_load(pb.add(i + 4 * j) as *const v128);
                *s = f32x4_add(*s, f32x4_mul(x, y));
            }
            i += 16;
        }
        while i + 4 <= n {
            acc[0] = f32x4_add(acc[0], f32x4_mul(v128_load(pa.add(i) as *const v128), v128_load(pb.add(i) as *const v128)));
            i += 4;
        }
    }
    let s = f32x4_add(f32x4_add(acc[0], acc[1]), f32x4_add(acc[2], acc[3]));
    let mut r = f32x4_extract_lane::<0>(s) + f32x4_extract_lane::<1>(s) + f32x4_extract_lane::<2>(s) + f32x4_extract_lane::<3>(s);
    while i < n {
        r += a[i] * b[i];
        i += 1;
    }
    r
}

/// 8-bit codes of a vector: `code[i] = round(x[i] / scale)`, `scale = max|x| / 127`. Used for the
/// first pass of exact scans (4x fewer bytes to stream); the survivors are re-scored in float32.
pub fn quantize(x: &[f32], out: &mut [i8]) -> f32 {
    let m = x.iter().fold(0f32, |m, v| m.max(v.abs()));
    if m == 0.0 {
        out.iter_mut().for_each(|c| *c = 0);
        return 0.0;
    }
    let inv = 127.0 / m;
    for (o, v) in out.iter_mut().zip(x) {
        *o = (v * inv).round().clamp(-127.0, 127.0) as i8;
    }
    m / 127.0
}

fn dot_q8_portable(q: &[f32], c: &[i8]) -> f32 {
    let mut s = [0f32; 8];
    let chunks = q.len() / 8;
    for k in 0..chunks {
        for j in 0..8 {
            s[j] += q[k * 8 + j] * c[k * 8 + j] as f32;
        }
    }
    let mut r: f32 = s.iter().sum();
    for i in chunks * 8..q.len() {
        r += q[i] * c[i] as f32;
    }
    r
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
unsafe fn dot_q8_avx2(q: &[f32], c: &[i8]) -> f32 {
    use std::arch::x86_64::*;
    let n = q.len();
    let (pq, pc) = (q.as_ptr(), c.as_ptr());
    let mut s0 = _mm256_setzero_ps();
    let mut s1 = _mm256_setzero_ps();
    let mut i = 0;
    while i + 16 <= n {
        let c16 = _mm_loadu_si128(pc.add(i) as *const __m128i);
        let a = _mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(c16));
        let b = _mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(_mm_srli_si128(c16, 8)));
        s0 = _mm256_fmadd_ps(_mm256_loadu_ps(pq.add(i)), a, s0);
        s1 = _mm256_fmadd_ps(_mm256_loadu_ps(pq.add(i + 8)), b, s1);
        i += 16;
    }
    let mut r = hsum256(_mm256_add_ps(s0, s1));
    while i < n {
        r += *pq.add(i) * *pc.add(i) as f32;
        i += 1;
    }
    r
}

/// Inner product of a float query with 8-bit codes (multiply by the code's scale afterwards).
#[inline]
pub fn dot_q8(q: &[f32], c: &[i8]) -> f32 {
    debug_assert_eq!(q.len(), c.len());
    #[cfg(target_arch = "x86_64")]
    if has_avx2() {
        // SAFETY: the CPU supports AVX2+FMA (checked once above).
        return unsafe { dot_q8_avx2(q, c) };
    }
    dot_q8_portable(q, c)
}

fn dot_i8_portable(a: &[i8], b: &[i8]) -> i32 {
    a.iter().zip(b).map(|(x, y)| *x as i32 * *y as i32).sum()
}

/// `|a|·(b·sign a)` pairs summed by `maddubs` (unsigned × signed bytes → i16, no overflow since codes
/// stay within ±127), widened by `madd` against ones: 7 instructions per 32 components, against ~18
/// for converting the codes to floats. Exact integer result.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn dot_i8_avx2(a: &[i8], b: &[i8]) -> i32 {
    use std::arch::x86_64::*;
    let n = a.len();
    let (pa, pb) = (a.as_ptr(), b.as_ptr());
    let ones = _mm256_set1_epi16(1);
    let mut acc0 = _mm256_setzero_si256();
    let mut acc1 = _mm256_setzero_si256();
    let mut i = 0;
    while i + 64 <= n {
        let a0 = _mm256_loadu_si256(pa.add(i) as *const __m256i);
        let b0 = _mm256_loadu_si256(pb.add(i) as *const __m256i);
        let a1 = _mm256_loadu_si256(pa.add(i + 32) as *const __m256i);
        let b1 = _mm256_loadu_si256(pb.add(i + 32) as *const __m256i);
        let p0 = _mm256_maddubs_epi16(_mm256_sign_epi8(a0, a0), _mm256_sign_epi8(b0, a0));
        let p1 = _mm256_maddubs_epi16(_mm256_sign_epi8(a1, a1), _mm256_sign_epi8(b1, a1));
        acc0 = _mm256_add_epi32(acc0, _mm256_madd_epi16(p0, ones));
        acc1 = _mm256_add_epi32(acc1, _mm256_madd_epi16(p1, ones));
        i += 64;
    }
    while i + 32 <= n {
        let a0 = _mm256_loadu_si256(pa.add(i) as *const __m256i);
        let b0 = _mm256_loadu_si256(pb.add(i) as *const __m256i);
        let p0 = _mm256_maddubs_epi16(_mm256_sign_epi8(a0, a0), _mm256_sign_epi8(b0, a0));
        acc0 = _mm256_add_epi32(acc0, _mm256_madd_epi16(p0, ones));
        i += 32;
    }
    let acc = _mm256_add_epi32(acc0, acc1);
    let s = _mm_add_epi32(_mm256_castsi256_si128(acc), _mm256_extracti128_si256(acc, 1));
    let s = _mm_add_epi32(s, _mm_shuffle_epi32(s, 0b01_00_11_10));
    let s = _mm_add_epi32(s, _mm_shuffle_epi32(s, 0b10_11_00_01));
    let mut r = _mm_cvtsi128_si32(s);
    while i < n {
        r += *pa.add(i) as i32 * *pb.add(i) as i32;
        i += 1;
    }
    r
}

/// Inner product of two 8-bit code vectors (multiply by both scales afterwards). Codes must lie in
/// ±127, as `quantize` makes them.
#[inline]
pub fn dot_i8(a: &[i8], b: &[i8]) -> i32 {
    debug_assert_eq!(a.len(), b.len());
    #[cfg(target_arch = "x86_64")]
    if has_avx2() {
        // SAFETY: the CPU supports AVX2 (checked once above).
        return unsafe { dot_i8_avx2(a, b) };
    }
    dot_i8_portable(a, b)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dot_i8_is_exact_at_the_extremes() {
        for n in [31usize, 64, 65, 384, 1000] {
            let a: Vec<i8> = (0..n).map(|i| if i % 3 == 0 { -127 } else { 127 }).collect();
            let b: Vec<i8> = (0..n).map(|i| if i % 2 == 0 { -127 } else { 127 }).collect();
            assert_eq!(dot_i8(&a, &b), dot_i8_portable(&a, &b), "n={n}");
            assert_eq!(dot_i8(&a, &a), 127 * 127 * n as i32);
        }
    }

    #[test]
    fn kernels_agree_with_portable_code() {
        for n in [1usize, 7, 8, 31, 32, 33, 384, 768, 1000] {
            let a: Vec<f32> = (0..n).map(|i| ((i * 37 % 101) as f32 - 50.0) / 50.0).collect();
            let b: Vec<f32> = (0..n).map(|i| ((i * 53 % 97) as f32 - 48.0) / 48.0).collect();
            let exact: f64 = a.iter().zip(&b).map(|(x, y)| *x as f64 * *y as f64).sum();
            assert!((dot(&a, &b) as f64 - exact).abs() < 1e-3 * n as f64, "n={n}");
            let mut codes = vec![0i8; n];
            let scale = quantize(&b, &mut codes);
            let approx = dot_q8(&a, &codes) * scale;
            assert!((dot_q8_portable(&a, &codes) - dot_q8(&a, &codes)).abs() < 1e-2 * n as f32);
            assert!((approx as f64 - exact).abs() < 0.02 * (n as f64).sqrt(), "n={n} {approx} {exact}");
            let mut qa = vec![0i8; n];
            let qs = quantize(&a, &mut qa);
            assert_eq!(dot_i8(&qa, &codes), dot_i8_portable(&qa, &codes), "n={n}");
            let both = dot_i8(&qa, &codes) as f32 * qs * scale;
            assert!((both as f64 - exact).abs() < 0.04 * (n as f64).sqrt(), "n={n} {both} {exact}");
        }
    }
}
