"""ctypes declarations of libattnrt's C API (runtime/include/attnc_runtime.h).

The library is loaded on first use, not at import, so that ``import attnc``
works on machines without it and the error names every place looked at.
Search order:

1. ``$ATTNC_RUNTIME_LIBRARY`` (a file path; nothing else is tried when set),
2. ``libattnrt.so`` next to this package (a packaged copy),
3. the repository this package lives in: its build trees (``build/lib``,
   ``build-rt/lib``), then a GPU bundle (``gpu-bundle/lib``, made by
   scripts/gpu-bundle.sh),
4. the dynamic loader's search path (``LD_LIBRARY_PATH``, ldconfig).
"""

import ctypes
import os

LIBRARY_NAME = "libattnrt.so"
ENV_VAR = "ATTNC_RUNTIME_LIBRARY"

_PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__))
_REPO_ROOT = os.path.dirname(os.path.dirname(_PACKAGE_DIR))
_REPO_LIB_DIRS = ("build/lib", "build-rt/lib", "gpu-bundle/lib")


# --- DLPack (https://dmlc.github.io/dlpack/latest/c_api.html) ---------------

KDL_CUDA = 2
KDL_CUDA_MANAGED = 13


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


class DLPackVersion(ctypes.Structure):
    _fields_ = [("major", ctypes.c_uint32), ("minor", ctypes.c_uint32)]


#: DLManagedTensorVersioned.flags: the consumer must not write the data.
DLPACK_FLAG_BITMASK_READ_ONLY = 1


class DLManagedTensorVersioned(ctypes.Structure):
    """DLPack >= 1.0: the version, the read-only flag and ``dl_tensor``."""
    _fields_ = [("version", DLPackVersion), ("manager_ctx", ctypes.c_void_p),
                ("deleter", ctypes.c_void_p), ("flags", ctypes.c_uint64),
                ("dl_tensor", DLTensor)]


# --- attnc ------------------------------------------------------------------

#: Manifest dtype spellings, indexed by their ATTNC_DTYPE_* code.
DTYPES = ("f32", "f16", "bf16", "f64", "i1", "i32", "i64", "f8e4m3fn",
          "f8e5m2")


class AttncTensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("dtype", ctypes.c_int32),
                ("rank", ctypes.c_int32),
                ("shape", ctypes.POINTER(ctypes.c_int64)),
                ("strides", ctypes.POINTER(ctypes.c_int64))]


_p = ctypes.c_void_p  # every handle, status and DLTensor pointer
_size = ctypes.c_size_t
_PROTOTYPES = {
    "attnc_status_message": (ctypes.c_char_p, [_p]),
    "attnc_status_free": (None, [_p]),
    "attnc_tensor_from_dlpack": (_p, [_p, ctypes.POINTER(AttncTensor)]),
    "attnc_runtime_open": (_p, [ctypes.c_char_p, ctypes.POINTER(_p)]),
    "attnc_runtime_destroy": (None, [_p]),
    "attnc_package_load": (_p, [_p, ctypes.c_char_p, ctypes.POINTER(_p)]),
    "attnc_package_destroy": (None, [_p]),
    "attnc_package_function_count": (_size, [_p]),
    "attnc_package_function_name": (ctypes.c_char_p, [_p, _size]),
    "attnc_package_manifest_json": (ctypes.c_char_p, [_p]),
    "attnc_package_function": (_p, [_p, ctypes.c_char_p, ctypes.POINTER(_p)]),
    "attnc_function_destroy": (None, [_p]),
    "attnc_function_call": (_p, [_p, ctypes.POINTER(AttncTensor), _size,
                                 ctypes.POINTER(AttncTensor), _size, _p]),
    "attnc_function_call_dlpack": (_p, [_p, ctypes.POINTER(_p), _size,
                                        ctypes.POINTER(_p), _size, _p]),
    "attnc_function_step_count": (_size, [_p]),
    "attnc_function_profile": (_p, [_p, ctypes.POINTER(AttncTensor), _size,
                                    ctypes.POINTER(AttncTensor), _size, _p,
                                    ctypes.POINTER(ctypes.c_double), _size]),
}


def _candidates():
    """Paths to try in order; the last, a bare name, asks the loader."""
    env = os.environ.get(ENV_VAR)
    if env:
        return [env]
    return ([os.path.join(_PACKAGE_DIR, LIBRARY_NAME)]
            + [os.path.join(_REPO_ROOT, d, LIBRARY_NAME)
               for d in _REPO_LIB_DIRS]
            + [LIBRARY_NAME])


def _load():
    tried = []
    for path in _candidates():
        try:
            lib = ctypes.CDLL(path)
        except OSError as e:
            tried.append(f"  {e}")
            continue
        for name, (restype, argtypes) in _PROTOTYPES.items():
            try:
                fn = getattr(lib, name)
            except AttributeError:
                raise RuntimeError(
                    f"attnc: {path} is not a compatible libattnrt "
                    f"(it lacks {name})") from None
            fn.restype, fn.argtypes = restype, argtypes
        return lib
    if os.environ.get(ENV_VAR):
        hint = f"named by {ENV_VAR}"
    else:
        hint = (f"{LIBRARY_NAME} (set {ENV_VAR} to its path; a build puts it "
                f"in <build>/lib)")
    raise RuntimeError(f"attnc: cannot load the runtime library {hint}:\n"
                       + "\n".join(tried))


_lib = None


def lib():
    """The loaded library (loaded and declared on first call)."""
    global _lib
    if _lib is None:
        _lib = _load()
    return _lib
