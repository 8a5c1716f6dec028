use super::*;

fn model_dir() -> PathBuf {
    match std::env::var_os("CTX_EMBEDDING_MODEL_DIR") {
        Some(d) => PathBuf::from(d),
        None => Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../models/all-minilm-l6-v2"),
    }
}

struct Reference {
    texts: Vec<String>,
    vectors: Vec<Vec<f32>>,
}

fn reference() -> Reference {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../test/fixtures/neural-embed-reference.json");
    let v: serde_json::Value = serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap();
    let s = v["sentences"].as_array().unwrap();
    Reference {
        texts: s.iter().map(|e| e["text"].as_str().unwrap().to_string()).collect(),
        vectors: s.iter().map(|e| e["vector"].as_array().unwrap().iter().map(|x| x.as_f64().unwrap() as f32).collect()).collect(),
    }
}

/// The model is installed by `scripts/setup.sh`; without it these tests cannot say anything.
fn load() -> Embedder {
    Embedder::load(&model_dir(), Options::default()).unwrap_or_else(|e| panic!("{e}"))
}

fn check(got: &[f32], want: &[f32], label: &str) {
    let cos: f32 = got.iter().zip(want).map(|(a, b)| a * b).sum();
    let max_diff = got.iter().zip(want).map(|(a, b)| (a - b).abs()).fold(0f32, f32::max);
    assert!(cos >= 0.999 && max_diff <= 2e-3, "{label}: cosine {cos}, max abs diff {max_diff}");
}

#[test]
fn missing_model_names_the_file() {
    let dir = std::env::temp_dir().join(format!("ctx-embed-neural-missing-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let err = Embedder::load(&dir, Options::default()).err().expect("loading an empty directory fails");
    assert_eq!(err.kind, ErrorKind::ModelMissing);
    assert!(err.message.contains("model.safetensors"), "{}", err.message);
    std::fs::write(dir.join("model.safetensors"), b"x").unwrap();
    let err = Embedder::load(&dir, Options::default()).err().unwrap();
    assert!(err.message.contains("tokenizer.json"), "{}", err.message);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn matches_the_numpy_reference_alone_and_batched() {
    let e = load();
    assert_eq!(e.info().dim, 384);
    assert_eq!(e.info().model, MINILM_L6_V2_NAME);
    let r = reference();
    // Batched: padding to the longest text in the batch must not change any vector.
    let all = e.embed(&r.texts).unwrap();
    for (i, want) in r.vectors.iter().enumerate() {
        check(&all[i * 384..(i + 1) * 384], want, &format!("batched #{i}"));
        let one = e.embed(&[&r.texts[i]]).unwrap();
        check(&one, want, &format!("alone #{i}"));
    }
}

#[test]
fn service_merges_concurrent_requests_in_order() {
    let s = Arc::new(Service::new(load(), 64));
    let r = reference();
    let handles: Vec<_> = (0..r.texts.len())
        .map(|i| {
            let (s, t) = (s.clone(), r.texts[i].clone());
            std::thread::spawn(move || s.embed(vec![t.clone(), t]).unwrap())
        })
        .collect();
    for (i, h) in handles.into_iter().enumerate() {
        let v = h.join().unwrap();
        check(&v[..384], &r.vectors[i], &format!("service #{i}"));
        check(&v[384..], &r.vectors[i], &format!("service dup #{i}"));
    }
    assert!(s.embed(vec![]).unwrap().is_empty());
}
