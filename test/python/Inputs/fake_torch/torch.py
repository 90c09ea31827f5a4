"""A stand-in for the parts of PyTorch that attnc.torch_call and
attnc.torch_ops touch, so that their logic runs without torch: dtype
attributes, torch.empty and torch.zeros_like, CPU tensors with .shape,
.device, .detach(), .contiguous(), DLPack (dlpack_producer.HostArray) and
indexing that hands an index with __torch_function__ to it, as torch's does
(attnc.flex's tracer reads captured tensors that way), and
torch.library.custom_op reduced to its documented contract (see
CustomOp). There is no autograd engine and no torch.compile: tests play
their parts, calling fake implementations on FakeTensors whose extents may
be SymInts, as torch.compile's tracing does."""

import re
from types import SimpleNamespace

import dlpack_producer
from dlpack_producer import HostArray

__version__ = "stand-in"
float32, float64, bfloat16 = "f32", "f64", "bf16"
float16, int32, int64 = "f16", "i32", "i64"

# The integer and f16 tensors attnc.flex captures: HostArray's dtypes, with
# their DLPack codes (kDLInt 0, kDLFloat 2), added here for the stand-in.
dlpack_producer.DTYPES.setdefault("f16", (2, 16, "<e", float, float))
dlpack_producer.DTYPES.setdefault("i32", (0, 32, "<i", int, int))
dlpack_producer.DTYPES.setdefault("i64", (0, 64, "<q", int, int))


class Device:
    def __init__(self, type, index=None):
        self.type, self.index = type, index

    def __str__(self):
        return self.type if self.index is None else f"{self.type}:{self.index}"


class Tensor(HostArray):
    device = Device("cpu")
    detached = False

    def detach(self):
        self.detached = True
        return self

    def contiguous(self):
        """self when row-major, else a row-major copy (like torch)."""
        if self.strides is None and self.offset == 0:
            return self
        return Tensor(self.dtype, self.shape, self.tolist())

    def __getitem__(self, index):
        """Indexing as torch's begins (python_variable_indexing.cpp): when
        the index, or an item of an index tuple, has __torch_function__,
        the indexing goes to it, as __torch_function__(Tensor.__getitem__,
        types, (tensor, index), {}) with the index as written. Otherwise
        one int per dimension reads an element (a number here, where torch
        gives a 0-d tensor); the rest of torch's indexing is not here."""
        items = index if isinstance(index, tuple) else (index,)
        overloaded = [type(i) for i in items
                      if hasattr(type(i), "__torch_function__")]
        if overloaded:
            return overloaded[0].__torch_function__(
                Tensor.__getitem__, tuple(overloaded), (self, index), {})
        if len(items) != len(self.shape) or not all(
                type(i) is int and 0 <= i < n
                for i, n in zip(items, self.shape)):
            raise NotImplementedError(f"stand-in indexing with {index!r}")
        position = 0
        for i, n in zip(items, self.shape):
            position = position * n + i
        return self.tolist()[position]


class SymInt:
    """A symbolic extent, as torch.compile traces with dynamic shapes: a
    name, and no value to compare or compute with."""

    def __init__(self, name):
        self.name = name

    def __repr__(self):
        return self.name

    def __index__(self):
        raise TypeError(f"symbolic extent {self.name} has no value")

    __int__ = __index__


class FakeTensor:
    """A tensor without data (torch.compile's FakeTensor): dtype, shape and
    device only."""

    def __init__(self, dtype, shape, device=None):
        self.dtype, self.shape = dtype, tuple(shape)
        self.device = device or Device("cpu")


def empty(shape, dtype, device):
    """A new tensor; a FakeTensor where an extent is symbolic or the device
    is not the CPU (fake implementations run there)."""
    if device.type != "cpu" or not all(isinstance(n, int) for n in shape):
        return FakeTensor(dtype, shape, device)
    return Tensor(dtype, shape)


def zeros_like(tensor):
    return Tensor(tensor.dtype, tensor.shape, [0.0] * len(tensor.tolist()))


class CustomOp:
    """torch.library.custom_op's result, reduced to what its documentation
    promises: calling the op calls the function (the dispatcher's work
    below autograd); register_fake and register_autograd store their
    functions, which tests call as torch would: `fake` on tensors that
    carry no data, `setup_context(ctx, inputs, output)` after a forward
    call, `backward(ctx, *grads)` with one grad per output. Records the
    arguments of each call (`calls`). As in torch, a name is
    "namespace::name" and "a given operator may only be created once"
    (`registered` holds them)."""

    registered = {}

    def __init__(self, name, fn, schema):
        self.name, self.fn, self.schema = name, fn, schema
        self.fake = self.backward = self.setup_context = None
        self.calls = []

    def __call__(self, *args):
        self.calls.append(args)
        return self.fn(*args)

    def register_fake(self, fn):
        self.fake = fn
        return fn

    def register_autograd(self, backward, *, setup_context=None):
        self.backward, self.setup_context = backward, setup_context


_QUALNAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*::[A-Za-z_][A-Za-z0-9_]*")


def _custom_op(name, fn, *, mutates_args, schema):
    assert mutates_args == (), mutates_args
    if not _QUALNAME.fullmatch(name):
        raise ValueError(f"custom_op: invalid operator name {name!r}")
    if name in CustomOp.registered:
        raise RuntimeError(f"custom_op: an operator named {name} exists "
                           f"already")
    CustomOp.registered[name] = op = CustomOp(name, fn, schema)
    return op


library = SimpleNamespace(custom_op=_custom_op)


class _Compiler:
    """torch.compiler: is_compiling() says what tests set `compiling` to
    (True while they play torch.compile tracing a call)."""

    compiling = False

    def is_compiling(self):
        return self.compiling


compiler = _Compiler()


class FunctionCtx:
    """The ctx of an autograd.Function: saved tensors and the
    materialize-grads flag (True by default, as in torch)."""

    materialize_grads = True
    saved_tensors = ()

    def save_for_backward(self, *tensors):
        self.saved_tensors = tensors

    def set_materialize_grads(self, value):
        self.materialize_grads = value
