"""Python binding of libattnrt, the attnc runtime (ctypes, no compile step).

    import attnc
    with attnc.Runtime("host") as rt, rt.load("model.attnpkg") as pkg:
        fn = pkg.function("attention_fwd")
        fn(q, k, v, out=(o, lse))          # tensors with __dlpack__, or
        fn.call([attnc.Tensor(q_ptr, "bf16", (2, 16, 1024, 128)), ...],
                [...], stream=None)

Tensors are passed by reference, never copied:

* objects with ``__dlpack__`` (PyTorch, NumPy, CuPy, JAX arrays): the DLPack
  capsule is borrowed for the duration of the call, not consumed, so the
  producer keeps ownership; a CUDA tensor is exported for the call's stream
  (the DLPack stream protocol), so the producer orders its pending work first;
  DLPack 1.x is asked for first (``max_version``), so read-only arrays are
  accepted as inputs (and refused as outputs), with 0.x producers as before;
* ``attnc.Tensor(ptr, dtype, shape, strides=None)`` descriptors of raw
  addresses (``torch.Tensor.data_ptr()``, ``array.array``, ctypes buffers);
  the caller vouches that they live on the runtime's device.

PyTorch: ``attnc.torch_op(pkg, "attention_fwd")`` is the function as a
``torch.library`` custom op (with a fake implementation, so torch.compile
traces it, and with the package's gradient function as its backward when
the package holds one); ``attnc.torch_call(fn, q, k, v)`` calls a Function
through that op, and ``attnc.autograd_function`` insists on a gradient
(``attnc.torch_ops``, ``attnc.autograd``).

Every error the runtime reports is raised as ``attnc.Error`` with its message.
Handles (Runtime, Package, Function) are independent of each other and are
freed by ``close()``, at the end of a ``with`` block, or when collected.
The runtime library is located as described in ``attnc._capi``.
"""

import collections
import ctypes
import hashlib
import json
import os
import sys

from . import _capi

__all__ = ["Differentiable", "Error", "Function", "GradientPlan", "Package",
           "Runtime", "Signature", "Tensor", "TensorSpec", "TorchOp",
           "autograd_function", "torch_call", "torch_op"]


class Error(RuntimeError):
    """An error status of libattnrt; ``str(error)`` is the runtime's message."""


def _check(status):
    """Raises the attnc_status `status` (an address, or None for success)."""
    if status:
        lib = _capi.lib()
        message = lib.attnc_status_message(status).decode("utf-8", "replace")
        lib.attnc_status_free(status)
        raise Error(message)


# --- element types ----------------------------------------------------------

#: Long (PyTorch/NumPy) names of the manifest dtypes.
_LONG_NAMES = {"f32": "float32", "f16": "float16", "bf16": "bfloat16",
               "f64": "float64", "i1": "bool", "i32": "int32", "i64": "int64",
               "f8e4m3fn": "float8_e4m3fn", "f8e5m2": "float8_e5m2"}
_SHORT_NAMES = {long: short for short, long in _LONG_NAMES.items()}
_ITEM_SIZES = {"f32": 4, "f16": 2, "bf16": 2, "f64": 8, "i1": 1, "i32": 4,
               "i64": 8, "f8e4m3fn": 1, "f8e5m2": 1}


def _dtype_name(dtype):
    """The manifest spelling of `dtype`: "bf16", "bfloat16", torch.bfloat16,
    numpy.dtype("float32"), ... (anything whose str ends in a known name)."""
    name = str(dtype).rsplit(".", 1)[-1]
    name = _SHORT_NAMES.get(name, name)
    if name not in _capi.DTYPES:
        raise ValueError(f"unknown dtype {dtype!r}; expected one of "
                         + ", ".join(_capi.DTYPES))
    return name


# --- signatures -------------------------------------------------------------

class TensorSpec(collections.namedtuple("TensorSpec", "name dtype shape")):
    """One tensor of a signature: ``shape`` holds ints (static extents) and
    strings (symbols such as "B", "Nq", bound by the call's tensors)."""


class Signature(collections.namedtuple("Signature", "inputs outputs")):
    """The inputs and outputs of a function (tuples of TensorSpec)."""


def _signature(manifest_function):
    def specs(entries):
        return tuple(TensorSpec(e["name"], e["dtype"], tuple(e["shape"]))
                     for e in entries)
    return Signature(specs(manifest_function["inputs"]),
                     specs(manifest_function["outputs"]))


