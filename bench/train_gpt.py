"""The GPT of scripts/make-gpt.py in PyTorch: the reference attn-train's
runs are compared with, on the same weights and the same batches.

  train_gpt.py init --out init.safetensors --d-model 768 --ffn 2048 \\
      --layers 12 --vocab 50304 [--seed 1]
      writes initial f32 weights (matrices N(0, 0.02^2), norm gains 1) under
      the names attn-train's --init reads
  train_gpt.py train --init init.safetensors --data tokens.tok --heads 12 \\
      --steps 200 --batch 16 --seq 1024 --lr 6e-4 --warmup 20 \\
      [--compile] --metrics torch.jsonl [--profile STEPS]
      trains with torch.optim.AdamW(fused=True) on f32 masters, bf16
      compute (the weights cast to bf16 as the attnc step casts them), the
      windows in file order (attn-train --sequential), build-nanogpt's
      schedule (lib/train/Schedule.cpp) and clip_grad_norm_(1.0); writes a
      JSON line per step like attn-train's --metrics
  train_gpt.py loss --weights step-40.safetensors --data tokens.tok \\
      --heads 12 --step 41 --batch 16 --seq 1024
      loads the model's weights from an attn-train checkpoint (its
      optimizer moments left aside) and prints the loss of the step's batch
      (its windows in file order, as attn-train --sequential reads them)
  train_gpt.py compare attnc.jsonl torch.jsonl [--every 10] [--tol 0.02]
      the relative difference of the losses at every logged step
  train_gpt.py batch --data tokens.tok --batch 16 --seq 1024 [--step 1] \\
      --out batch.safetensors
      writes the step's ids and labels (i32 [batch, seq], the windows in
      file order, as attn-train --sequential reads them) for attn-run
      --inputs, so that a training step is timed on the run's data; needs
      neither torch nor numpy
"""

import argparse
import json
import math
import struct
import sys
import time

PEAK_TFLOPS = 989.0  # H200 bf16 dense


def names(layers):
    per_layer = ["g1", "wq", "wk", "wv", "wo", "g2", "wg", "wu", "wd"]
    return (["wte"] + [f"{n}_{l}" for l in range(layers) for n in per_layer]
            + ["gf"])


def shapes(a):
    d, f = a.d_model, a.ffn
    per = {"g1": [d], "wq": [d, d], "wk": [d, d], "wv": [d, d],
           "wo": [d, d], "g2": [d], "wg": [f, d], "wu": [f, d], "wd": [d, f]}
    out = {"wte": [a.vocab, d], "gf": [d]}
    for l in range(a.layers):
        out.update({f"{n}_{l}": s for n, s in per.items()})
    return out


def init(a):
    import torch
    from safetensors.torch import save_file
    gen = torch.Generator().manual_seed(a.seed)
    tensors = {}
    for name, shape in shapes(a).items():
        tensors[name] = (torch.normal(0.0, 0.02, shape, generator=gen)
                         if len(shape) == 2 else torch.ones(shape))
    save_file(tensors, a.out)
    count = sum(t.numel() for t in tensors.values())
    print(f"{a.out}: {count} parameters")


def token_header(path):
    """(bytes per token, token count) of a file with docs/runtime.md's
    32-byte header."""
    with open(path, "rb") as f:
        header = f.read(32)
    if len(header) < 32:
        sys.exit(f"{path}: not an attnc token file")
    magic, version, width, count, vocab, _ = struct.unpack("<8sIIQII", header)
    if magic != b"ATTNTOK1" or version != 1 or width not in (2, 4):
        sys.exit(f"{path}: not an attnc token file")
    return width, count


def tokens(path):
    """The tokens of a token file, memory-mapped."""
    import numpy as np
    width, count = token_header(path)
    dtype = {2: np.uint16, 4: np.uint32}[width]
    return np.memmap(path, dtype=dtype, mode="r", offset=32, shape=(count,))


