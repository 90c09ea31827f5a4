"""Checks of attn-train's metrics and checkpoints, for its lit tests.

  train_check.py falls METRICS [--allow-skipped]
      the mean loss of the last 5 applied steps is below the first 5's by
      1.0 or more (natural log units), and no step was skipped unless
      allowed
  train_check.py timings METRICS TOKENS
      every step's enqueue_seconds is within [0, step_seconds] and its
      tokens_per_s is TOKENS / step_seconds
  train_check.py same-losses A B
      the two metrics files hold the same steps with bitwise equal losses
      and gradient norms, and validation losses where both validated (9
      significant digits round-trip an f32)
  train_check.py validated METRICS EVERY
      validation losses at exactly the steps that are multiples of EVERY
      and the last, the last below the first
  train_check.py validation-is-next-loss METRICS
      each validation loss (after step n, on a file of one batch that is
      also the training data) is step n + 1's training loss, up to a
      relative 1e-5 (the same forward in two functions)
  train_check.py same-tensors A B [--masters]
      the two safetensors files hold the same tensors (with --masters only
      the weights, not the moments m_* and v_*) with the same bytes
  train_check.py close A.jsonl B.jsonl A.safetensors B.safetensors
      the runs' losses and gradient norms, and each tensor of their
      checkpoints, agree to a relative 1e-5 (f32 rounding; 2e-5 for the
      second moments v_*, sums of squares)
  train_check.py zero-moments FILE
      every optimizer moment (m_*, v_*) in the checkpoint is 0
  train_check.py png FILE WIDTH HEIGHT
      FILE is a PNG of that size whose pixels decode and are not all of
      one color (bench/plot_loss.py's output)
  train_check.py scalars FILE LR STEP LOSS_SCALE
      writes a step's three scalar inputs to a safetensors file, for
      attn-run --inputs
  train_check.py flat PACKAGE FUNCTION CHECKPOINT FILE
      writes the checkpoint's masters and moments as the flat inputs
      params, m and v of the package's training step FUNCTION (laid out
      as its segments say) to a safetensors file, for attn-run --inputs
"""

import json
import math
import struct
import sys


def metrics(path):
    with open(path) as f:
        return [json.loads(line) for line in f if line.strip()]


def tensors(path):
    with open(path, "rb") as f:
        size = struct.unpack("<Q", f.read(8))[0]
        header = json.loads(f.read(size))
        data = f.read()
    header.pop("__metadata__", None)
    return {name: data[entry["data_offsets"][0]:entry["data_offsets"][1]]
            for name, entry in header.items()}


def falls(path, allow=""):
    rows = metrics(path)
    skipped = [r["step"] for r in rows if r["skipped"]]
    if skipped and allow != "--allow-skipped":
        sys.exit(f"steps {skipped} were skipped")
    rows = [r for r in rows if not r["skipped"]]
    first = sum(r["loss"] for r in rows[:5]) / 5
    last = sum(r["loss"] for r in rows[-5:]) / 5
    print(f"loss falls from {first:.2f} to {last:.2f} over {len(rows)} steps")
    if last > first - 1.0:
        sys.exit("the loss did not fall by 1.0")


def timings(path, tokens):
    rows = metrics(path)
    for r in rows:
        step, enqueue = r["step_seconds"], r["enqueue_seconds"]
        if not 0 <= enqueue <= step:
            sys.exit(f"step {r['step']}: enqueue_seconds {enqueue} outside "
                     f"[0, step_seconds {step}]")
        if not math.isclose(r["tokens_per_s"], float(tokens) / step,
                            rel_tol=1e-6):
            sys.exit(f"step {r['step']}: tokens_per_s {r['tokens_per_s']} "
                     f"is not {tokens} / {step}")
    print(f"{len(rows)} steps: enqueue within each step's time")


def same_losses(a, b):
    ra, rb = metrics(a), metrics(b)
    # Validation losses count where both runs validated.
    both = all(any("val_loss" in r for r in rows) for rows in (ra, rb))

    def key(rows):
        return [(r["step"], r["loss"], r["grad_norm"],
                 r.get("val_loss") if both else None) for r in rows]
    if key(ra) != key(rb):
        sys.exit(f"{a} and {b} differ")
    print(f"{len(ra)} steps with the same losses")


def validated(path, every):
    rows = metrics(path)
    every, last = int(every), rows[-1]["step"]
    steps = [r["step"] for r in rows if "val_loss" in r]
    expected = [r["step"] for r in rows
                if r["step"] % every == 0 or r["step"] == last]
    if steps != expected:
        sys.exit(f"validated after steps {steps}, expected {expected}")
    losses = [r["val_loss"] for r in rows if "val_loss" in r]
    if not losses[-1] < losses[0]:
        sys.exit(f"validation loss did not fall: {losses}")
    print(f"{len(losses)} validations, {losses[0]:.4f} -> {losses[-1]:.4f}")


