//===- FileSystem.cpp - The directories of checkpoints --------------------===//
//
// Part of attnc. SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

#include "lib/train/FileSystem.h"

#include "attnc/package/Package.h"

#include <cerrno>
#include <cstring>
#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

using namespace attnc;
using namespace attnc::train;

namespace {

std::string errnoText(int error) { return std::strerror(error); }

/// The directory holding `path` ("." for a bare name).
std::string parentOf(const std::string &path) {
  size_t end = path.find_last_not_of('/');
  if (end == std::string::npos)
    return "/";
  size_t slash = path.rfind('/', end);
  if (slash == std::string::npos)
    return ".";
  size_t parentEnd = path.find_last_not_of('/', slash);
  return parentEnd == std::string::npos ? "/" : path.substr(0, parentEnd + 1);
}

} // namespace

std::string train::joinPath(const std::string &dir, const std::string &name) {
  if (dir.empty() || dir.back() == '/')
    return dir + name;
  return dir + "/" + name;
}

Status train::makeDirectories(const std::string &dir) {
  if (isDirectory(dir))
    return Status::ok();
  std::string parent = parentOf(dir);
  if (parent != dir)
    if (Status status = makeDirectories(parent); !status)
      return status;
  if (::mkdir(dir.c_str(), 0777) != 0 && errno != EEXIST)
    return Status::error("cannot create directory " + dir + ": " +
                         errnoText(errno));
  if (!isDirectory(dir))
    return Status::error(dir + " exists but is not a directory");
  return pkg::syncDirectory(parent);
}

bool train::pathExists(const std::string &path) {
  struct stat info;
  return ::lstat(path.c_str(), &info) == 0;
}

bool train::isDirectory(const std::string &path) {
  struct stat info;
  return ::stat(path.c_str(), &info) == 0 && S_ISDIR(info.st_mode);
}

StatusOr<std::vector<std::string>>
train::listDirectory(const std::string &dir) {
  DIR *stream = ::opendir(dir.c_str());
  if (!stream)
    return Status::error("cannot list " + dir + ": " + errnoText(errno));
  std::vector<std::string> names;
  errno = 0;
  while (dirent *entry = ::readdir(stream)) {
    std::string name = entry->d_name;
    if (name != "." && name != "..")
      names.push_back(std::move(name));
  }
  int error = errno;
  ::closedir(stream);
  if (error != 0)
    return Status::error("cannot list " + dir + ": " + errnoText(error));
  return names;
}

Status train::removeFile(const std::string &dir, const std::string &name) {
  std::string path = joinPath(dir, name);
  if (::unlink(path.c_str()) != 0 && errno != ENOENT)
    return Status::error("cannot remove " + path + ": " + errnoText(errno));
  return Status::ok();
}