# --- tensors ----------------------------------------------------------------

class Tensor:
    """A caller-owned tensor by address: ``ptr`` (an int; 0 only for an empty
    tensor), ``dtype`` (see ``_dtype_name``), ``shape`` and ``strides`` (in
    elements; None means contiguous row-major). ``owner`` is kept alive with
    the descriptor (the object the memory belongs to)."""

    def __init__(self, ptr, dtype, shape, strides=None, owner=None):
        self.ptr = int(ptr or 0)
        self.dtype = _dtype_name(dtype)
        self.shape = tuple(int(n) for n in shape)
        self.strides = None if strides is None else tuple(int(s) for s in strides)
        self.owner = owner

    @classmethod
    def from_buffer(cls, buffer, dtype, shape, strides=None):
        """A host tensor over a writable Python buffer (array.array,
        bytearray, ctypes array, writable memoryview), checked to be large
        enough for `shape` and `strides`."""
        view = (ctypes.c_char * memoryview(buffer).nbytes).from_buffer(buffer)
        tensor = cls(ctypes.addressof(view), dtype, shape, strides, owner=view)
        if len(tensor.strides or ()) not in (0, len(tensor.shape)):
            raise ValueError(f"{len(tensor.strides)} strides for rank "
                             f"{len(tensor.shape)}")
        if tensor._span_bytes() > len(view):
            raise ValueError(f"buffer of {len(view)} bytes is too small for "
                             f"{tensor!r}, which spans "
                             f"{tensor._span_bytes()} bytes")
        return tensor

    def _span_bytes(self):
        """Bytes from the first element to past the last one."""
        if 0 in self.shape:
            return 0
        strides = self.strides or tuple(
            _product(self.shape[i + 1:]) for i in range(len(self.shape)))
        last = sum((n - 1) * s for n, s in zip(self.shape, strides))
        return (last + 1) * _ITEM_SIZES[self.dtype]

    def __repr__(self):
        dims = "x".join(map(str, self.shape))
        strides = "" if self.strides is None else f" strides {self.strides}"
        return f"attnc.Tensor({dims}x{self.dtype}{strides} at {self.ptr:#x})"


def _product(values):
    result = 1
    for v in values:
        result *= v
    return result


# --- DLPack borrowing -------------------------------------------------------

# Private function objects (item access, unlike attribute access, is not
# shared), so that nobody else's argtypes on pythonapi affect them.
_capsule_name = ctypes.pythonapi["PyCapsule_GetName"]
_capsule_name.restype, _capsule_name.argtypes = ctypes.c_char_p, [ctypes.py_object]
_capsule_pointer = ctypes.pythonapi["PyCapsule_GetPointer"]
_capsule_pointer.restype = ctypes.c_void_p
_capsule_pointer.argtypes = [ctypes.py_object, ctypes.c_char_p]

#: DLPack device types whose producers take a stream.
_STREAM_DEVICE_TYPES = (_capi.KDL_CUDA, _capi.KDL_CUDA_MANAGED)
#: DLPack's value for "the legacy default stream" (0 is not allowed).
_DLPACK_DEFAULT_STREAM = 1


#: The newest DLPack this binding reads: 1.x capsules may be read-only.
_DLPACK_MAX_VERSION = (1, 0)


def _export(obj, stream):
    """`obj.__dlpack__`, asking for DLPack 1.x first: producers that predate
    it take no max_version (and refuse read-only arrays)."""
    device_type, _ = obj.__dlpack_device__()
    kwargs = ({"stream": stream or _DLPACK_DEFAULT_STREAM}
              if device_type in _STREAM_DEVICE_TYPES else {})
    try:
        return obj.__dlpack__(max_version=_DLPACK_MAX_VERSION, **kwargs)
    except TypeError:
        return obj.__dlpack__(**kwargs)


def _borrow_dlpack(obj, stream, keep, writable, what):
    """The address of `obj`'s DLTensor. The capsule is not consumed (renamed):
    it and `obj` go into `keep`, which the caller holds until the call ends,
    and the producer frees the tensor when the capsule is collected. A
    read-only tensor (DLPack 1.x flag) is refused where the call writes
    (`writable`; `what` names it)."""
    capsule = _export(obj, stream)
    keep.append((obj, capsule))
    name = _capsule_name(capsule)
    if name == b"dltensor":
        return _capsule_pointer(capsule, name)
    if name == b"dltensor_versioned":
        managed = _capi.DLManagedTensorVersioned.from_address(
            _capsule_pointer(capsule, name))
        if managed.version.major != 1:
            raise TypeError(f"{what}: DLPack {managed.version.major}."
                            f"{managed.version.minor} is not supported (1.x is)")
        if writable and managed.flags & _capi.DLPACK_FLAG_BITMASK_READ_ONLY:
            raise ValueError(f"{what} is read-only; outputs must be writable")
        return ctypes.addressof(managed.dl_tensor)
    raise TypeError(f"{type(obj).__name__}.__dlpack__ returned a capsule "
                    f"named {name!r}, expected 'dltensor' or "
                    f"'dltensor_versioned'")


