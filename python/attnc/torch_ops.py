"""attnc package functions as PyTorch operators.

    import attnc
    pkg = attnc.Runtime("cuda:0").load("model.attnpkg")
    attention = attnc.torch_op(pkg, "attention")   # an attnc.TorchOp
    out, lse = attention(q, k, v)                  # torch tensors
    compiled = torch.compile(lambda q, k, v: attention(q, k, v)[0],
                             fullgraph=True)       # no graph break

Every package function becomes one ``torch.library.custom_op``, whatever
calls it: ``torch_op``, ``autograd_function``, ``attnc.torch_call`` and the
callables of ``attnc.flex`` all go through ``function_op``. Its name is
``attnc::<function>_<digest>``: the function's name (non-alphanumerics as
"_") and 16 hex digits of the SHA-256 of the package's identity
(``Package.identity``: its manifest, which holds a checksum of each code
blob), the function's name and the name of the gradient function attached
to it. So the same package function has the same op in every process and
from every copy of the package, and two packages or two functions never
share one. Loads of one package on several devices share the op: it runs
the function loaded for the device of its inputs.

The op's fake implementation (``register_fake``) checks the inputs' count,
ranks, dtypes and device and gives the outputs the dtypes of the manifest
signature and the shapes its symbols take from the inputs, the first input
that has a symbol binding it, as the runtime does; under torch.compile the
extents stay symbolic (SymInt). Where the package holds the function's
gradient function (``GradientPlan``), that one is the op's autograd formula
(``register_autograd``); a function without one is an op that autograd
refuses to differentiate through.

The ops need PyTorch 2.4 or later (``torch.library.custom_op``). When torch
is imported before ``Package.function``, the op of each function is made
there (``flex.attention`` and ``torch_op`` make theirs at once); otherwise
by ``function_op(fn)`` or the first ``torch_call``, which must then be
outside torch.compile: torch.compile cannot trace an op's registration,
and gets an Error that says so.
"""

import hashlib
import keyword
import sys

from . import Error, _LONG_NAMES, _call_torch, _dtype_name
from .autograd import GradientPlan, _entries, _forward_entry

#: The ops made in this process, by name: torch refuses a second
#: registration of one name, so each is made once and then shared.
_OPS = {}


#: The name this binding was imported under: "attnc", or another for a
#: second copy beside it (a bench script's baseline build), whose ops must
#: not share names with this one's in torch's one registry per process.
_BINDING = __name__.partition(".")[0]


def op_name(package_identity, function, gradient=None):
    """The qualified name of the op of package function `function` (with
    gradient function `gradient`) of the package of identity
    `package_identity`: "attnc::<function>_<16 hex digits>"; a copy of the
    binding imported under another name hashes that name in too."""
    stem = "".join(c if c.isascii() and c.isalnum() else "_"
                   for c in function)[:48]
    if not stem[:1].isalpha():
        stem = "f" + stem
    parts = (package_identity, function, gradient or "")
    if _BINDING != "attnc":
        parts += (_BINDING,)
    digest = hashlib.sha256("\0".join(parts).encode()).hexdigest()
    return f"attnc::{stem}_{digest[:16]}"


def _parameter_names(specs):
    """Schema parameter names: each input's name, except that "out"
    (torch's name for out= arguments) and "self" get a trailing "_", and
    names that are no ASCII identifier, or repeat, become "arg<index>"."""
    names = []
    for index, spec in enumerate(specs):
        name = spec.name
        if not (name.isascii() and name.isidentifier()) \
                or keyword.iskeyword(name):
            name = f"arg{index}"
        elif name in ("out", "self"):
            name += "_"
        while name in names:
            name = f"arg{index}_{len(names)}"
        names.append(name)
    return names


def _schema(signature):
    """A custom-op schema: "(Tensor q, Tensor k, Tensor v) -> (Tensor, Tensor)"."""
    params = ", ".join(f"Tensor {name}"
                       for name in _parameter_names(signature.inputs))
    outputs = len(signature.outputs)
    returns = "Tensor" if outputs == 1 else \
        "(" + ", ".join(["Tensor"] * outputs) + ")"
    return f"({params}) -> {returns}"


