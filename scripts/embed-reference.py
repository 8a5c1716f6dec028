#!/usr/bin/env python3
"""Reference vectors for the `neural` embedder, computed independently of candle.

Loads model.safetensors with the `safetensors` package (numpy arrays), tokenizes with the
`tokenizers` package, runs the BERT encoder written out here in numpy (float64), mean-pools over
the attention mask and L2-normalizes, as sentence-transformers does for all-MiniLM-L6-v2. The
output is the fixture test/fixtures/neural-embed-reference.json, which the Rust and vitest tests
compare against.

    pip install numpy safetensors tokenizers
    python3 scripts/embed-reference.py [MODEL_DIR] > test/fixtures/neural-embed-reference.json
"""
import json
import math
import sys
from pathlib import Path

import numpy as np
from safetensors.numpy import load_file
from tokenizers import Tokenizer

SENTENCES = [
    "The cat sits on the mat.",
    "A feline is resting on a rug.",
    "How do I rotate the database credentials every ninety days?",
    "Quarterly revenue grew by 12% compared to last year, driven by subscriptions.",
    "",
    "Ünïcode, emoji 🚀 and CJK 東京 survive tokenization.",
    # Longer than 256 tokens: checks truncation.
    " ".join(["retrieval augmented generation stores memories in a context file system"] * 40),
]
MAX_TOKENS = 256


def layer_norm(x, w, b, eps):
    mu = x.mean(-1, keepdims=True)
    var = ((x - mu) ** 2).mean(-1, keepdims=True)
    return (x - mu) / np.sqrt(var + eps) * w + b


def gelu(x):
    # Exact (erf) GELU, as BERT's "gelu" activation.
    erf = np.vectorize(math.erf)
    return 0.5 * x * (1.0 + erf(x / math.sqrt(2.0)))


def encode(t, cfg, ids, mask):
    """One sequence (no padding): ids and mask are 1-D."""
    g = lambda k: t[k].astype(np.float64)
    n = len(ids)
    x = g("embeddings.word_embeddings.weight")[ids] + g("embeddings.position_embeddings.weight")[np.arange(n)] + g("embeddings.token_type_embeddings.weight")[np.zeros(n, dtype=int)]
    eps = cfg["layer_norm_eps"]
    x = layer_norm(x, g("embeddings.LayerNorm.weight"), g("embeddings.LayerNorm.bias"), eps)
    heads = cfg["num_attention_heads"]
    hd = cfg["hidden_size"] // heads
    bias = (1.0 - np.asarray(mask, dtype=np.float64)) * -1e9
    for i in range(cfg["num_hidden_layers"]):
        p = f"encoder.layer.{i}."
        lin = lambda h, name: h @ g(p + name + ".weight").T + g(p + name + ".bias")
        q = lin(x, "attention.self.query").reshape(n, heads, hd).transpose(1, 0, 2)
        k = lin(x, "attention.self.key").reshape(n, heads, hd).transpose(1, 0, 2)
        v = lin(x, "attention.self.value").reshape(n, heads, hd).transpose(1, 0, 2)
        s = q @ k.transpose(0, 2, 1) / math.sqrt(hd) + bias
        s = np.exp(s - s.max(-1, keepdims=True))
        s = s / s.sum(-1, keepdims=True)
        ctx = (s @ v).transpose(1, 0, 2).reshape(n, heads * hd)
        a = lin(ctx, "attention.output.dense")
        x = layer_norm(a + x, g(p + "attention.output.LayerNorm.weight"), g(p + "attention.output.LayerNorm.bias"), eps)
        h = gelu(lin(x, "intermediate.dense"))
        h = lin(h, "output.dense")
        x = layer_norm(h + x, g(p + "output.LayerNorm.weight"), g(p + "output.LayerNorm.bias"), eps)
    m = np.asarray(mask, dtype=np.float64)[:, None]
    pooled = (x * m).sum(0) / m.sum()
    return pooled / max(np.linalg.norm(pooled), 1e-12)


def main():
    model_dir = Path(sys.argv[1] if len(sys.argv) > 1 else Path(__file__).resolve().parent.parent / "models" / "all-minilm-l6-v2")
    cfg = json.loads((model_dir / "config.json").read_text())
    tensors = load_file(str(model_dir / "model.safetensors"))
    tok = Tokenizer.from_file(str(model_dir / "tokenizer.json"))
    tok.no_padding()
    tok.enable_truncation(MAX_TOKENS)
    out = []
    for s in SENTENCES:
        e = tok.encode(s)
        vec = encode(tensors, cfg, np.array(e.ids), e.attention_mask)
        out.append({"text": s, "tokens": len(e.ids), "ids": e.ids[:8], "vector": [round(float(v), 7) for v in vec]})
    json.dump({
        "model": "sentence-transformers/all-MiniLM-L6-v2",
        "weights_sha256": "53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db",
        "max_tokens": MAX_TOKENS,
        "pooling": "mean",
        "normalized": True,
        "generator": "scripts/embed-reference.py (numpy float64 BERT forward)",
        "sentences": out,
    }, sys.stdout, ensure_ascii=False, indent=1)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