def _stream_handle(stream):
    """A CUDA stream as an int: an int itself, or an object with
    ``cuda_stream`` (torch.cuda.Stream) or ``ptr`` (cupy.cuda.Stream)."""
    if stream is None or isinstance(stream, int):
        return stream
    for attribute in ("cuda_stream", "ptr"):
        if hasattr(stream, attribute):
            return int(getattr(stream, attribute))
    raise TypeError(f"stream must be an int, torch.cuda.Stream or "
                    f"cupy.cuda.Stream, not {type(stream).__name__}")


# --- handles ----------------------------------------------------------------

class _Handle:
    """Owns one C handle, destroyed by close(), `with` or collection."""

    _DESTROY = None  # name of the C function that destroys the handle
    _handle = None

    def __init__(self, handle):
        self._destroy = getattr(_capi.lib(), self._DESTROY)
        self._handle = handle

    @property
    def _h(self):
        if self._handle is None:
            raise ValueError(f"{type(self).__name__} is closed")
        return self._handle

    def close(self):
        handle, self._handle = self._handle, None
        if handle:
            self._destroy(handle)

    def __enter__(self):
        return self

    def __exit__(self, *exc_info):
        self.close()

    def __del__(self):
        self.close()


class Runtime(_Handle):
    """A device: "host" (a thread pool; ATTNC_NUM_THREADS limits it) or
    "cuda:N"."""

    _DESTROY = "attnc_runtime_destroy"

    def __init__(self, device="host"):
        out = ctypes.c_void_p()
        _check(_capi.lib().attnc_runtime_open(device.encode(), ctypes.byref(out)))
        super().__init__(out.value)
        self.device = device

    def load(self, path):
        """Reads, verifies and loads the package file at `path`."""
        out = ctypes.c_void_p()
        _check(_capi.lib().attnc_package_load(self._h, os.fsencode(path),
                                              ctypes.byref(out)))
        return Package(out.value, os.fspath(path), self.device)

    def __repr__(self):
        return f"attnc.Runtime({self.device!r})"


class Package(_Handle):
    """A loaded package: ``functions`` (names), ``manifest`` (the parsed JSON
    manifest: signatures, buffers, steps, kernels, ops), ``device`` (that of
    the runtime that loaded it: "host" or "cuda:N"), ``identity`` (a digest
    of the manifest, which holds a checksum of each code blob: the same for
    every copy and load of one package, on any device) and
    ``function(name)``."""

    _DESTROY = "attnc_package_destroy"

    def __init__(self, handle, path, device):
        super().__init__(handle)
        lib = _capi.lib()
        self.path = path
        self.device = device
        self.functions = tuple(
            lib.attnc_package_function_name(handle, i).decode()
            for i in range(lib.attnc_package_function_count(handle)))
        self.manifest = json.loads(lib.attnc_package_manifest_json(handle))
        canonical = json.dumps(self.manifest, sort_keys=True,
                               separators=(",", ":"))
        self.identity = hashlib.sha256(canonical.encode()).hexdigest()

    def function(self, name):
        """The function `name`; an Error lists the available ones. When the
        manifest names one gradient function of it ("gradient_of"), that one
        is opened too, as its ``gradient``. When torch is already imported,
        its torch op (``torch_call``) is made now, so that a torch.compile'd
        caller does not have to."""
        fn = self._function(name)
        gradients = [e["name"] for e in self.manifest["functions"]
                     if e.get("gradient_of") == name]
        if len(gradients) == 1:
            fn.gradient = self._function(gradients[0])
        if "torch" in sys.modules:
            from . import torch_ops
            try:
                torch_ops.function_op(fn)
            except Error:  # raised again by the torch_call that needs it
                pass
        return fn

    def _function(self, name):
        out = ctypes.c_void_p()
        _check(_capi.lib().attnc_package_function(self._h, name.encode(),
                                                  ctypes.byref(out)))
        entry = next(f for f in self.manifest["functions"] if f["name"] == name)
        return Function(out.value, name, _signature(entry), self.identity,
                        self.device, entry)

    def __repr__(self):
        return f"attnc.Package({self.path!r}, functions={list(self.functions)})"