def _runtime_device(device):
    """The attnc runtime device of a torch device: "host" for the CPU,
    "cuda:N" for a GPU."""
    if device.type == "cpu":
        return "host"
    if device.type == "cuda":
        return f"cuda:{device.index}"
    return str(device)


def _output_shapes(signature, tensors):
    """Output shapes bound by the inputs' extents, which stay symbolic
    (SymInt) under tracing: unlike Function.output_shapes, no int()."""
    bound = {}
    for spec, tensor in zip(signature.inputs, tensors):
        for dim, extent in zip(spec.shape, tensor.shape):
            if isinstance(dim, str):
                bound.setdefault(dim, extent)
    return [[bound[d] if isinstance(d, str) else d for d in spec.shape]
            for spec in signature.outputs]


def _one_or_tuple(outputs):
    """What an op of _schema returns: one tensor, or a tuple of them."""
    return outputs[0] if len(outputs) == 1 else tuple(outputs)


def _as_tuple(result):
    return result if isinstance(result, tuple) else (result,)


def _is_fake(tensor):
    """Whether `tensor` carries no data (torch.compile is tracing)."""
    try:
        from torch._subclasses.fake_tensor import is_fake
    except ImportError:  # a torch without fake tensors is not tracing
        return False
    return is_fake(tensor)


class _Op:
    """One custom op (``custom_op``) and the package functions it runs, one
    per runtime device (``functions``)."""

    def __init__(self, torch, name, fn):
        if not fn.signature.inputs:
            raise Error(f"function '{fn.name}' has no inputs, so a torch op "
                        f"of it cannot tell its device")
        self.name, self.signature, self.function = name, fn.signature, fn.name
        self.functions = {}

        def run(*tensors):
            device = self.check(tensors)
            return _one_or_tuple(_call_torch(self.functions[device], tensors,
                                             None))

        def fake(*tensors):
            self.check(tensors)
            return _one_or_tuple([
                torch.empty(shape,
                            dtype=getattr(torch, _LONG_NAMES[spec.dtype]),
                            device=tensors[0].device)
                for spec, shape in zip(self.signature.outputs,
                                       _output_shapes(self.signature,
                                                      tensors))])

        self.custom_op = torch.library.custom_op(
            name, run, mutates_args=(), schema=_schema(fn.signature))
        self.custom_op.register_fake(fake)

    def add(self, fn):
        """Runs `fn` for inputs on its device, unless a function of that
        device that is not closed is there already."""
        current = self.functions.get(fn.device)
        if current is None or current._handle is None:
            self.functions[fn.device] = fn

    def check(self, tensors):
        """Count, ranks, dtypes and device of the inputs, before the runtime
        sees them (and at trace time, in the fake implementation); returns
        the runtime device they are on."""
        specs, name = self.signature.inputs, self.function
        if len(tensors) != len(specs):
            raise Error(f"function '{name}' takes {len(specs)} inputs, got "
                        f"{len(tensors)}")
        device = None
        for spec, tensor in zip(specs, tensors):
            if len(tensor.shape) != len(spec.shape):
                raise Error(f"input {spec.name} of '{name}' has rank "
                            f"{len(tensor.shape)}, expected {len(spec.shape)}")
            if _dtype_name(tensor.dtype) != spec.dtype:
                raise Error(f"input {spec.name} of '{name}' has dtype "
                            f"{_dtype_name(tensor.dtype)}, expected "
                            f"{spec.dtype}")
            here = _runtime_device(tensor.device)
            if here not in self.functions:
                raise Error(f"input {spec.name} of '{name}' is on "
                            f"{tensor.device}, but the package runs on "
                            + ", ".join(sorted(self.functions)))
            if device not in (None, here):
                raise Error(f"input {spec.name} of '{name}' is on "
                            f"{tensor.device}, but input {specs[0].name} is "
                            f"on {tensors[0].device}")
            device = here
        return device


class _Backward:
    """The autograd formula of f's op: its gradient function's op, called
    as the GradientPlan says."""

    def __init__(self, torch, plan, backward_op):
        self.plan, self._torch, self._backward_op = plan, torch, backward_op

    def setup_context(self, ctx, inputs, output):
        ctx.save_for_backward(*inputs, *_as_tuple(output))
        # Unused outputs get None rather than zeros, so that a cotangent for
        # lse means the loss really depends on it.
        ctx.set_materialize_grads(False)

    def backward(self, ctx, *cotangents):
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
        return self.plan.input_gradients(_as_tuple(self._backward_op(*args)))


