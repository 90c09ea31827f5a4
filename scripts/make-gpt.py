#!/usr/bin/env python3
"""Writes a GPT-style decoder's loss function in the attn dialect.

The model: token embedding tied to the LM head, pre-norm blocks (RMSNorm,
causal multi-head attention without positional embeddings, a SwiGLU MLP,
weights in nn.Linear's [out, in] layout, no biases), a final RMSNorm and
the mean cross-entropy of the next token. The function is marked
attn.backward and attn.train, so attnc derives its backward and its AdamW
training step. examples/tiny_gpt.mlir and examples/gpt_125m.mlir are its
output; bench/train_gpt.py is the same model in PyTorch.

  make-gpt.py NAME --d-model 768 --heads 12 --ffn 2048 --layers 12 \\
      --vocab 50304 --dtype bf16 > model.mlir
"""

import argparse

TRAIN = "beta1 = 0.9, beta2 = 0.95, weight_decay = 0.1, max_grad_norm = 1.0"


def arguments(a, t):
    """The function's arguments: data, then every parameter."""
    args = ["%ids: tensor<?x?xi32>", "%labels: tensor<?x?xi32>",
            f"%wte: tensor<{a.vocab}x{a.d_model}x{t}>"]
    d, f = a.d_model, a.ffn
    shapes = [("g1", f"{d}"), ("wq", f"{d}x{d}"), ("wk", f"{d}x{d}"),
              ("wv", f"{d}x{d}"), ("wo", f"{d}x{d}"), ("g2", f"{d}"),
              ("wg", f"{f}x{d}"), ("wu", f"{f}x{d}"), ("wd", f"{d}x{f}")]
    for layer in range(a.layers):
        args += [f"%{n}_{layer}: tensor<{s}x{t}>" for n, s in shapes]
    return args + [f"%gf: tensor<{d}x{t}>"]


def block(a, t, layer, x):
    """The ops of one block reading the residual stream `x`."""
    d, f, h = a.d_model, a.ffn, a.heads
    act, wide = f"tensor<?x?x{d}x{t}>", f"tensor<?x?x{f}x{t}>"
    heads = f"tensor<?x{h}x?x{d // h}x{t}>"
    vec, sq = f"tensor<{d}x{t}>", f"tensor<{d}x{d}x{t}>"
    up, down = f"tensor<{f}x{d}x{t}>", f"tensor<{d}x{f}x{t}>"
    l = layer
    norm = "{epsilon = 1.0e-05 : f32}"
    ops = [f"  // Block {l}.",
           f"  %n1_{l}, %r1_{l} = attn.rms_norm {x}, %g1_{l} {norm}"
           f" : {act}, {vec} -> {act}, tensor<?x?xf32>"]
    for p in "qkv":
        ops += [f"  %{p}_{l} = attn.matmul %n1_{l}, %w{p}_{l} {{transpose_b}}"
                f" : {act}, {sq} -> {act}",
                f"  %{p}h_{l} = attn.split_heads %{p}_{l} : {act} -> {heads}"]
    ops += [f"  %o_{l}, %lse_{l} = attn.attention %qh_{l}, %kh_{l}, %vh_{l}"
            f" {{causal}} : {heads}, {heads}, {heads} -> {heads},"
            f" tensor<?x{h}x?xf32>",
            f"  %om_{l} = attn.merge_heads %o_{l} : {heads} -> {act}",
            f"  %proj_{l} = attn.matmul %om_{l}, %wo_{l} {{transpose_b}}"
            f" : {act}, {sq} -> {act}",
            f"  %h_{l} = arith.addf {x}, %proj_{l} : {act}",
            f"  %n2_{l}, %r2_{l} = attn.rms_norm %h_{l}, %g2_{l} {norm}"
            f" : {act}, {vec} -> {act}, tensor<?x?xf32>",
            f"  %gate_{l} = attn.matmul %n2_{l}, %wg_{l} {{transpose_b}}"
            f" : {act}, {up} -> {wide}",
            f"  %up_{l} = attn.matmul %n2_{l}, %wu_{l} {{transpose_b}}"
            f" : {act}, {up} -> {wide}",
            f"  %act_{l} = attn.elementwise %gate_{l}, %up_{l}"
            f" : {wide}, {wide} -> {wide} {{",
            "  ^bb0(%g: f32, %u: f32):",
            "    %one = arith.constant 1.0 : f32",
            "    %neg = arith.negf %g : f32",
            "    %e = math.exp %neg : f32",
            "    %den = arith.addf %one, %e : f32",
            "    %silu = arith.divf %g, %den : f32",
            "    %p = arith.mulf %silu, %u : f32",
            "    attn.yield %p : f32",
            "  }",
            f"  %down_{l} = attn.matmul %act_{l}, %wd_{l} {{transpose_b}}"
            f" : {wide}, {down} -> {act}",
            f"  %y_{l} = arith.addf %h_{l}, %down_{l} : {act}"]
    return ops, f"%y_{l}"


def model(a):
    t, d, v = a.dtype, a.d_model, a.vocab
    train = TRAIN + (f", compute = {a.compute}" if a.compute else "")
    act = f"tensor<?x?x{d}x{t}>"
    lines = [f"func.func @{a.name}(" + ",\n    ".join(arguments(a, t)) +
             ") -> tensor<f32>",
             f"    attributes {{attn.backward, attn.train = {{{train}}}}} {{",
             f"  %x0 = attn.embedding %wte, %ids : tensor<{v}x{d}x{t}>,"
             f" tensor<?x?xi32> -> {act}"]
    x = "%x0"
    for layer in range(a.layers):
        ops, x = block(a, t, layer, x)
        lines += ops
    ignore = "{ignore_index = -100 : i64}"
    lines += [f"  %nf, %rf = attn.rms_norm {x}, %gf {{epsilon = 1.0e-05 : f32}}"
              f" : {act}, tensor<{d}x{t}> -> {act}, tensor<?x?xf32>",
              f"  %logits = attn.matmul %nf, %wte {{transpose_b}} : {act},"
              f" tensor<{v}x{d}x{t}> -> tensor<?x?x{v}x{t}>",
              f"  %losses, %lse = attn.cross_entropy %logits, %labels {ignore}"
              f" : tensor<?x?x{v}x{t}>, tensor<?x?xi32> -> tensor<?x?xf32>,"
              f" tensor<?x?xf32>",
              f"  %loss = attn.token_mean %losses, %labels {ignore}"
              f" : tensor<?x?xf32>, tensor<?x?xi32> -> tensor<f32>",
              "  return %loss : tensor<f32>", "}"]
    return "\n".join(lines)


def main():
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    parser.add_argument("name")
    parser.add_argument("--d-model", type=int, required=True)
    parser.add_argument("--heads", type=int, required=True)
    parser.add_argument("--ffn", type=int, required=True)
    parser.add_argument("--layers", type=int, required=True)
    parser.add_argument("--vocab", type=int, required=True)
    parser.add_argument("--dtype", choices=["f32", "f16", "bf16"],
                        default="bf16")
    parser.add_argument("--compute", choices=["f16", "bf16"],
                        help="the training step's 16-bit type (attn.train's "
                             "compute): a bf16 model trained in f16")
    a = parser.parse_args()
    if a.d_model % a.heads:
        parser.error("--d-model must be a multiple of --heads")
    print(model(a))


if __name__ == "__main__":
    main()
