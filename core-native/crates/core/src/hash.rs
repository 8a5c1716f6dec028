//! SHA-256 for pack manifests, batch-write preconditions and snapshot bookkeeping.
//!
//! `sha2` picks the SHA-NI instructions at run time when the CPU has them; the speed-up over
//! `node:crypto` comes from hashing many buffers in one call (no per-buffer JS object) and from
//! hashing several files on several threads.
use sha2::{Digest, Sha256};
use std::fs::File;
use std::io::{self, Read};
use std::path::Path;

/// Read size for streaming file hashing: large enough to amortize syscalls, small enough to stay
/// in L2.
const CHUNK: usize = 256 * 1024;

pub fn sha256(data: &[u8]) -> [u8; 32] {
    Sha256::digest(data).into()
}

pub fn sha256_hex(data: &[u8]) -> String {
    hex::encode(sha256(data))
}

/// Below this many bytes in total, threads cost more than they save.
const PARALLEL_MIN_BYTES: usize = 512 * 1024;

pub fn sha256_many_hex<T: AsRef<[u8]> + Sync>(buffers: &[T]) -> Vec<String> {
    let total: usize = buffers.iter().map(|b| b.as_ref().len()).sum();
    let threads = available_threads().min(buffers.len());
    if threads < 2 || total < PARALLEL_MIN_BYTES {
        return buffers.iter().map(|b| sha256_hex(b.as_ref())).collect();
    }
    // Contiguous ranges of roughly equal byte counts, one per thread, so output order is free.
    let per_thread = total.div_ceil(threads);
    let mut ranges = Vec::with_capacity(threads);
    let (mut start, mut acc) = (0usize, 0usize);
    for (i, b) in buffers.iter().enumerate() {
        acc += b.as_ref().len();
        if acc >= per_thread && ranges.len() + 1 < threads {
            ranges.push(start..i + 1);
            start = i + 1;
            acc = 0;
        }
    }
    ranges.push(start..buffers.len());
    std::thread::scope(|scope| {
        let handles: Vec<_> = ranges
            .into_iter()
            .map(|r| scope.spawn(move || buffers[r].iter().map(|b| sha256_hex(b.as_ref())).collect::<Vec<_>>()))
            .collect();
        handles.into_iter().flat_map(|h| h.join().expect("hash thread panicked")).collect()
    })
}

/// Streams a file through SHA-256 without holding it in memory. Returns (hex digest, size).
pub fn sha256_file(path: &Path) -> io::Result<(String, u64)> {
    let mut file = File::open(path)?;
    let mut hasher = Sha256::new();
    let mut buf = vec![0u8; CHUNK];
    let mut size = 0u64;
    loop {
        let n = match file.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        hasher.update(&buf[..n]);
        size += n as u64;
    }
    Ok((hex::encode(hasher.finalize()), size))
}

/// Hashes files on up to `threads` threads, preserving order. Each entry is independent: one
/// unreadable file does not fail the others.
pub fn sha256_files(paths: &[String], threads: usize) -> Vec<io::Result<(String, u64)>> {
    let threads = threads.min(available_threads()).max(1).min(paths.len().max(1));
    if threads == 1 {
        return paths.iter().map(|p| sha256_file(Path::new(p))).collect();
    }
    let mut results: Vec<Option<io::Result<(String, u64)>>> = (0..paths.len()).map(|_| None).collect();
    let next = std::sync::atomic::AtomicUsize::new(0);
    let slots = std::sync::Mutex::new(&mut results);
    std::thread::scope(|scope| {
        for _ in 0..threads {
            scope.spawn(|| loop {
                let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                if i >= paths.len() {
                    break;
                }
                let r = sha256_file(Path::new(&paths[i]));
                slots.lock().unwrap()[i] = Some(r);
            });
        }
    });
    results.into_iter().map(|r| r.expect("every slot is filled")).collect()
}

/// Threads the parallel kernels may use. One under WebAssembly: there a thread is a Worker,
/// whose start costs more than these kernels split, and the JS thread must not block joining it.
pub fn available_threads() -> usize {
    if cfg!(target_arch = "wasm32") {
        1
    } else {
        std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    #[test]
    fn known_vectors() {
        assert_eq!(sha256_hex(b""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
        assert_eq!(sha256_hex(b"abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    }

    #[test]
    fn parallel_many_keeps_order() {
        let bufs: Vec<Vec<u8>> = (0..3000).map(|i| vec![(i % 251) as u8; 1024 + i % 7]).collect();
        let expected: Vec<String> = bufs.iter().map(|b| sha256_hex(b)).collect();
        assert_eq!(sha256_many_hex(&bufs), expected);
        assert_eq!(sha256_many_hex::<Vec<u8>>(&[]), Vec::<String>::new());
    }

    #[test]
    fn file_matches_buffer_across_chunk_boundaries() {
        let dir = std::env::temp_dir().join(format!("ctx-core-hash-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("f.bin");
        let data: Vec<u8> = (0..(CHUNK * 2 + 17)).map(|i| (i * 31 % 251) as u8).collect();
        File::create(&path).unwrap().write_all(&data).unwrap();
        let (hex, size) = sha256_file(&path).unwrap();
        assert_eq!(size, data.len() as u64);
        assert_eq!(hex, sha256_hex(&data));
        let missing = dir.join("missing").to_string_lossy().to_string();
        let many = sha256_files(&[path.to_string_lossy().to_string(), missing], 2);
        assert_eq!(many[0].as_ref().unwrap().0, hex);
        assert!(many[1].is_err());
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