def window_starts(count, batch, seq, step):
    """The first token of each window of step `step` (from 1): windows of
    seq + 1 tokens in file order, as attn-train --sequential."""
    windows = (count - 1) // seq
    if windows < 1:
        sys.exit(f"{count} tokens make no window of {seq + 1}")
    first = (step - 1) * batch
    return [((first + i) % windows) * seq for i in range(batch)]


def batches(data, batch, seq):
    """The steps' windows of seq + 1 tokens, [batch, seq + 1] each."""
    import numpy as np
    step = 1
    while True:
        rows = [np.asarray(data[w:w + seq + 1], dtype=np.int64)
                for w in window_starts(len(data), batch, seq, step)]
        step += 1
        yield np.stack(rows)


def write_batch(a):
    """Step a.step's ids and labels as i32 safetensors, standard library
    only."""
    width, count = token_header(a.data)
    code = {2: "H", 4: "I"}[width]
    ids, labels = [], []
    with open(a.data, "rb") as f:
        for start in window_starts(count, a.batch, a.seq, a.step):
            f.seek(32 + width * start)
            window = struct.unpack(f"<{a.seq + 1}{code}",
                                   f.read(width * (a.seq + 1)))
            ids += window[:-1]
            labels += window[1:]
    size = 4 * len(ids)
    shape = [a.batch, a.seq]
    header = json.dumps({
        "ids": {"dtype": "I32", "shape": shape, "data_offsets": [0, size]},
        "labels": {"dtype": "I32", "shape": shape,
                   "data_offsets": [size, 2 * size]}}).encode()
    header += b" " * (-len(header) % 8)
    with open(a.out, "wb") as f:
        f.write(struct.pack("<Q", len(header)) + header)
        f.write(struct.pack(f"<{len(ids)}i", *ids))
        f.write(struct.pack(f"<{len(labels)}i", *labels))
    print(f"{a.out}: step {a.step}'s ids and labels, [{a.batch}, {a.seq}]")


def lr_at(step, a):
    """build-nanogpt's schedule, as lib/train/Schedule.cpp."""
    if step < a.warmup:
        return a.lr * (step + 1) / a.warmup
    if step >= a.steps:
        return a.min_lr
    ratio = (step - a.warmup) / (a.steps - a.warmup)
    return a.min_lr + 0.5 * (1 + math.cos(math.pi * ratio)) * (a.lr - a.min_lr)