class Function(_Handle):
    """A callable package function with its ``name`` and ``signature``; from
    its package, also ``package_identity``, ``device``, ``entry`` (its
    manifest entry) and ``gradient`` (its gradient function, or None)."""

    _DESTROY = "attnc_function_destroy"
    gradient = None
    _torch_op = None  # its TorchOp, made by torch_ops.function_op

    def __init__(self, handle, name, signature, package_identity=None,
                 device=None, entry=None):
        super().__init__(handle)
        self.name = name
        self.signature = signature
        self.package_identity = package_identity
        self.device = device
        self.entry = entry

    def __call__(self, *inputs, out, stream=None):
        """Runs the function on `inputs`, writing `out` (a tensor or a sequence
        of them, in signature order), and returns `out`."""
        outputs = out if isinstance(out, (list, tuple)) else (out,)
        self.call(inputs, outputs, stream)
        return out

    def call(self, inputs, outputs, stream=None):
        """Checks the tensors against the signature and runs the function.

        Each tensor is an ``attnc.Tensor`` or an object with ``__dlpack__``.
        `stream` (CUDA devices only: an int, torch.cuda.Stream or
        cupy.cuda.Stream; None is the default stream) is where the kernels
        are queued (on a device without memory pools, a function with
        buffers also waits for the stream: attnc_function_call); on the
        host the call returns when the kernels are done."""
        stream = _stream_handle(stream)
        keep = []  # producers, capsules and shape arrays alive until return
        args, n_in = _call_args(inputs, outputs, stream, keep)
        n_out = len(args) - n_in
        lib = _capi.lib()
        c_stream = ctypes.c_void_p(stream) if stream else None
        if not any(isinstance(a, Tensor) for a in args):
            ins = (ctypes.c_void_p * n_in)(*args[:n_in])
            outs = (ctypes.c_void_p * n_out)(*args[n_in:])
            _check(lib.attnc_function_call_dlpack(self._h, ins, n_in, outs,
                                                  n_out, c_stream))
            return
        ins, outs = _c_tensor_arrays(args, n_in, keep)
        _check(lib.attnc_function_call(self._h, ins, n_in, outs, n_out,
                                       c_stream))

    def profile(self, inputs, outputs, stream=None):
        """Runs the function as `call` does, timing each step of its program
        (a kernel or library call); waits for the work and returns a list of
        (kernel name, milliseconds) in step order. A step that ran beside
        the one before it (``"concurrent"`` in ``entry["steps"]``) counts
        the time it took beyond that one."""
        stream = _stream_handle(stream)
        keep = []
        args, n_in = _call_args(inputs, outputs, stream, keep)
        ins, outs = _c_tensor_arrays(args, n_in, keep)
        lib = _capi.lib()
        steps = lib.attnc_function_step_count(self._h)
        millis = (ctypes.c_double * steps)()
        _check(lib.attnc_function_profile(
            self._h, ins, n_in, outs, len(args) - n_in,
            ctypes.c_void_p(stream) if stream else None, millis, steps))
        names = [step["kernel"] for step in self.entry["steps"]]
        return list(zip(names, millis))

    def output_shapes(self, input_shapes):
        """The output shapes for inputs of `input_shapes`: each symbol takes
        its extent from the first input that has it (the call checks the
        rest)."""
        if len(input_shapes) != len(self.signature.inputs):
            raise Error(f"function '{self.name}' takes "
                        f"{len(self.signature.inputs)} inputs, got "
                        f"{len(input_shapes)}")
        bound = {}
        for spec, shape in zip(self.signature.inputs, input_shapes):
            for dim, extent in zip(spec.shape, shape):
                if isinstance(dim, str):
                    bound.setdefault(dim, int(extent))
        return [tuple(bound[d] if isinstance(d, str) else d for d in spec.shape)
                for spec in self.signature.outputs]

    def __repr__(self):
        return f"attnc.Function({self.name!r})"


