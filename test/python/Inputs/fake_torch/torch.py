"""A stand-in for the parts of PyTorch that attnc.torch_call touches, so that
its logic runs without torch: dtype attributes, torch.empty, and CPU tensors
with .shape, .device, .detach() and DLPack (dlpack_producer.HostArray)."""

from types import SimpleNamespace

from dlpack_producer import HostArray

float32, bfloat16 = "f32", "bf16"


class Tensor(HostArray):
    device = SimpleNamespace(type="cpu")
    detached = False

    def detach(self):
        self.detached = True
        return self


def empty(shape, dtype, device):
    assert device.type == "cpu", device
    return Tensor(dtype, shape)