def _op(torch, fn, plan=None):
    """The _Op of `fn` (with the gradient function of `plan` as its
    backward), made on first use, with `fn` added for its device."""
    name = op_name(fn.package_identity, fn.name,
                   plan.gradient.name if plan else None)
    op = _OPS.get(name)
    if op is None:
        op = _OPS[name] = _Op(torch, name, fn)
        if plan is not None:
            backward = _Backward(torch, plan,
                                 _op(torch, plan.gradient).custom_op)
            op.custom_op.register_autograd(backward.backward,
                                           setup_context=backward.setup_context)
    op.add(fn)
    return op


class TorchOp:
    """A package function as a PyTorch operator: ``op(*inputs)`` returns
    its outputs but the saved activations (a tuple, like torch_call) on
    torch tensors on the device
    of a package it was loaded from. ``name`` is the op's qualified name,
    ``forward_op`` the custom op, ``function`` the attnc.Function; where
    the op is differentiable, ``plan`` is its GradientPlan and
    ``backward_op`` the custom op of the gradient function (else both are
    None)."""

    def __init__(self, torch, fn, plan=None):
        self.function, self.plan = fn, plan
        op = _op(torch, fn, plan)
        self.name, self.forward_op = op.name, op.custom_op
        self.backward_op = (_op(torch, plan.gradient).custom_op if plan
                            else None)

    @property
    def differentiable(self):
        return self.plan is not None

    def __call__(self, *inputs):
        # Saved activations (outputs autodiff added for the gradient
        # function) go to the backward, not to the caller.
        saved = set((self.function.entry or {}).get("saved_outputs", ()))
        outputs = _as_tuple(self.forward_op(*inputs))
        return tuple(o for j, o in enumerate(outputs) if j not in saved)

    def __repr__(self):
        backward = (f", backward {self.plan.gradient.name!r}" if self.plan
                    else "")
        return f"attnc.TorchOp({self.function.name!r}{backward})"


#: The name of TorchOp in attnc 0.1, when only differentiable functions
#: became ops.
Differentiable = TorchOp


def _torch(what):
    """torch, if it has torch.library.custom_op (else an Error that names
    `what`)."""
    import torch  # only here: the binding itself never needs torch
    if not hasattr(getattr(torch, "library", None), "custom_op"):
        raise Error(f"{what} needs torch.library.custom_op (PyTorch 2.4 or "
                    f"later); this is torch "
                    f"{getattr(torch, '__version__', '?')}")
    return torch


def function_op(fn):
    """The TorchOp of attnc.Function `fn`, made on first use: differentiable
    when its package holds fn's gradient function (``fn.gradient``). None
    when torch has no custom_op or `fn` did not come from a package;
    torch_call then calls `fn` plainly."""
    if fn._torch_op is None:
        torch = sys.modules.get("torch")
        if torch is None:
            import torch
        if (fn.package_identity is None
                or not hasattr(getattr(torch, "library", None), "custom_op")):
            return None
        fn._torch_op = TorchOp(torch, fn, GradientPlan.of(fn))
    return fn._torch_op


def torch_op(package, name, gradient=None):
    """Package function `name` as a torch operator (a TorchOp) on torch
    tensors on ``package.device``: differentiable when the package holds its
    gradient function (the one named `gradient`, when there are several;
    an Error when there are several and none is named)."""
    _torch("attnc.torch_op")
    _forward_entry(_entries(package), name, package)
    if gradient is not None or sum(
            e.get("gradient_of") == name
            for e in package.manifest["functions"]) > 1:
        return autograd_function(package, name, gradient)
    return function_op(package.function(name))


def autograd_function(package, name, gradient=None):
    """A differentiable callable for package function `name` on torch
    tensors (on ``package.device``): its backward runs the package's
    gradient function of `name` (the one named `gradient`, when several
    are). Raises Error when the package has none."""
    plan = GradientPlan(package, name, gradient)
    return TorchOp(_torch("attnc.autograd_function"), plan.forward, plan)
