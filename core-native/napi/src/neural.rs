//! The `neural` embedder (ctx-embed-neural) as a JS class. Forward passes run on the crate's own
//! worker thread, not the libuv pool: a batch takes from milliseconds to seconds, and holding
//! pool threads that long would stall file and RocksDB work queued behind them. Results come back
//! through a deferred promise settled from that thread.
use std::path::Path;

use ctx_embed_neural as ne;
use napi::bindgen_prelude::*;
use napi::Env;
use napi_derive::napi;

use crate::error::{fail, guard, Code, Result};

fn err(e: ne::Error) -> napi::Error<Code> {
    fail(Code(e.code()), e)
}

#[napi(object)]
#[derive(Default)]
pub struct NeuralEmbedderOptions {
    /// Tokens per text, [CLS] and [SEP] included (default 256, the model's training length).
    pub max_tokens: Option<u32>,
    /// Texts per forward pass at most (default 32).
    pub batch_size: Option<u32>,
    /// Padded tokens per forward pass at most (default 256).
    pub batch_tokens: Option<u32>,
    /// Texts of concurrent requests merged into one worker run (default 256).
    pub merge_limit: Option<u32>,
}

#[napi(object)]
pub struct NeuralEmbedderInfo {
    pub model: String,
    pub weights_sha256: String,
    pub dim: u32,
    pub max_tokens: u32,
    pub pooling: String,
    pub normalized: bool,
    pub version: u32,
}

#[napi]
pub struct NeuralEmbedder {
    svc: ne::Service,
}

#[napi]
impl NeuralEmbedder {
    /// Loads the model from `dir` (synchronously: ~90 MB read and hashed once at start). Throws
    /// `EMBEDDING_MODEL_MISSING` naming the absent file, or `EMBEDDING_MODEL_INVALID`.
    #[napi(constructor)]
    pub fn new(dir: String, options: Option<NeuralEmbedderOptions>) -> Result<Self> {
        guard(|| {
            let o = options.unwrap_or_default();
            let d = ne::Options::default();
            let opts = ne::Options { max_tokens: o.max_tokens.map_or(d.max_tokens, |x| x as usize), batch_size: o.batch_size.map_or(d.batch_size, |x| x as usize), batch_tokens: o.batch_tokens.map_or(d.batch_tokens, |x| x as usize) };
            let e = ne::Embedder::load(Path::new(&dir), opts).map_err(err)?;
            Ok(NeuralEmbedder { svc: ne::Service::new(e, o.merge_limit.map_or(256, |x| x as usize)) })
        })
    }

    #[napi]
    pub fn info(&self) -> NeuralEmbedderInfo {
        let i = self.svc.info();
        NeuralEmbedderInfo {
            model: i.model.clone(),
            weights_sha256: i.weights_sha256.clone(),
            dim: i.dim as u32,
            max_tokens: i.max_tokens as u32,
            pooling: i.pooling.to_string(),
            normalized: i.normalized,
            version: i.version,
        }
    }

    /// Row-major `texts.length × dim` unit vectors. Rejections carry the core's code in the
    /// message prefix (`CODE: message`): a deferred can only reject with napi's own statuses.
    #[napi(ts_return_type = "Promise<Float32Array>")]
    pub fn embed<'env>(&self, env: &'env Env, texts: Vec<String>) -> napi::Result<Object<'env>> {
        let (deferred, promise) = env.create_deferred::<Float32Array, _>()?;
        self.svc.submit(texts, move |r| match r {
            Ok(v) => deferred.resolve(move |_| Ok(Float32Array::new(v))),
            Err(e) => deferred.reject(napi::Error::from_reason(format!("{}: {}", e.code(), e.message))),
        });
        Ok(promise)
    }
}