def _call_args(inputs, outputs, stream, keep):
    """The tensors of a call, inputs then outputs: attnc.Tensors as they are,
    objects with __dlpack__ as borrowed DLTensor addresses (their producers
    and capsules go into `keep`); and the number of inputs."""
    inputs, outputs = list(inputs), list(outputs)
    args = []
    for i, t in enumerate(inputs + outputs):
        if isinstance(t, Tensor):
            args.append(t)
        elif hasattr(t, "__dlpack__"):
            what = (f"input {i}" if i < len(inputs)
                    else f"output {i - len(inputs)}")
            args.append(_borrow_dlpack(t, stream, keep,
                                       writable=i >= len(inputs), what=what))
        else:
            raise TypeError(f"expected an attnc.Tensor or an object with "
                            f"__dlpack__, got {type(t).__name__}")
    return args, len(inputs)


def _c_tensor_arrays(args, n_in, keep):
    """The attnc_tensor arrays of a call's inputs and outputs (`args` as
    _call_args gives them)."""
    c_tensors = [_to_c_tensor(a, keep) for a in args]
    return ((_capi.AttncTensor * n_in)(*c_tensors[:n_in]),
            (_capi.AttncTensor * (len(args) - n_in))(*c_tensors[n_in:]))


def _to_c_tensor(arg, keep):
    """An attnc_tensor for a Tensor or a DLTensor address (whose shape and
    strides it borrows); arrays it points to go into `keep`."""
    c_tensor = _capi.AttncTensor()
    if not isinstance(arg, Tensor):
        _check(_capi.lib().attnc_tensor_from_dlpack(arg, ctypes.byref(c_tensor)))
        return c_tensor
    rank = len(arg.shape)
    shape = (ctypes.c_int64 * rank)(*arg.shape)
    strides = None if arg.strides is None else (
        ctypes.c_int64 * len(arg.strides))(*arg.strides)
    keep.append((shape, strides))
    c_tensor.data = arg.ptr or None
    c_tensor.dtype = _capi.DTYPES.index(arg.dtype)
    c_tensor.rank = rank
    c_tensor.shape = ctypes.cast(shape, ctypes.POINTER(ctypes.c_int64))
    if strides is not None:
        c_tensor.strides = ctypes.cast(strides, ctypes.POINTER(ctypes.c_int64))
    return c_tensor


# --- PyTorch convenience ----------------------------------------------------

def torch_call(fn, *inputs, stream=None):
    """Calls `fn` on torch tensors and returns its outputs (a tuple, in
    signature order), allocated with ``torch.empty`` on the inputs' device with
    the shapes the inputs bind. On CUDA the kernel is queued on `stream`,
    by default torch's current stream (so the outputs are ordered like any
    torch result; with another stream, synchronize before using them).

    Without `stream`, the call goes through `fn`'s torch custom op
    (``attnc.torch_ops.function_op``: differentiable when the package
    holds fn's gradient function), so torch.compile traces it without a
    graph break; with `stream`, or with a torch older than 2.4, it is a
    plain call, which autograd does not see."""
    if stream is None:
        op = fn._torch_op
        if op is None:
            op = _make_torch_op(fn)
        if op is not None:
            return op(*inputs)
    return _call_torch(fn, inputs, stream)


def _make_torch_op(fn):
    """torch_ops.function_op(fn), outside torch.compile: torch.compile
    cannot trace the registration of an op, so it gets an Error that says
    how to make the op beforehand."""
    torch = sys.modules.get("torch")
    compiler = getattr(torch, "compiler", None)
    if compiler is not None and getattr(compiler, "is_compiling", bool)():
        raise Error(f"attnc.torch_call: the torch op of '{fn.name}' must "
                    f"exist before torch.compile traces its first call: "
                    f"import torch before Package.function, or call "
                    f"attnc.torch_ops.function_op(fn) first")
    from . import torch_ops
    return torch_ops.function_op(fn)


def _call_torch(fn, inputs, stream):
    """torch_call without the custom op: what the op runs."""
    import torch  # only here: the binding itself never needs torch

    shapes = fn.output_shapes([tuple(t.shape) for t in inputs])
    device = inputs[0].device
    outputs = tuple(
        torch.empty(shape, dtype=getattr(torch, _LONG_NAMES[spec.dtype]),
                    device=device)
        for spec, shape in zip(fn.signature.outputs, shapes))
    if stream is None and device.type == "cuda":
        stream = torch.cuda.current_stream(device)
    fn.call([t.detach() for t in inputs], outputs, stream)
    return outputs


from .autograd import GradientPlan  # noqa: E402
from .torch_ops import (Differentiable, TorchOp,  # noqa: E402
                        autograd_function, torch_op)