def validation_is_next_loss(path):
    rows = {r["step"]: r for r in metrics(path)}
    checked = 0
    for step, r in rows.items():
        if "val_loss" in r and step + 1 in rows:
            val, loss = r["val_loss"], rows[step + 1]["loss"]
            if abs(val - loss) > 1e-5 * abs(loss):
                sys.exit(f"after step {step}: validation {val}, "
                         f"step {step + 1}'s loss {loss}")
            checked += 1
    if not checked:
        sys.exit("no validation loss to check")
    print(f"{checked} validation losses equal the next step's loss")


def same_tensors(a, b, which=""):
    def kept(name):
        return which != "--masters" or not name.startswith(("m_", "v_"))
    ta = {k: v for k, v in tensors(a).items() if kept(k)}
    tb = {k: v for k, v in tensors(b).items() if kept(k)}
    differ = sorted(k for k in ta.keys() | tb.keys() if ta.get(k) != tb.get(k))
    if differ or not ta:
        sys.exit(f"tensors differ: {differ[:5]}")
    print(f"{len(ta)} tensors bitwise equal")


def relative(x, y):
    num = sum((p - q) ** 2 for p, q in zip(x, y)) ** 0.5
    return num / max(sum(p * p for p in x) ** 0.5, 1e-30)


def close(metrics_a, metrics_b, tensors_a, tensors_b, rtol=1e-5):
    pairs = list(zip(metrics(metrics_a), metrics(metrics_b)))
    for ra, rb in pairs:
        for key in ["loss", "grad_norm"]:
            if relative([ra[key]], [rb[key]]) > rtol:
                sys.exit(f"step {ra['step']}: {key} {ra[key]} and {rb[key]}")
    ta, tb = tensors(tensors_a), tensors(tensors_b)
    if ta.keys() != tb.keys():
        sys.exit("the checkpoints hold different tensors")
    for name in ta:
        x = struct.unpack(f"<{len(ta[name]) // 4}f", ta[name])
        y = struct.unpack(f"<{len(tb[name]) // 4}f", tb[name])
        # A second moment is a sum of squares: twice its gradient's
        # relative rounding.
        limit = 2 * rtol if name.startswith("v_") else rtol
        if relative(x, y) > limit:
            sys.exit(f"{name}: relative difference {relative(x, y):.2g}")
    print(f"{len(pairs)} steps and {len(ta)} tensors agree within {rtol}")


def zero_moments(path):
    moments = {k: v for k, v in tensors(path).items()
               if k.startswith(("m_", "v_"))}
    nonzero = sorted(k for k, v in moments.items() if any(v))
    if nonzero or not moments:
        sys.exit(f"moments not zero: {nonzero[:5]}")
    print(f"{len(moments)} moments are zero")


def png(path, width, height):
    import zlib
    data = open(path, "rb").read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        sys.exit("not a PNG")
    pos, idat, size = 8, b"", None
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            size = struct.unpack(">II", body[:8])
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    if size != (int(width), int(height)):
        sys.exit(f"size {size}")
    rows = zlib.decompress(idat)
    colors = {rows[i:i + 3] for i in range(1, len(rows), 3)}
    print(f"{path}: {size[0]} x {size[1]}, {len(colors)} colors")
    if len(colors) < 3:
        sys.exit("a blank image")


def write_f32(path, named):
    """Writes f32 tensors, {name: (shape, bytes)}, as a safetensors file."""
    header, data = {}, b""
    for name, (shape, raw) in named.items():
        header[name] = {"dtype": "F32", "shape": shape,
                        "data_offsets": [len(data), len(data) + len(raw)]}
        data += raw
    text = json.dumps(header).encode()
    text += b" " * (-len(text) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)) + text + data)


def scalars(path, lr, step, loss_scale):
    values = {"lr": lr, "step": step, "loss_scale": loss_scale}
    write_f32(path, {name: ([], struct.pack("<f", float(value)))
                     for name, value in values.items()})


def flat(package, function, checkpoint, path):
    with open(package, "rb") as f:
        head = f.read(24)
        header_size = struct.unpack_from("<I", head, 12)[0]
        manifest_size = struct.unpack_from("<Q", head, 16)[0]
        f.seek(header_size)
        manifest = json.loads(f.read(manifest_size))
    step = next(fn for fn in manifest["functions"] if fn["name"] == function)
    saved = tensors(checkpoint)
    total = sum(len(saved[s["name"]]) for s in step["segments"]) // 4
    write_f32(path, {
        name: ([total], b"".join(saved[prefix + s["name"]]
                                 for s in step["segments"]))
        for name, prefix in (("params", ""), ("m", "m_"), ("v", "v_"))})


if __name__ == "__main__":
    command, *args = sys.argv[1:]
    {"falls": falls, "timings": timings, "same-losses": same_losses,
     "validated": validated, "validation-is-next-loss": validation_is_next_loss,
     "same-tensors": same_tensors, "zero-moments": zero_moments,
     "scalars": scalars,
     "close": close, "png": png, "flat": flat}[command](*args)
