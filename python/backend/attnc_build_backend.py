"""PEP 517 build backend of the attnc Python package (``pip install .``).

It has no build requirements, so ``pip install`` works offline in a fresh
virtual environment: it builds libattnrt with CMake (runtime only, without
LLVM/MLIR; the cuda device when cuda.h is found) and writes a wheel of
python/attnc with the library inside the package, where attnc._capi finds it
first. The metadata comes from pyproject.toml, the version from the CMake
project. $ATTNC_WHEEL_BUILD_DIR keeps the
CMake build between runs (default: a temporary directory).
"""

import base64
import hashlib
import os
import re
import shutil
import subprocess
import sysconfig
import tempfile
import tomllib
import zipfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _version():
    with open(os.path.join(ROOT, "CMakeLists.txt"), encoding="utf-8") as f:
        match = re.search(r"project\(attnc VERSION ([0-9.]+)", f.read())
    if not match:
        raise RuntimeError("attnc: no project(attnc VERSION ...) in CMakeLists.txt")
    return match.group(1)


def _project():
    with open(os.path.join(ROOT, "pyproject.toml"), "rb") as f:
        return tomllib.load(f)["project"]


PROJECT = _project()
NAME = PROJECT["name"]


def _metadata(version):
    return (f"Metadata-Version: 2.1\nName: {NAME}\nVersion: {version}\n"
            f"Summary: {PROJECT['description']}\n"
            f"License: {PROJECT['license']['text']}\n"
            f"Requires-Python: {PROJECT['requires-python']}\n")


def _wheel_tag():
    # ctypes only: any Python 3, but the library ties it to this platform.
    platform = re.sub(r"[-.]", "_", sysconfig.get_platform())
    return f"py3-none-{platform}"


def _build_runtime(build_dir):
    """Builds libattnrt and returns the path of the real file."""
    generator = ["-G", "Ninja"] if shutil.which("ninja") else []
    subprocess.run(["cmake", *generator, "-S", ROOT, "-B", build_dir,
                    "-DCMAKE_BUILD_TYPE=Release", "-DATTNC_ENABLE_COMPILER=OFF",
                    "-DATTNC_BUILD_TESTS=OFF"], check=True)
    subprocess.run(["cmake", "--build", build_dir, "--target", "attnrt",
                    "--parallel", str(os.cpu_count() or 1)], check=True)
    return os.path.realpath(os.path.join(build_dir, "lib", "libattnrt.so"))


def _record_line(arcname, data):
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=")
    return f"{arcname},sha256={digest.decode()},{len(data)}"


def _write_wheel(path, files, version):
    """files: arcname -> bytes; adds the dist-info and its RECORD."""
    info = f"{NAME}-{version}.dist-info"
    files = dict(files)
    files[f"{info}/METADATA"] = _metadata(version).encode()
    files[f"{info}/WHEEL"] = (f"Wheel-Version: 1.0\nGenerator: {NAME}\n"
                              f"Root-Is-Purelib: false\nTag: {_wheel_tag()}\n").encode()
    with open(os.path.join(ROOT, "LICENSE"), "rb") as f:
        files[f"{info}/LICENSE"] = f.read()
    record = [_record_line(name, data) for name, data in sorted(files.items())]
    record.append(f"{info}/RECORD,,")
    files[f"{info}/RECORD"] = ("\n".join(record) + "\n").encode()
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as wheel:
        for name, data in files.items():
            entry = zipfile.ZipInfo(name, date_time=(2026, 1, 1, 0, 0, 0))
            executable = name.endswith(".so")
            entry.external_attr = (0o755 if executable else 0o644) << 16
            entry.compress_type = zipfile.ZIP_DEFLATED
            wheel.writestr(entry, data)


def _package_files():
    source = os.path.join(ROOT, "python", NAME)
    files = {}
    for name in sorted(os.listdir(source)):
        if name.endswith(".py"):
            with open(os.path.join(source, name), "rb") as f:
                files[f"{NAME}/{name}"] = f.read()
    return files


def _build(wheel_directory):
    version = _version()
    files = _package_files()
    build_dir = os.environ.get("ATTNC_WHEEL_BUILD_DIR")
    with tempfile.TemporaryDirectory(prefix="attnc-wheel-") as scratch:
        library = _build_runtime(build_dir or scratch)
        with open(library, "rb") as f:
            files[f"{NAME}/libattnrt.so"] = f.read()
    filename = f"{NAME}-{version}-{_wheel_tag()}.whl"
    _write_wheel(os.path.join(wheel_directory, filename), files, version)
    return filename


def get_requires_for_build_wheel(config_settings=None):
    return []


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    return _build(wheel_directory)
