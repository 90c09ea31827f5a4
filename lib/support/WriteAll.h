//===- WriteAll.h - Write a whole buffer to a file descriptor ---*- C++ -*-===//
//
// Part of attnc. SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

#ifndef ATTNC_LIB_SUPPORT_WRITEALL_H
#define ATTNC_LIB_SUPPORT_WRITEALL_H

#include <cerrno>
#include <cstddef>
#include <cstdint>

#include <unistd.h>

namespace attnc {

/// Writes every byte of [data, data + size) to `fd`, retrying short writes
/// and EINTR; false with errno set on failure (EIO for a write of 0).
inline bool writeAll(int fd, const uint8_t *data, size_t size) {
  for (size_t done = 0; done < size;) {
    ssize_t n = ::write(fd, data + done, size - done);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0) {
      if (n == 0)
        errno = EIO;
      return false;
    }
    done += static_cast<size_t>(n);
  }
  return true;
}

} // namespace attnc

#endif // ATTNC_LIB_SUPPORT_WRITEALL_H
