"""Error paths of the binding: every runtime error is an attnc.Error carrying
the runtime's message; misuse on the Python side raises TypeError or
ValueError. Prints "LABEL: ExceptionType: message" per case.

usage: errors.py PACKAGE"""

import array
import os
import sys
import tempfile
from types import SimpleNamespace

import attnc
from dlpack_producer import KDL_CUDA, HostArray


def expect(label, exc_type, action):
    """Runs `action`, which must raise `exc_type`, and prints the error."""
    try:
        action()
    except exc_type as e:
        print(f"{label}: {type(e).__name__}: {e}")
    else:
        print(f"{label}: no error")


def tensor(dtype, shape):
    """An attnc.Tensor over a fresh zeroed buffer."""
    count = 1
    for n in shape:
        count *= n
    code = {"f32": "f", "f64": "d"}[dtype]
    return attnc.Tensor.from_buffer(array.array(code, [0.0] * count), dtype,
                                    shape)


def args(q=(1, 4, 3, 16), k=(1, 2, 5, 16), v=(1, 2, 5, 16), out=(1, 4, 3, 16),
         lse=(1, 4, 3), dtypes=("f32",) * 5):
    """Inputs and outputs of attention_fwd; override one to break it."""
    shapes = (q, k, v, out, lse)
    tensors = [tensor(t, s) for t, s in zip(dtypes, shapes)]
    return tensors[:3], tensors[3:]


def corrupt_packages(path, directory):
    """Broken copies of the package at `path`: {label: file}."""
    with open(path, "rb") as f:
        data = bytearray(f.read())
    flipped = bytearray(data)
    flipped[100] ^= 1  # a manifest byte
    files = {"flipped byte": flipped, "truncated": data[:30],
             "foreign file": b"not a package at all, just text\n" * 4}
    paths = {}
    for label, content in files.items():
        paths[label] = os.path.join(directory, label.replace(" ", "-"))
        with open(paths[label], "wb") as f:
            f.write(content)
    paths["missing file"] = os.path.join(directory, "missing.attnpkg")
    return paths


def main():
    package = sys.argv[1]
    print(f"Error is a RuntimeError: {issubclass(attnc.Error, RuntimeError)}")
    expect("unknown device", attnc.Error, lambda: attnc.Runtime("tpu"))

    rt = attnc.Runtime("host")
    with tempfile.TemporaryDirectory() as directory:
        for label, path in corrupt_packages(package, directory).items():
            expect(label, attnc.Error, lambda: rt.load(path))

    pkg = rt.load(package)
    expect("unknown function", attnc.Error, lambda: pkg.function("nope"))
    fn = pkg.function("attention_fwd")

    def call(inputs_outputs, **kwargs):
        return lambda: fn.call(*inputs_outputs, **kwargs)

    expect("wrong dtype", attnc.Error,
           call(args(dtypes=("f64", "f32", "f32", "f32", "f32"))))
    expect("wrong head count", attnc.Error, call(args(q=(1, 3, 3, 16))))
    expect("wrong rank", attnc.Error, call(args(lse=(1, 4))))
    expect("inconsistent Nk", attnc.Error, call(args(v=(1, 2, 6, 16))))
    expect("output disagrees", attnc.Error, call(args(out=(1, 4, 2, 16))))
    inputs, outputs = args()
    expect("missing input", attnc.Error, lambda: fn.call(inputs[:2], outputs))
    expect("stream on host", attnc.Error,
           call(args(), stream=SimpleNamespace(cuda_stream=1234)))

    # The same through DLPack; failed calls release their capsules too.
    f64 = HostArray("f64", (1, 2, 5, 16))
    f32 = [HostArray("f32", s)
           for s in ((1, 4, 3, 16), (1, 2, 5, 16), (1, 4, 3, 16), (1, 4, 3))]
    expect("dlpack wrong dtype", attnc.Error,
           lambda: fn(f32[0], f64, f32[1], out=f32[2:]))
    cuda = HostArray("f32", (1, 2, 5, 16), device=(KDL_CUDA, 0))
    expect("dlpack cuda tensor on host", attnc.Error,
           lambda: fn(f32[0], f32[1], cuda, out=f32[2:]))
    print(f"stream given to the cuda producer: {cuda.streams}")
    print(f"live capsules after failures: "
          f"{sum(a.live_exports for a in f32 + [f64, cuda])}")

    expect("not a tensor", TypeError,
           lambda: fn([1.0], f32[1], f32[1], out=f32[2:]))
    expect("bad stream", TypeError, call(args(), stream="default"))
    expect("unknown dtype", ValueError,
           lambda: attnc.Tensor(0, "float128", (1,)))
    expect("buffer too small", ValueError,
           lambda: attnc.Tensor.from_buffer(bytearray(8), "f32", (1, 2, 2)))
    expect("strides beyond buffer", ValueError,
           lambda: attnc.Tensor.from_buffer(bytearray(16), "f32", (2, 2),
                                            strides=(4, 1)))
    fn.close()
    expect("closed function", ValueError, call(args()))
    rt.close()
    expect("closed runtime", ValueError, lambda: rt.load(package))


if __name__ == "__main__":
    main()
