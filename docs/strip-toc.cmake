# Writes the dialect reference mlir-tblgen generated (SRC) to DEST without
# its `[TOC]` line and the blank line after it: a Hugo directive, which plain
# Markdown shows as text. Usage: cmake -DSRC=... -DDEST=... -P strip-toc.cmake
file(READ "${SRC}" text)
string(REPLACE "\n[TOC]\n\n" "\n" text "${text}")
file(WRITE "${DEST}" "${text}")
