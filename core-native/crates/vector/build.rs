// Compiles the C++ shim over Debian's static FAISS (libfaiss-dev 1.7.3) and
// links it with OpenBLAS (BLAS + LAPACK) and GNU OpenMP (libfaiss.a calls
// GOMP_* symbols, so it was built with gcc's OpenMP).
// Nothing to build without the `faiss` feature (the wasm build).
fn main() {
    if std::env::var_os("CARGO_FEATURE_FAISS").is_none() {
        return;
    }
    println!("cargo:rerun-if-changed=cpp/shim.cpp");
    println!("cargo:rerun-if-changed=cpp/shim.h");
    println!("cargo:rerun-if-env-changed=CTX_FAISS_LIB_DIR");
    println!("cargo:rerun-if-env-changed=CTX_FAISS_INCLUDE_DIR");

    let mut build = cc::Build::new();
    build
        .cpp(true)
        .file("cpp/shim.cpp")
        .flag("-std=c++17")
        .flag("-fopenmp")
        .flag_if_supported("-Wno-unused-parameter")
        .opt_level(3);
    if let Ok(dir) = std::env::var("CTX_FAISS_INCLUDE_DIR") {
        build.include(dir);
    }
    build.compile("ctxv_shim");

    if let Ok(dir) = std::env::var("CTX_FAISS_LIB_DIR") {
        println!("cargo:rustc-link-search=native={dir}");
    }
    println!("cargo:rustc-link-search=native=/usr/lib/x86_64-linux-gnu");
    println!("cargo:rustc-link-lib=static=faiss");
    println!("cargo:rustc-link-lib=dylib=openblas");
    println!("cargo:rustc-link-lib=dylib=gomp");
    println!("cargo:rustc-link-lib=dylib=stdc++");
}
