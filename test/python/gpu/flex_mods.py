"""Mask and score functions written once with attnc.flex's functions and
Python operators, so that they trace into attn regions for attnc and run on
torch tensors for torch's flex_attention (test/python/gpu/flex_check.py)."""

from attnc import flex


def documents(b, h, q_idx, kv_idx):
    return (q_idx // 512 == kv_idx // 512) & (kv_idx <= q_idx)


def sliding(b, h, q_idx, kv_idx):
    return (kv_idx <= q_idx) & (q_idx - kv_idx <= 256)


def softcap(score, b, h, q_idx, kv_idx):
    return 30 * flex.tanh(score / 30)


def alibi(score, b, h, q_idx, kv_idx):
    return score - flex.exp2(-(h + 1) / 2) * (q_idx - kv_idx)


# name: (mask_mod, score_mod)
CASES = {
    "documents": (documents, None),
    "sliding": (sliding, None),
    "softcap": (None, softcap),
    "alibi_documents": (documents, alibi),
}
HEADS, HEAD_DIM = (16, 4), 128


def compile_all(cache_dir, target, compiler=None):
    """Fills `cache_dir` with a package per case (no device needed)."""
    for name, (mask_mod, score_mod) in CASES.items():
        flex.compile_attention(mask_mod, score_mod, heads=HEADS,
                               head_dim=HEAD_DIM, dtype="bf16", target=target,
                               cache_dir=cache_dir, compiler=compiler,
                               name=name)


if __name__ == "__main__":
    import sys
    compile_all(sys.argv[1], sys.argv[2] if len(sys.argv) > 2 else "sm_90a")
