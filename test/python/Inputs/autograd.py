"""attnc.autograd on the host: GradientPlan (finding a function's gradient
function through the manifest's gradient_of, which outputs take
cotangents, which inputs the gradients belong to) and
attnc.autograd_function against the stand-in torch (Inputs/fake_torch),
playing the autograd engine's part as torch.library documents it:
setup_context after the forward call, then backward with one cotangent per
output (None for an output that did not reach the loss). Gradients are
checked against a pure-Python fp64 reference, itself checked against
finite differences.

usage: autograd.py PACKAGE [SEED]"""

import os
import random
import sys

import attnc
import reference

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "fake_torch"))
import torch  # noqa: E402  (the stand-in)

F32_TOL, BF16_TOL = 1e-5, 2e-2


def show_plan(pkg, name):
    plan = attnc.GradientPlan(pkg, name)
    outputs = plan.forward.signature.outputs
    inputs = plan.forward.signature.inputs
    pairs = [f"{g.name}->{inputs[i].name}" for g, i in
             zip(plan.gradient.signature.outputs, plan.gradient_inputs)]
    print(f"{plan!r}: cotangents for "
          f"{[outputs[j].name for j in plan.cotangent_outputs]}, "
          f"gradients {pairs}")


class Problem:
    """Random stand-in torch inputs of one attention, a cotangent of its out
    stored [B, N, H, D] (not contiguous), and their fp64 references."""

    def __init__(self, rng, dtype, b, hq, hkv, nq, nk, d, causal):
        self.dims = (b, hq, hkv, nq, nk, d)
        self.causal = causal
        shapes = ((b, hq, nq, d), (b, hkv, nk, d), (b, hkv, nk, d))
        self.inputs = [random_tensor(rng, dtype, s) for s in shapes]
        out_shape = shapes[0]
        self.dout = torch.Tensor(dtype, out_shape,
                                 reference.random_values(rng, count(out_shape)),
                                 strides=(nq * hq * d, d, hq * d, 1))
        self.values = [t.tolist() for t in self.inputs]  # as rounded
        self.ref_out, self.ref_lse = reference.attention(
            *self.values, *self.dims, causal)
        self.ref_grads = reference.attention_backward(
            *self.values, self.dout.tolist(), *self.dims, causal)

    def loss(self, q, k, v):
        out, _ = reference.attention(q, k, v, *self.dims, self.causal)
        return sum(o * w for o, w in zip(out, self.dout.tolist()))

    def finite_differences_agree(self, rng, samples=4, step=1e-5):
        """The reference gradients against central differences of the
        reference loss, at a few elements of each input."""
        for which, grad in enumerate(self.ref_grads):
            for index in rng.sample(range(len(grad)), samples):
                values = [list(v) for v in self.values]
                values[which][index] += step
                up = self.loss(*values)
                values[which][index] -= 2 * step
                down = self.loss(*values)
                if abs((up - down) / (2 * step) - grad[index]) > 1e-6:
                    return False
        return True


def count(shape):
    n = 1
    for extent in shape:
        n *= extent
    return n


def random_tensor(rng, dtype, shape):
    return torch.Tensor(dtype, shape, reference.random_values(rng, count(shape)))


def check(label, tensors, refs, tol):
    ok = True
    for name, tensor, ref in zip(("dq", "dk", "dv"), tensors, refs):
        ok &= reference.report(f"{label} {name}", tensor.tolist(), ref, tol)
    return ok


def backward(differentiable, inputs, *cotangents):
    """What torch's autograd does with a custom op: the forward call,
    setup_context, then backward with the output cotangents."""
    op = differentiable.forward_op
    ctx = torch.FunctionCtx()
    op.setup_context(ctx, tuple(inputs), op.fn(*inputs))
    grads = op.backward(ctx, *cotangents)
    return ctx, grads


def forward_and_backward(pkg, name, problem, tol):
    """out, lse and the gradients of sum(out * dout) through
    autograd_function, against the reference."""
    f = attnc.autograd_function(pkg, name)
    out, lse = f(*problem.inputs)
    ok = reference.report(f"{name} out", out.tolist(), problem.ref_out, tol)
    ok &= reference.report(f"{name} lse", lse.tolist(), problem.ref_lse, 1e-5)
    ctx, grads = backward(f, problem.inputs, problem.dout, None)
    print(f"{name}: saved {len(ctx.saved_tensors)} tensors, materialize "
          f"grads {ctx.materialize_grads}, {len(grads)} gradients")
    dout = f.backward_op.calls[-1][-1]
    print(f"{name}: dout given to {f.plan.gradient.name} is "
          f"{'contiguous' if dout.strides is None else 'strided'}")
    return f, ctx, ok & check(name, grads, problem.ref_grads, tol)


