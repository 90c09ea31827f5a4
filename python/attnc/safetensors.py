"""Safetensors files from PyTorch tensors, without the safetensors package.

The format (an 8-byte little-endian header length, a JSON header of
{name: {"dtype", "shape", "data_offsets"}}, then the row-major bytes) is
what attn-run's --inputs reads and --save-outputs writes, and what PyTorch,
JAX and Hugging Face exchange weights in; lib/package/SafeTensors.cpp is the
C++ side.
"""

import json
import struct

import torch

_DTYPES = {
    torch.float32: "F32",
    torch.float16: "F16",
    torch.bfloat16: "BF16",
    torch.float64: "F64",
    torch.int32: "I32",
    torch.int64: "I64",
}
_TORCH = {name: dtype for dtype, name in _DTYPES.items()}


def _bytes(tensor):
    flat = tensor.detach().contiguous().cpu().reshape(-1).view(torch.uint8)
    try:
        return flat.numpy().tobytes()
    except RuntimeError:  # torch without numpy
        return bytes(flat.tolist())


def save(path, tensors, metadata=None):
    """Writes the dict `tensors` (name -> tensor) to `path`, in its order."""
    header, blobs, offset = {}, [], 0
    for name, tensor in tensors.items():
        if tensor.dtype not in _DTYPES:
            raise ValueError(f"{name}: safetensors has no name for {tensor.dtype}")
        blob = _bytes(tensor)
        header[name] = {"dtype": _DTYPES[tensor.dtype],
                        "shape": list(tensor.shape),
                        "data_offsets": [offset, offset + len(blob)]}
        blobs.append(blob)
        offset += len(blob)
    if metadata:
        header["__metadata__"] = {k: str(v) for k, v in metadata.items()}
    text = json.dumps(header).encode()
    text += b" " * (-len(text) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)))
        f.write(text)
        for blob in blobs:
            f.write(blob)


def load(path, device="cpu"):
    """The tensors of `path` as a dict name -> tensor on `device`."""
    with open(path, "rb") as f:
        data = f.read()
    (length,) = struct.unpack("<Q", data[:8])
    header = json.loads(data[8:8 + length])
    base = 8 + length
    tensors = {}
    for name, entry in header.items():
        if name == "__metadata__":
            continue
        dtype = _TORCH[entry["dtype"]]
        begin, end = entry["data_offsets"]
        if end == begin:
            tensor = torch.empty(entry["shape"], dtype=dtype)
        else:
            tensor = torch.frombuffer(bytearray(data[base + begin:base + end]),
                                      dtype=dtype).reshape(entry["shape"])
        tensors[name] = tensor.to(device)
    return tensors
