"""A minimal DLPack producer in pure Python (ctypes), standing in for NumPy
or PyTorch: HostArray owns a buffer and exports it through __dlpack__ as a
PyCapsule named "dltensor" holding a DLManagedTensor, or, when it speaks
DLPack 1.x and the consumer passes max_version >= (1, 0), "dltensor_versioned"
holding a DLManagedTensorVersioned (with the read-only flag for a read-only
array, which like NumPy it refuses to export the legacy way). A producer
that predates 1.x takes no max_version (TypeError), as old ones do. It counts exports and
deleter calls so that tests can check that a consumer borrowed the capsule
(the producer freed it when it was collected) instead of consuming it."""

import ctypes
import struct

import reference


class DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32)]


class DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8),
                ("lanes", ctypes.c_uint16)]


class DLTensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("device", DLDevice),
                ("ndim", ctypes.c_int32), ("dtype", DLDataType),
                ("shape", ctypes.POINTER(ctypes.c_int64)),
                ("strides", ctypes.POINTER(ctypes.c_int64)),
                ("byte_offset", ctypes.c_uint64)]


DELETER = ctypes.CFUNCTYPE(None, ctypes.c_void_p)


class DLManagedTensor(ctypes.Structure):
    _fields_ = [("dl_tensor", DLTensor), ("manager_ctx", ctypes.c_void_p),
                ("deleter", DELETER)]


class DLPackVersion(ctypes.Structure):
    _fields_ = [("major", ctypes.c_uint32), ("minor", ctypes.c_uint32)]


class DLManagedTensorVersioned(ctypes.Structure):
    _fields_ = [("version", DLPackVersion), ("manager_ctx", ctypes.c_void_p),
                ("deleter", DELETER), ("flags", ctypes.c_uint64),
                ("dl_tensor", DLTensor)]


KDL_CPU, KDL_CUDA = 1, 2
# dtype -> (DLPack code, bits, struct format, encode, decode)
DTYPES = {
    "f32": (2, 32, "<f", float, float),
    "f64": (2, 64, "<d", float, float),
    "bf16": (4, 16, "<H", reference.bf16_bits, reference.bf16_value),
}

_NAME = b"dltensor"
_VERSIONED_NAME = b"dltensor_versioned"

# Private pythonapi function objects (item access is not shared).
_capsule_new = ctypes.pythonapi["PyCapsule_New"]
_capsule_new.restype = ctypes.py_object
_capsule_destructor_type = ctypes.CFUNCTYPE(None, ctypes.c_void_p)
_capsule_new.argtypes = [ctypes.c_void_p, ctypes.c_char_p,
                         _capsule_destructor_type]
_capsule_is_valid = ctypes.pythonapi["PyCapsule_IsValid"]
_capsule_is_valid.restype = ctypes.c_int
_capsule_is_valid.argtypes = [ctypes.c_void_p, ctypes.c_char_p]
_capsule_pointer = ctypes.pythonapi["PyCapsule_GetPointer"]
_capsule_pointer.restype = ctypes.c_void_p
_capsule_pointer.argtypes = [ctypes.c_void_p, ctypes.c_char_p]

# Exported tensors that are still alive, by address of their managed struct:
# (owning HostArray, managed struct, shape and strides arrays).
_live = {}


@DELETER
def _deleter(address):
    array = _live.pop(address)[0]
    array.deleted += 1


@_capsule_destructor_type
def _capsule_destructor(capsule):
    """Frees the tensor of a capsule nobody consumed (the DLPack rule)."""
    for name in (_NAME, _VERSIONED_NAME):
        if _capsule_is_valid(capsule, name):
            address = _capsule_pointer(capsule, name)
            _live[address][1].deleter(address)


class HostArray:
    """A tensor in a ctypes buffer: `shape` with optional element `strides`
    and a storage `offset` (exported as DLTensor.byte_offset). `device`
    is what __dlpack_device__ reports (a lie for tests of device checks)."""

    def __init__(self, dtype, shape, values=None, strides=None, offset=0,
                 versioned=False, readonly=False, device=(KDL_CPU, 0)):
        self.dtype, self.shape = dtype, tuple(shape)
        self.strides = None if strides is None else tuple(strides)
        self.offset, self.versioned, self.readonly = offset, versioned, readonly
        self.dlpack_device = device
        self.code, self.bits, self.fmt, self.encode, self.decode = DTYPES[dtype]
        count = 1
        for n in self.shape:
            count *= n
        span = count if strides is None else 1 + sum(
            (n - 1) * s for n, s in zip(self.shape, self.strides))
        self.itemsize = self.bits // 8
        self.buffer = (ctypes.c_char * ((offset + max(span, 0)) * self.itemsize))()
        self.exported = self.deleted = 0
        self.streams = []  # the stream argument of each __dlpack__ call
        self.assign(values if values is not None else [float("nan")] * count)

    def _positions(self):
        """Storage index of each element, in row-major order."""
        strides = self.strides
        if strides is None:
            strides, step = [], 1
            for n in reversed(self.shape):
                strides.insert(0, step)
                step *= n
        index = [()]
        for n, s in zip(self.shape, strides):
            index = [p + (i * s,) for p in index for i in range(n)]
        return [self.offset + sum(p) for p in index]

    def assign(self, values):
        """Stores row-major `values` (rounded to the dtype)."""
        for pos, value in zip(self._positions(), values, strict=True):
            struct.pack_into(self.fmt, self.buffer, pos * self.itemsize,
                             self.encode(value))

    def tolist(self):
        """The row-major values, as stored (rounded)."""
        return [self.decode(struct.unpack_from(self.fmt, self.buffer,
                                               pos * self.itemsize)[0])
                for pos in self._positions()]

    def __dlpack_device__(self):
        return self.dlpack_device

    def __dlpack__(self, stream=None, **kwargs):
        if not self.versioned and kwargs:
            raise TypeError("__dlpack__() got an unexpected keyword argument "
                            f"'{next(iter(kwargs))}'")
        if self.dlpack_device[0] == KDL_CPU and stream is not None:
            raise BufferError("a CPU tensor takes no stream")
        max_version = kwargs.get("max_version")
        versioned = max_version is not None and tuple(max_version) >= (1, 0)
        if self.readonly and not versioned:
            raise BufferError("a read-only array needs DLPack 1.x")
        self.streams.append(stream)
        rank = len(self.shape)
        shape = (ctypes.c_int64 * rank)(*self.shape)
        strides = None if self.strides is None else (
            ctypes.c_int64 * rank)(*self.strides)
        managed = (DLManagedTensorVersioned if versioned
                   else DLManagedTensor)()
        if versioned:
            managed.version = DLPackVersion(1, 0)
            managed.flags = 1 if self.readonly else 0  # READ_ONLY
        managed.deleter = _deleter
        t = managed.dl_tensor
        t.data = ctypes.addressof(self.buffer)
        t.device = DLDevice(*self.dlpack_device)
        t.ndim = rank
        t.dtype = DLDataType(self.code, self.bits, 1)
        t.shape = ctypes.cast(shape, ctypes.POINTER(ctypes.c_int64))
        if strides is not None:
            t.strides = ctypes.cast(strides, ctypes.POINTER(ctypes.c_int64))
        t.byte_offset = self.offset * self.itemsize
        address = ctypes.addressof(managed)
        _live[address] = (self, managed, shape, strides)
        self.exported += 1
        return _capsule_new(address, _VERSIONED_NAME if versioned else _NAME,
                            _capsule_destructor)

    @property
    def live_exports(self):
        return self.exported - self.deleted
