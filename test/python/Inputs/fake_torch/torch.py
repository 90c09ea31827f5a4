"""A stand-in for the parts of PyTorch that attnc.torch_call and
attnc.autograd touch, so that their logic runs without torch: dtype
attributes, torch.empty and torch.zeros_like, CPU tensors with .shape,
.device, .detach(), .contiguous() and DLPack (dlpack_producer.HostArray),
and torch.library.custom_op reduced to its documented contract (see
CustomOp). There is no autograd engine: tests play its part."""

from types import SimpleNamespace

from dlpack_producer import HostArray

__version__ = "stand-in"
float32, float64, bfloat16 = "f32", "f64", "bf16"


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


def empty(shape, dtype, device):
    assert device.type == "cpu", device
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
    arguments of each call (`calls`)."""

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


def _custom_op(name, fn, *, mutates_args, schema):
    assert mutates_args == (), mutates_args
    return CustomOp(name, fn, schema)


library = SimpleNamespace(custom_op=_custom_op)


class FunctionCtx:
    """The ctx of an autograd.Function: saved tensors and the
    materialize-grads flag (True by default, as in torch)."""

    materialize_grads = True
    saved_tensors = ()

    def save_for_backward(self, *tensors):
        self.saved_tensors = tensors

    def set_materialize_grads(self, value):
        self.materialize_grads = value
