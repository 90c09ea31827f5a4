"""Mask and score functions written once with attnc.flex's functions and
Python operators, so that they trace into attn regions for attnc and run on
torch tensors for torch's flex_attention (test/python/gpu/flex_check.py).
The cases of capture_cases read torch tensors they close over (document
ids, a relative-position bias), which attnc captures; compiling them needs
torch (on the CPU: only the tensors' dtypes and ranks reach the module)."""

from attnc import flex


def documents(b, h, q_idx, kv_idx):
    return (q_idx // 512 == kv_idx // 512) & (kv_idx <= q_idx)


def sliding(b, h, q_idx, kv_idx):
    return (kv_idx <= q_idx) & (q_idx - kv_idx <= 256)


def softcap(score, b, h, q_idx, kv_idx):
    return 30 * flex.tanh(score / 30)


def alibi(score, b, h, q_idx, kv_idx):
    return score - flex.exp2(-(h + 1) / 2) * (q_idx - kv_idx)


def documents_of(ids):
    """Packed documents: ids [B, N] int32 holds each position's document."""
    def documents_ids(b, h, q_idx, kv_idx):
        return (ids[b, q_idx] == ids[b, kv_idx]) & (kv_idx <= q_idx)
    return documents_ids


def relative_bias_of(table):
    """A learned-style bias per head and distance: table [Hq, N] f32."""
    def relative_bias(score, b, h, q_idx, kv_idx):
        return score + table[h, abs(q_idx - kv_idx)]
    return relative_bias


# name: (mask_mod, score_mod)
CASES = {
    "documents": (documents, None),
    "sliding": (sliding, None),
    "softcap": (None, softcap),
    "alibi_documents": (documents, alibi),
}
HEADS, HEAD_DIM = (16, 4), 128


def document_ids(batch, n, device, seed=0):
    """int32 ids [batch, n]: each batch packs documents of 64 to 1024
    tokens (random, from `seed`)."""
    import torch
    generator = torch.Generator().manual_seed(seed)
    lengths = torch.randint(64, 1025, (batch, n), generator=generator)
    starts = torch.zeros(batch, n, dtype=torch.int32)
    for row, row_lengths in zip(starts, lengths):
        at = 0
        for length in row_lengths.tolist():
            if at >= n:
                break
            row[at] = 1
            at += length
    return (starts.cumsum(dim=1) - 1).to(torch.int32).to(device)


def capture_mods(ids, table):
    """name: (mask_mod, score_mod) of the cases that read tensors: document
    `ids` [B, N] int32 and a bias `table` [Hq, N] f32; the same functions
    serve attnc (which captures the tensors) and torch."""
    documents_ids = documents_of(ids)
    return {
        "documents_ids": (documents_ids, None),
        "relative_bias": (None, relative_bias_of(table)),
        "relative_bias_documents_ids": (documents_ids,
                                        relative_bias_of(table)),
    }


def capture_cases(batch, n, device):
    """capture_mods of tensors made on `device` for `batch` sequences of
    `n` positions."""
    import torch
    generator = torch.Generator().manual_seed(1)
    table = (0.5 * torch.randn(HEADS[0], n, generator=generator)).to(device)
    return capture_mods(document_ids(batch, n, device), table)


def _torch_for_tracing():
    """torch, or where it is not installed (the machine that compiles the
    GPU bundle) the stand-in of the host tests: tracing reads only the
    captured tensors' dtypes and ranks."""
    try:
        import torch
    except ImportError:
        import os
        import sys
        inputs = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                              os.pardir, "Inputs")
        sys.path[:0] = [inputs, os.path.join(inputs, "fake_torch")]
        import torch
    return torch


def compile_all(cache_dir, target, compiler=None):
    """Fills `cache_dir` with a package per case (no device needed; the
    capture cases trace stand-in tensors of the same dtypes and ranks)."""
    torch = _torch_for_tracing()

    def zeros(dtype):
        if hasattr(torch, "zeros"):
            return torch.zeros((1, 1), dtype=dtype)
        return torch.Tensor(dtype, (1, 1), [0])  # the stand-in
    stand_ins = capture_mods(zeros(torch.int32), zeros(torch.float32))
    cases = {**CASES, **stand_ins}
    for name, (mask_mod, score_mod) in cases.items():
        flex.compile_attention(mask_mod, score_mod, heads=HEADS,
                               head_dim=HEAD_DIM, dtype="bf16", target=target,
                               cache_dir=cache_dir, compiler=compiler,
                               name=name)


if __name__ == "__main__":
    import sys
    compile_all(sys.argv[1], sys.argv[2] if len(sys.argv) > 2 else "sm_90a")
