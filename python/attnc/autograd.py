"""PyTorch autograd through attnc packages.

    import attnc
    pkg = attnc.Runtime("cuda:0").load("model.attnpkg")
    attention = attnc.autograd_function(pkg, "attention")
    out, lse = attention(q, k, v)          # torch tensors on the package's device
    (out * w).sum().backward()             # q.grad, k.grad, v.grad

The gradient of a package function ``f`` is the package function whose
manifest entry says ``"gradient_of": "f"`` (attnc derives ``f_bwd`` for a
function marked ``attributes {attn.backward}``, or for every public function
with ``attnc --backward``). It takes f's inputs, f's outputs (saved by the
forward call), then one cotangent per differentiable output of f, and
returns the gradients of f's inputs. Attention's ``lse`` is an auxiliary
output: it takes no cotangent, so a loss must not depend on it.

``GradientPlan`` reads all of that from the manifest and needs no torch.
``autograd_function`` wraps f and its gradient function as two
``torch.library.custom_op`` operators (``attnc::<name>_<n>``) with fake
implementations, so that torch.compile can trace them, and registers the
gradient function as f's backward formula.

Limits: no double backward (the gradient function has no gradient). A loss
through lse is refused when the backward runs eagerly; when torch.compile
traces a graph that returns lse, the traced backward cannot see whether lse
reaches the loss, and its cotangent is dropped.
"""

import itertools
import keyword

from . import Error, _LONG_NAMES, _dtype_name, torch_call

#: Op kinds whose results at these positions take no cotangent: the lse of
#: attention (attn.attention's isDifferentiableResult in the compiler).
_AUXILIARY_RESULTS = {"attention": (1,)}


def _same_signature(a, b):
    return a["dtype"] == b["dtype"] and list(a["shape"]) == list(b["shape"])


def _entries(package):
    return {entry["name"]: entry for entry in package.manifest["functions"]}


def _forward_entry(entries, name, package):
    if name not in entries:
        raise Error(f"no function '{name}' in {package.path}; available: "
                    + ", ".join(entries))
    return entries[name]


def _gradient_entry(entries, name, gradient, package):
    """The manifest entry of the function that says it is `name`'s gradient
    (the one named `gradient` when given)."""
    found = [e for e in entries.values() if e.get("gradient_of") == name]
    if gradient is not None:
        found = [e for e in found if e["name"] == gradient]
        if not found:
            raise Error(f"function '{gradient}' of {package.path} is not the "
                        f"gradient of '{name}'")
    if not found:
        raise Error(f"function '{name}' of {package.path} has no gradient "
                    f"function (none says \"gradient_of\": \"{name}\"); mark "
                    f"it attributes {{attn.backward}} or compile with "
                    f"attnc --backward")
    if len(found) > 1:
        raise Error(f"function '{name}' of {package.path} has several "
                    f"gradient functions ("
                    + ", ".join(e["name"] for e in found)
                    + "); pick one with gradient=NAME")
    return found[0]


def _auxiliary_outputs(forward):
    """Names of f's outputs that are auxiliary results of its ops."""
    return {op["results"][i] for op in forward.get("ops", [])
            for i in _AUXILIARY_RESULTS.get(op["kind"], ())
            if i < len(op["results"])}


def _cotangent_outputs(forward, gradient):
    """Indices of f's outputs that take a cotangent, in the order the
    gradient function takes them. The manifest does not say which outputs
    those are (their names come from the ops that read them), so: all
    outputs when there are as many cotangents, else the outputs that are
    not auxiliary results; either way checked by signature."""
    outputs = forward["outputs"]
    cotangents = gradient["inputs"][len(forward["inputs"]) + len(outputs):]
    if len(cotangents) == len(outputs):
        indices = list(range(len(outputs)))
    else:
        auxiliary = _auxiliary_outputs(forward)
        indices = [j for j, o in enumerate(outputs)
                   if o["name"] not in auxiliary]
    if len(indices) != len(cotangents) or not all(
            _same_signature(outputs[j], c) for j, c in zip(indices, cotangents)):
        raise Error(f"cannot tell which outputs of '{forward['name']}' the "
                    f"{len(cotangents)} cotangents of '{gradient['name']}' "
                    f"belong to")
    return indices


def _gradient_inputs(forward, gradient):
    """For each output of the gradient function, the index of f's input it
    is the gradient of: output i for input i when there are as many (the
    compiler's rule), else by name ("dq" for "q")."""
    inputs, grads = forward["inputs"], gradient["outputs"]
    if len(grads) == len(inputs):
        indices = list(range(len(inputs)))
    else:
        names = [i["name"] for i in inputs]
        indices = [names.index(g["name"][1:]) if g["name"][1:] in names
                   else None for g in grads]
    if None in indices or not all(
            _same_signature(inputs[i], g) for i, g in zip(indices, grads)):
        raise Error(f"cannot tell which inputs of '{forward['name']}' the "
                    f"outputs of '{gradient['name']}' are the gradients of")
    return indices