def main():
    rng = random.Random(reference.seed_from_argv(2))
    rt = attnc.Runtime("host")
    pkg = rt.load(sys.argv[1])
    print(f"package device: {pkg.device}")

    for name in ("gqa", "bf16", "lse_first", "out_only", "two"):
        show_plan(pkg, name)
    reference.expect_error("no gradient", lambda: attnc.GradientPlan(pkg, "fwd_only"))
    reference.expect_error("unknown", lambda: attnc.autograd_function(pkg, "nope"))
    reference.expect_error("gradient of a gradient",
                 lambda: attnc.GradientPlan(pkg, "gqa_bwd"))
    reference.expect_error("not its gradient",
                 lambda: attnc.GradientPlan(pkg, "gqa", gradient="bf16_bwd"))
    print(f"explicit gradient: "
          f"{attnc.GradientPlan(pkg, 'gqa', gradient='gqa_bwd')!r}")

    gqa = Problem(rng, "f32", 2, 4, 2, 5, 7, 16, causal=True)
    print(f"reference agrees with finite differences: "
          f"{gqa.finite_differences_agree(rng)}")
    f, ctx, ok = forward_and_backward(pkg, "gqa", gqa, F32_TOL)
    print(f"{f!r}: ops {f.forward_op.name}, {f.backward_op.name}")
    print(f"forward schema: {f.forward_op.schema}")
    print(f"backward schema: {f.backward_op.schema}")
    lse_grad = torch.zeros_like(f.forward_op.fn(*gqa.inputs)[1])
    reference.expect_error("cotangent for lse",
                 lambda: f.forward_op.backward(ctx, gqa.dout, lse_grad))
    reference.expect_error("only lse", lambda: f.forward_op.backward(ctx, None, lse_grad))

    bf16 = Problem(rng, "bf16", 1, 2, 2, 6, 6, 32, causal=False)
    ok &= forward_and_backward(pkg, "bf16", bf16, BF16_TOL)[2]

    # lse first: the one cotangent goes to output 1.
    plain = Problem(rng, "f32", 1, 2, 2, 4, 6, 16, causal=False)
    g = attnc.autograd_function(pkg, "lse_first")
    _, grads = backward(g, plain.inputs, None, plain.dout)
    ok &= check("lse_first", grads, plain.ref_grads, F32_TOL)

    # One output: the op returns it and the lse that autodiff saves for the
    # backward; the callable returns a 1-tuple, without the saved lse.
    h = attnc.autograd_function(pkg, "out_only")
    result = h(*plain.inputs)
    print(f"out_only: op returns {type(h.forward_op.fn(*plain.inputs)).__name__}"
          f", callable returns {type(result).__name__} of {len(result)}; "
          f"schema {h.forward_op.schema}")
    _, grads = backward(h, plain.inputs, plain.dout)
    ok &= check("out_only", grads, plain.ref_grads, F32_TOL)

    # Two attentions, only the first reaches the loss: the second's
    # cotangent is zeros, and so are its inputs' gradients.
    second = Problem(rng, "f32", 1, 2, 2, 3, 3, 16, causal=True)
    two = attnc.autograd_function(pkg, "two")
    inputs = plain.inputs + second.inputs
    _, grads = backward(two, inputs, plain.dout, None, None, None)
    ok &= check("two (first)", grads[:3], plain.ref_grads, F32_TOL)
    print(f"two (second) gradients zero: "
          f"{all(x == 0.0 for t in grads[3:] for x in t.tolist())}")
    print(f"two: gradient function got {len(two.backward_op.calls[-1])} "
          f"inputs")

    # The fake implementations: shapes from the inputs, dtypes from the
    # signature, symbols of each attention bound separately.
    fake_out = two.forward_op.fake(*inputs)
    print(f"fake two: {[(t.dtype, t.shape) for t in fake_out]}")
    fake_grads = f.backward_op.fake(*gqa.inputs, *f.forward_op.fn(
        *gqa.inputs), gqa.dout)
    print(f"fake gqa_bwd: {[(t.dtype, t.shape) for t in fake_grads]}")

    cuda_q = random_tensor(rng, "f32", (2, 4, 5, 16))
    cuda_q.device = torch.Device("cuda", 0)
    reference.expect_error("wrong device", lambda: f(cuda_q, *gqa.inputs[1:]))
    reference.expect_error("wrong device (fake)",
                 lambda: f.forward_op.fake(cuda_q, *gqa.inputs[1:]))
    f64_k = random_tensor(rng, "f64", (2, 2, 7, 16))
    reference.expect_error("wrong dtype", lambda: f(gqa.inputs[0], f64_k, gqa.inputs[2]))
    reference.expect_error("missing input", lambda: f(*gqa.inputs[:2]))
    print("PASS" if ok else "FAIL")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
