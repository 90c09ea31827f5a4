//===- FileSystem.h - Durable files for checkpoints -------------*- C++ -*-===//
//
// Part of attnc. SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// The POSIX calls a checkpoint needs to survive a crash or a power cut.
// pkg::writeFileAtomically flushes the file before its rename but not the
// directory after it, so the rename itself may be lost; and it takes one
// buffer, which for a checkpoint would be a second copy of every weight.
//
//===----------------------------------------------------------------------===//

#ifndef ATTNC_LIB_TRAIN_FILESYSTEM_H
#define ATTNC_LIB_TRAIN_FILESYSTEM_H

#include "attnc/Status.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace attnc::train {

/// A run of bytes to write, borrowed from the caller.
struct ByteSpan {
  const uint8_t *data;
  size_t size;
};

/// `dir` + "/" + `name`.
std::string joinPath(const std::string &dir, const std::string &name);

/// Writes the spans one after another to dir/name through a temporary
/// file dir/name.tmp.<pid>.<n>: write, fsync, rename over dir/name, fsync
/// dir. A failure removes the temporary file; a crash may leave it.
Status writeFileDurably(const std::string &dir, const std::string &name,
                        const std::vector<ByteSpan> &spans);

/// Creates `dir` and its missing parents, flushing each parent whose
/// entries changed. Errors when a component exists but is not a directory.
Status makeDirectories(const std::string &dir);

/// Whether `path` exists (as anything; a dangling symlink counts).
bool pathExists(const std::string &path);
/// Whether `path` is a directory, following symlinks.
bool isDirectory(const std::string &path);

/// The names in `dir`, without "." and "..", unsorted.
StatusOr<std::vector<std::string>> listDirectory(const std::string &dir);

/// Removes dir/name; errors other than "already gone" are reported.
Status removeFile(const std::string &dir, const std::string &name);

} // namespace attnc::train

#endif // ATTNC_LIB_TRAIN_FILESYSTEM_H
