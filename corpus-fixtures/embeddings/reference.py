#!/usr/bin/env python3
"""Reference embeddings of all-MiniLM-L6-v2 for a few fixed sentences, for the
test that checks pan-detect's encoder against them (src/embed, issue 63).

BERT is computed here with numpy from model.safetensors (read with the
`safetensors` package), tokenized with the `tokenizers` package from the
model's tokenizer.json; pooling and normalisation as the model's
1_Pooling/config.json and modules.json say (mean, then L2). No candle and no
pan-detect code is involved. torch was not used: the PyPI torch wheel for
Linux pulls several GB of CUDA libraries.

Made with (in a fresh venv; numpy 2.4.6, safetensors 0.8.0, tokenizers 0.23.3):

    python3 -m venv /tmp/embed-venv
    /tmp/embed-venv/bin/pip install numpy safetensors tokenizers
    scripts/fetch-models.sh
    /tmp/embed-venv/bin/python corpus-fixtures/embeddings/reference.py \
        models/all-MiniLM-L6-v2 > corpus-fixtures/embeddings/all-MiniLM-L6-v2.json
"""

import json
import math
import sys
from pathlib import Path

import numpy as np
from safetensors.numpy import load_file
from tokenizers import Tokenizer

SENTENCES = [
    "The cat sat on the mat.",
    "A feline rested upon the rug.",
    "Photosynthesis converts light energy into chemical energy stored in glucose.",
    "Plants turn sunlight into sugar, keeping the energy in chemical form.",
    "Der schnelle braune Fuchs springt über den faulen Hund, naïvely — 42 times!",
]


def layer_norm(x, weight, bias, eps):
    mean = x.mean(-1, keepdims=True)
    var = ((x - mean) ** 2).mean(-1, keepdims=True)
    return (x - mean) / np.sqrt(var + eps) * weight + bias


def gelu(x):
    erf = np.vectorize(math.erf)
    return 0.5 * x * (1.0 + erf(x / math.sqrt(2.0)))


def bert(w, config, ids):
    """Last hidden states (tokens x hidden) of one unpadded sequence, in float64."""
    w = {k: v.astype(np.float64) for k, v in w.items()}
    eps = config["layer_norm_eps"]
    heads = config["num_attention_heads"]
    x = (
        w["embeddings.word_embeddings.weight"][ids]
        + w["embeddings.position_embeddings.weight"][np.arange(len(ids))]
        + w["embeddings.token_type_embeddings.weight"][0]
    )
    x = layer_norm(x, w["embeddings.LayerNorm.weight"], w["embeddings.LayerNorm.bias"], eps)
    for layer in range(config["num_hidden_layers"]):
        p = f"encoder.layer.{layer}."
        lin = lambda v, name: v @ w[p + name + ".weight"].T + w[p + name + ".bias"]
        q, k, v = (lin(x, f"attention.self.{n}") for n in ("query", "key", "value"))
        d = q.shape[1] // heads
        ctx = np.zeros_like(q)
        for h in range(heads):
            s = slice(h * d, (h + 1) * d)
            scores = q[:, s] @ k[:, s].T / math.sqrt(d)
            scores = np.exp(scores - scores.max(-1, keepdims=True))
            ctx[:, s] = (scores / scores.sum(-1, keepdims=True)) @ v[:, s]
        x = layer_norm(x + lin(ctx, "attention.output.dense"),
                       w[p + "attention.output.LayerNorm.weight"], w[p + "attention.output.LayerNorm.bias"], eps)
        inner = gelu(lin(x, "intermediate.dense"))
        x = layer_norm(x + lin(inner, "output.dense"),
                       w[p + "output.LayerNorm.weight"], w[p + "output.LayerNorm.bias"], eps)
    return x


def main():
    model = Path(sys.argv[1])
    config = json.loads((model / "config.json").read_text())
    pooling = json.loads((model / "1_Pooling" / "config.json").read_text())
    modules = json.loads((model / "modules.json").read_text())
    assert pooling["pooling_mode_mean_tokens"] and not pooling["pooling_mode_cls_token"]
    normalize = any(m["type"].endswith(".Normalize") for m in modules)
    max_length = json.loads((model / "sentence_bert_config.json").read_text())["max_seq_length"]
    tokenizer = Tokenizer.from_file(str(model / "tokenizer.json"))
    tokenizer.no_padding()
    tokenizer.enable_truncation(max_length)
    weights = load_file(str(model / "model.safetensors"))
    out = []
    for sentence in SENTENCES:
        ids = tokenizer.encode(sentence).ids
        pooled = bert(weights, config, np.array(ids)).mean(0)
        if normalize:
            pooled = pooled / max(np.linalg.norm(pooled), 1e-12)
        out.append({"sentence": sentence, "tokens": len(ids), "embedding": [float(v) for v in pooled]})
    json.dump({"model": "sentence-transformers/all-MiniLM-L6-v2", "sentences": out}, sys.stdout, indent=0)
    print()


if __name__ == "__main__":
    main()
