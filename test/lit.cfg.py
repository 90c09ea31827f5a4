# -*- Python -*-
import os

import lit.formats
from lit.llvm import llvm_config

config.name = "ATTNC"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir", ".test"]
# install/: consumers run by scripts/test-install.sh; fuzz/: libFuzzer
# targets and their seeds, run by scripts/fuzz.sh.
config.excludes = ["CMakeLists.txt", "lit.cfg.py", "lit.site.cfg.py.in", "unit", "Inputs",
                   "install", "fuzz"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.attnc_obj_root, "test")

config.environment["FILECHECK_OPTS"] = "-enable-var-scope --allow-unused-prefixes=false"

llvm_config.use_default_substitutions()
config.substitutions.append(("%attnc_src_root", config.attnc_src_root))
config.substitutions.append(("%attnc_obj_root", config.attnc_obj_root))

llvm_config.with_environment("PATH", config.llvm_tools_dir, append_path=True)
llvm_config.add_tool_substitutions(
    ["attn-opt", "attnc", "attn-run", "attn-train"], [config.attnc_tools_dir])

# GPU code generation needs a CUDA toolkit (libdevice, ptxas), not a GPU.
cuda_toolkit = os.environ.get("CUDA_HOME") or os.environ.get("CUDA_PATH") or "/usr/local/cuda"
if os.path.exists(os.path.join(cuda_toolkit, "nvvm", "libdevice", "libdevice.10.bc")) and \
        os.path.exists(os.path.join(cuda_toolkit, "bin", "ptxas")):
    config.available_features.add("cuda-toolkit")