def build_model(params, heads):
    import torch
    import torch.nn.functional as F

    layers = (len(params) - 2) // 9

    def rms(x, g):
        # attn.rms_norm: statistics in f32, the result rounded once.
        xf = x.float()
        r = torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + 1e-5)
        return (xf * r * g.float()).to(x.dtype)

    def attention(x, p, l):
        b, n, d = x.shape
        def split(w):
            return F.linear(x, p[f"{w}_{l}"]).view(b, n, heads, d // heads) \
                .transpose(1, 2)
        o = F.scaled_dot_product_attention(split("wq"), split("wk"),
                                           split("wv"), is_causal=True)
        return F.linear(o.transpose(1, 2).reshape(b, n, d), p[f"wo_{l}"])

    def mlp(x, p, l):
        gate = F.linear(x, p[f"wg_{l}"]).float()
        up = F.linear(x, p[f"wu_{l}"]).float()
        return F.linear((F.silu(gate) * up).to(x.dtype), p[f"wd_{l}"])

    def loss_fn(masters, ids, labels):
        p = {k: v.to(torch.bfloat16) for k, v in masters.items()}
        x = F.embedding(ids, p["wte"])
        for l in range(layers):
            h = x + attention(rms(x, p[f"g1_{l}"]), p, l)
            x = h + mlp(rms(h, p[f"g2_{l}"]), p, l)
        logits = F.linear(rms(x, p["gf"]), p["wte"])
        return F.cross_entropy(logits.float().view(-1, logits.shape[-1]),
                               labels.reshape(-1))

    return loss_fn


def batch_loss(a):
    import torch
    from safetensors.torch import load_file
    weights = load_file(a.weights)
    model = {k: v.cuda() for k, v in weights.items()
             if not k.startswith(("m_", "v_"))}
    loss_fn = build_model(model, a.heads)
    data = batches(tokens(a.data), a.batch, a.seq)
    for _ in range(a.step):
        window = next(data)
    window = torch.from_numpy(window).cuda()
    with torch.no_grad():
        loss = loss_fn(model, window[:, :-1], window[:, 1:])
    print(f"{a.weights}: loss of step {a.step}'s batch {loss.item():.6f} "
          f"({len(model)} tensors of {len(weights)})")


def train(a):
    import torch
    from safetensors.torch import load_file
    masters = {k: v.cuda().requires_grad_(True)
               for k, v in load_file(a.init).items()}
    count = sum(v.numel() for v in masters.values())
    loss_fn = build_model(masters, a.heads)
    if a.compile:
        loss_fn = torch.compile(loss_fn)
    decay = [v for v in masters.values() if v.dim() >= 2]
    no_decay = [v for v in masters.values() if v.dim() < 2]
    opt = torch.optim.AdamW(
        [{"params": decay, "weight_decay": 0.1},
         {"params": no_decay, "weight_decay": 0.0}],
        lr=a.lr, betas=(0.9, 0.95), eps=1e-8, fused=True)
    data = batches(tokens(a.data), a.batch, a.seq)

    def train_step(step):
        window = torch.from_numpy(next(data))
        if a.overlap:
            # A pageable copy would wait for the steps queued before it.
            window = window.pin_memory().cuda(non_blocking=True)
        else:
            window = window.cuda()
        ids, labels = window[:, :-1], window[:, 1:]
        lr = lr_at(step, a)
        for group in opt.param_groups:
            group["lr"] = lr
        loss = loss_fn(masters, ids, labels)
        loss.backward()
        norm = torch.nn.utils.clip_grad_norm_(list(masters.values()), 1.0)
        opt.step()
        opt.zero_grad(set_to_none=True)
        return lr, loss.detach(), norm.detach()

    out = open(a.metrics, "w")
    start = time.perf_counter()
    since = start
    pending = []  # steps whose loss and norm are not read yet
    for step in range(a.steps):
        lr, loss, norm = train_step(step)
        pending.append((step, lr, loss, norm))
        logged = (step + 1) % a.log_every == 0 or step + 1 == a.steps
        if a.overlap and not logged:
            continue
        # One wait for the pending steps; each is timed as their mean.
        values = torch.stack([torch.stack([l.float(), n.float()])
                              for _, _, l, n in pending]).tolist()
        now = time.perf_counter()
        tps = a.batch * a.seq * len(pending) / (now - since)
        mfu = 6 * count * tps / (PEAK_TFLOPS * 1e12)
        for (done, rate, _, _), (loss_value, norm_value) in zip(pending,
                                                                values):
            out.write(json.dumps({"step": done + 1, "loss": loss_value,
                                  "lr": rate, "grad_norm": norm_value,
                                  "tokens_per_s": tps, "mfu": mfu,
                                  "seconds": now - start}) + "\n")
        pending, since = [], now
        if logged:
            print(f"step {step + 1}/{a.steps} | loss {loss_value:.4f} | "
                  f"lr {lr:.3g} | grad norm {norm_value:.3g} | "
                  f"{tps:.0f} tok/s | mfu {100 * mfu:.1f}%", flush=True)
    out.close()
    if a.profile:
        print_profile(lambda: train_step(a.steps), a.profile)


def print_profile(step, steps):
    """The CUDA kernels of `steps` more steps (at the last learning rate)
    by total time, for a comparison with attn-run --profile."""
    import torch
    from torch.profiler import ProfilerActivity, profile
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        for _ in range(steps):
            step()
        torch.cuda.synchronize()
    print(f"CUDA kernels of {steps} steps, by total time")
    print(prof.key_averages().table(sort_by="cuda_time_total", row_limit=40,
                                    max_name_column_width=70))


def steady(rows, skip):
    """Median tokens/s and MFU of the steps after the first `skip`."""
    later = rows[skip:] or rows
    tps = sorted(r["tokens_per_s"] for r in later)[len(later) // 2]
    mfu = sorted(r["mfu"] for r in later)[len(later) // 2]
    return tps, mfu


def compare(a):
    ours = {r["step"]: r for r in map(json.loads, open(a.attnc))}
    theirs = {r["step"]: r for r in map(json.loads, open(a.torch))}
    worst = 0.0
    for step in sorted(ours):
        if step % a.every and step != 1:
            continue
        if step not in theirs:
            continue
        x, y = ours[step]["loss"], theirs[step]["loss"]
        diff = abs(x - y) / abs(y)
        worst = max(worst, diff)
        print(f"step {step}: attnc {x:.4f} torch {y:.4f} rel {diff:.4f}")
    tps_ours, mfu_ours = steady(list(ours.values()), a.skip)
    tps_theirs, mfu_theirs = steady(list(theirs.values()), a.skip)
    print(f"largest relative loss difference: {worst:.4f} "
          f"({'within' if worst <= a.tol else 'beyond'} {a.tol})")
    print(f"tokens/s (median after step {a.skip}): attnc {tps_ours:.0f} "
          f"(MFU {100 * mfu_ours:.1f}%), torch {tps_theirs:.0f} "
          f"(MFU {100 * mfu_theirs:.1f}%): {tps_ours / tps_theirs:.3f}x")


def main():
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("init")
    p.add_argument("--out", required=True)
    p.add_argument("--seed", type=int, default=1)
    for name in ["d-model", "ffn", "layers", "vocab"]:
        p.add_argument(f"--{name}", type=int, required=True)
    def model_and_data(p, weights, steps):
        """The options train and loss share: weights, data, shape."""
        p.add_argument(weights, required=True)
        p.add_argument("--data", required=True)
        for name in ["heads", steps, "batch", "seq"]:
            p.add_argument(f"--{name}", type=int, required=True)

    p = sub.add_parser("train")
    model_and_data(p, "--init", "steps")
    p.add_argument("--lr", type=float, default=6e-4)
    p.add_argument("--min-lr", type=float)
    p.add_argument("--warmup", type=int, default=0)
    p.add_argument("--compile", action="store_true")
    p.add_argument("--overlap", action="store_true",
                   help="queue each step without waiting for the one "
                   "before: windows copied from pinned memory, losses and "
                   "gradient norms read at logged steps only (the tokens/s "
                   "of a step is its interval's mean)")
    p.add_argument("--log-every", type=int, default=10)
    p.add_argument("--metrics", required=True)
    p.add_argument("--profile", type=int, metavar="STEPS", default=0,
                   help="after the run, print the CUDA kernels of STEPS "
                   "more steps (torch.profiler)")
    p = sub.add_parser("loss")
    model_and_data(p, "--weights", "step")
    p = sub.add_parser("batch")
    p.add_argument("--data", required=True)
    p.add_argument("--batch", type=int, required=True)
    p.add_argument("--seq", type=int, required=True)
    p.add_argument("--step", type=int, default=1)
    p.add_argument("--out", required=True)
    p = sub.add_parser("compare")
    p.add_argument("attnc")
    p.add_argument("torch")
    p.add_argument("--every", type=int, default=10)
    p.add_argument("--tol", type=float, default=0.02)
    p.add_argument("--skip", type=int, default=10)
    a = parser.parse_args()
    if a.command == "train" and a.min_lr is None:
        a.min_lr = a.lr / 10
    {"init": init, "train": train, "loss": batch_loss,
     "compare": compare, "batch": write_batch}[a.command](a)


if __name__ == "__main__":
    main()
