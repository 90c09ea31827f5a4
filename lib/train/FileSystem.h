//===- FileSystem.h - The directories of checkpoints ------------*- C++ -*-===//
//
// Part of attnc. SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// The directory work of checkpoints: creating, listing and removing; the
// files themselves are written by pkg::writeFileAtomically.
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

/// `dir` + "/" + `name`.
std::string joinPath(const std::string &dir, const std::string &name);

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