class GradientPlan:
    """How a package function ``f`` and its gradient function are called,
    from the manifest alone (no torch):

    * ``forward``, ``gradient``: their ``attnc.Function``s;
    * ``cotangent_outputs``: indices of f's outputs that take a cotangent,
      in the gradient function's order;
    * ``gradient_inputs``: for each output of the gradient function, the
      index of f's input it is the gradient of;
    * ``device``: the device of the runtime that loaded the package."""

    def __init__(self, package, name, gradient=None):
        entries = _entries(package)
        forward = _forward_entry(entries, name, package)
        grad = _gradient_entry(entries, name, gradient, package)
        self.cotangent_outputs = _cotangent_outputs(forward, grad)
        self.gradient_inputs = _gradient_inputs(forward, grad)
        self.forward = package.function(name)
        self.gradient = package.function(grad["name"])
        self.device = package.device

    def check_cotangents(self, cotangents):
        """Raises Error when an output that takes no cotangent has one (a
        loss that depends on attention's lse); None means "none"."""
        for j, cotangent in enumerate(cotangents):
            if cotangent is not None and j not in self.cotangent_outputs:
                output = self.forward.signature.outputs[j].name
                raise Error(
                    f"gradient through output '{output}' of "
                    f"'{self.forward.name}' is not supported: its gradient "
                    f"function '{self.gradient.name}' takes no cotangent for "
                    f"it (attention's lse is auxiliary); detach it or keep it "
                    f"out of the loss")

    def gradient_arguments(self, inputs, outputs, cotangents, zeros):
        """The gradient function's inputs: f's `inputs`, its `outputs`, then
        the cotangent of each output that takes one; ``zeros(j)`` stands in
        for a cotangent that is None (output j did not reach the loss).
        Cotangents of outputs that take none are left out (see
        check_cotangents)."""
        taken = [zeros(j) if cotangents[j] is None else cotangents[j]
                 for j in self.cotangent_outputs]
        return [*inputs, *outputs, *taken]

    def input_gradients(self, gradients):
        """One gradient per input of f, None for an input without one."""
        result = [None] * len(self.forward.signature.inputs)
        for index, gradient in zip(self.gradient_inputs, gradients):
            result[index] = gradient
        return tuple(result)

    def __repr__(self):
        return (f"attnc.GradientPlan({self.forward.name!r} -> "
                f"{self.gradient.name!r})")


# --- PyTorch ----------------------------------------------------------------

_op_numbers = itertools.count()  # op names must be unique in the process


def _parameter_name(name, index):
    """`name` as a schema parameter name: "out" (torch's name for out=
    arguments) and "self" get a trailing "_"; names that are no identifier
    become "arg<index>"."""
    if not name.isidentifier() or keyword.iskeyword(name):
        return f"arg{index}"
    return name + "_" if name in ("out", "self") else name


def _schema(signature):
    """A custom-op schema: "(Tensor q, Tensor k, Tensor v) -> (Tensor, Tensor)"."""
    params = ", ".join(f"Tensor {_parameter_name(spec.name, i)}"
                       for i, spec in enumerate(signature.inputs))
    outputs = len(signature.outputs)
    returns = "Tensor" if outputs == 1 else \
        "(" + ", ".join(["Tensor"] * outputs) + ")"
    return f"({params}) -> {returns}"


def _on_device(tensor, device):
    """Whether torch `tensor` lives on the runtime device `device`."""
    if device == "host":
        return tensor.device.type == "cpu"
    return (tensor.device.type == "cuda"
            and f"cuda:{tensor.device.index}" == device)


def _check_tensors(fn, tensors, device):
    """Count, dtypes and device of `fn`'s inputs, before the runtime sees
    them (and at trace time, in the fake implementation)."""
    specs = fn.signature.inputs
    if len(tensors) != len(specs):
        raise Error(f"function '{fn.name}' takes {len(specs)} inputs, got "
                    f"{len(tensors)}")
    for spec, tensor in zip(specs, tensors):
        if _dtype_name(tensor.dtype) != spec.dtype:
            raise Error(f"input {spec.name} of '{fn.name}' has dtype "
                        f"{_dtype_name(tensor.dtype)}, expected {spec.dtype}")
        if not _on_device(tensor, device):
            raise Error(f"input {spec.name} of '{fn.name}' is on "
                        f"{tensor.device}, but the package runs on {device}")


