"""Pure-Python helpers for the binding tests: random inputs, an fp64
attention reference on flat row-major lists, bf16 rounding and the relative
error ||got - ref|| / ||ref||, and the seed of a run."""

import math
import random
import struct
import sys


def seed_from_argv(index):
    """sys.argv[index] as the seed when given, else a random one; printed
    as "seed: N" so that a failing run can be repeated."""
    seed = int(sys.argv[index]) if len(sys.argv) > index else random.randrange(2**32)
    print(f"seed: {seed}")
    return seed


def random_values(rng, count):
    return [rng.uniform(-1.0, 1.0) for _ in range(count)]


def attention(q, k, v, b, hq, hkv, nq, nk, d, causal, scale=None):
    """out [b, hq, nq, d] and lse [b, hq, nq] of softmax attention over q
    [b, hq, nq, d], k and v [b, hkv, nk, d]; query head h reads key/value
    head h // (hq // hkv); causal allows key j for query i when j <= i."""
    scale = 1.0 / math.sqrt(d) if scale is None else scale
    group = hq // hkv
    out, lse = [], []
    for bi in range(b):
        for h in range(hq):
            kv = (bi * hkv + h // group) * nk
            for i in range(nq):
                row = q[((bi * hq + h) * nq + i) * d:][:d]
                keys = [j for j in range(nk) if not causal or j <= i]
                scores = [scale * sum(x * y for x, y in
                                      zip(row, k[(kv + j) * d:][:d]))
                          for j in keys]
                top = max(scores, default=-math.inf)
                weights = [math.exp(s - top) for s in scores]
                total = sum(weights)
                lse.append(top + math.log(total) if keys else -math.inf)
                out.extend(sum(w * v[(kv + j) * d + c]
                               for w, j in zip(weights, keys)) / total
                           if keys else 0.0 for c in range(d))
    return out, lse


def attention_backward(q, k, v, dout, b, hq, hkv, nq, nk, d, causal,
                       scale=None):
    """dq, dk and dv (flat, row-major) of sum(out * dout) for the attention
    of `attention`: with P the softmax of row i, dV_j += P_ij dO_i,
    dS_ij = P_ij (dO_i . V_j - sum_l P_il dO_i . V_l), dQ_i = scale
    sum_j dS_ij K_j and dK_j += scale dS_ij Q_i (summed over the query
    heads that share a key/value head)."""
    scale = 1.0 / math.sqrt(d) if scale is None else scale
    group = hq // hkv
    dq, dk, dv = [0.0] * len(q), [0.0] * len(k), [0.0] * len(v)
    for bi in range(b):
        for h in range(hq):
            kv = (bi * hkv + h // group) * nk
            for i in range(nq):
                row = ((bi * hq + h) * nq + i) * d
                keys = [j for j in range(nk) if not causal or j <= i]
                if not keys:
                    continue
                scores = [scale * sum(q[row + c] * k[(kv + j) * d + c]
                                      for c in range(d)) for j in keys]
                top = max(scores)
                weights = [math.exp(s - top) for s in scores]
                probs = [w / sum(weights) for w in weights]
                dp = [sum(dout[row + c] * v[(kv + j) * d + c]
                          for c in range(d)) for j in keys]
                delta = sum(p * g for p, g in zip(probs, dp))
                for p, g, j in zip(probs, dp, keys):
                    ds = p * (g - delta) * scale
                    for c in range(d):
                        dv[(kv + j) * d + c] += p * dout[row + c]
                        dq[row + c] += ds * k[(kv + j) * d + c]
                        dk[(kv + j) * d + c] += ds * q[row + c]
    return dq, dk, dv


def rel_err(got, ref):
    """||got - ref|| / ||ref||; NaN when any value is NaN."""
    diff = math.sqrt(sum((g - r) ** 2 for g, r in zip(got, ref, strict=True)))
    return diff / math.sqrt(sum(r * r for r in ref))


def report(label, got, ref, tol):
    """Prints "LABEL: rel_err E ok" (or FAIL) and returns whether it passed."""
    err = rel_err(got, ref)
    ok = err <= tol  # False for NaN
    print(f"{label}: rel_err {err:.2g} {'ok' if ok else 'FAIL'}")
    return ok


def bf16_bits(value):
    """The bf16 nearest to `value` (ties to even), as its 16 bits."""
    bits = struct.unpack("<I", struct.pack("<f", value))[0]
    return (bits + 0x7FFF + ((bits >> 16) & 1)) >> 16


def bf16_value(bits):
    return struct.unpack("<f", struct.pack("<I", bits << 16))[0]


def f32(value):
    """`value` rounded to f32."""
    return struct.unpack("<f", struct.pack("<f", value))[0]


def permute(values, shape, order):
    """Row-major `values` of `shape` rearranged so that the storage order of
    the dims is `order` (e.g. (0, 2, 1, 3) stores [B, H, N, D] as BNHD), and
    the element strides of the original dims in that storage."""
    stored_shape = [shape[i] for i in order]
    stored_strides = [1] * len(shape)
    for i in range(len(shape) - 2, -1, -1):
        stored_strides[i] = stored_strides[i + 1] * stored_shape[i + 1]
    strides = [0] * len(shape)
    for pos, dim in enumerate(order):
        strides[dim] = stored_strides[pos]
    out = [0.0] * len(values)
    for flat, value in enumerate(values):
        index, rest = [], flat
        for n in reversed(shape):
            index.append(rest % n)
            rest //= n
        index.reverse()
        out[sum(i * s for i, s in zip(index, strides))] = value
    return out, tuple(strides)


def gather(storage, shape, strides, offset=0):
    """The row-major values of a strided view of `storage`."""
    values = []

    def walk(dim, base):
        if dim == len(shape):
            values.append(storage[base])
            return
        for i in range(shape[dim]):
            walk(dim + 1, base + i * strides[dim])

    walk(0, offset)
    return values


def expect_error(label, action):
    """Runs `action`; prints "LABEL: Error: ..." for the attnc.Error it
    raises, or "LABEL: no error"."""
    import attnc
    try:
        action()
    except attnc.Error as e:
        print(f"{label}: Error: {e}")
    else:
        print(f"{label}: no error")