def _output_shapes(fn, tensors):
    """Output shapes bound by the inputs' extents, which stay symbolic
    (SymInt) under tracing: unlike Function.output_shapes, no int()."""
    bound = {}
    for spec, tensor in zip(fn.signature.inputs, tensors):
        for dim, extent in zip(spec.shape, tensor.shape):
            if isinstance(dim, str):
                bound.setdefault(dim, extent)
    return [[bound[d] if isinstance(d, str) else d for d in spec.shape]
            for spec in fn.signature.outputs]


def _one_or_tuple(outputs):
    """What an op of _schema returns: one tensor, or a tuple of them."""
    return outputs[0] if len(outputs) == 1 else tuple(outputs)


def _as_tuple(result):
    return result if isinstance(result, tuple) else (result,)


def _custom_op(torch, fn, device):
    """`fn` as a torch custom op, run through torch_call (torch's current
    stream on CUDA), with a fake implementation for tracing."""

    def run(*tensors):
        _check_tensors(fn, tensors, device)
        return _one_or_tuple(torch_call(fn, *tensors))

    def fake(*tensors):
        _check_tensors(fn, tensors, device)
        return _one_or_tuple([
            torch.empty(shape, dtype=getattr(torch, _LONG_NAMES[spec.dtype]),
                        device=tensors[0].device)
            for spec, shape in zip(fn.signature.outputs,
                                   _output_shapes(fn, tensors))])

    name = "".join(c if c.isalnum() else "_" for c in fn.name)
    name = name if name[:1].isalpha() else "f" + name
    op = torch.library.custom_op(f"attnc::{name}_{next(_op_numbers)}", run,
                                 mutates_args=(), schema=_schema(fn.signature))
    op.register_fake(fake)
    return op


def _is_fake(tensor):
    """Whether `tensor` carries no data (torch.compile is tracing)."""
    try:
        from torch._subclasses.fake_tensor import is_fake
    except ImportError:  # a torch without fake tensors is not tracing
        return False
    return is_fake(tensor)


class Differentiable:
    """A package function with its gradient function as its backward:
    ``differentiable(*inputs)`` returns f's outputs (a tuple, like
    torch_call) and records the call for autograd. ``forward_op`` and
    ``backward_op`` are the custom ops; ``plan`` is the GradientPlan."""

    def __init__(self, plan, torch):
        self.plan, self._torch = plan, torch
        self.forward_op = _custom_op(torch, plan.forward, plan.device)
        self.backward_op = _custom_op(torch, plan.gradient, plan.device)
        self.forward_op.register_autograd(self._backward,
                                          setup_context=self._setup_context)

    def __call__(self, *inputs):
        return _as_tuple(self.forward_op(*inputs))

    def _setup_context(self, ctx, inputs, output):
        ctx.save_for_backward(*inputs, *_as_tuple(output))
        # Unused outputs get None rather than zeros, so that a cotangent for
        # lse means the loss really depends on it.
        ctx.set_materialize_grads(False)

    def _backward(self, ctx, *cotangents):
        saved = ctx.saved_tensors
        n_inputs = len(self.plan.forward.signature.inputs)
        inputs, outputs = saved[:n_inputs], saved[n_inputs:]
        # A traced backward gets a placeholder for every output its graph
        # returns (zeros at run time for an unused one): only an eager
        # backward can tell a real lse cotangent.
        if not any(_is_fake(c) for c in cotangents if c is not None):
            self.plan.check_cotangents(cotangents)
        cotangents = [None if c is None else c.contiguous() for c in cotangents]
        args = self.plan.gradient_arguments(
            inputs, outputs, cotangents,
            zeros=lambda j: self._torch.zeros_like(outputs[j]))
        return self.plan.input_gradients(_as_tuple(self.backward_op(*args)))

    def __repr__(self):
        return (f"attnc.Differentiable({self.plan.forward.name!r}, backward "
                f"{self.plan.gradient.name!r})")


def autograd_function(package, name, gradient=None):
    """A differentiable callable for package function `name` on torch
    tensors (on ``package.device``): its backward runs the package's
    gradient function of `name` (the one named `gradient`, when several
    are). Raises Error when the package has none."""
    plan = GradientPlan(package, name, gradient)
    import torch  # only here: the binding itself never needs torch
    if not hasattr(getattr(torch, "library", None), "custom_op"):
        raise Error(f"attnc.autograd_function needs torch.library.custom_op "
                    f"(PyTorch 2.4 or later); this is torch "
                    f"{getattr(torch, '__version__', '?')}")
    return Differentiable(plan, torch)
