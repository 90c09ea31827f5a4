//===- Status.h - Errors of the package format and runtime ------*- C++ -*-===//
//
// Part of attnc. SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// Errors are values: every fallible call in lib/ and runtime/ returns a
// Status or a StatusOr<T> carrying a human-readable message. Nothing here
// throws across an API boundary, so the compiler (built without exceptions)
// and C callers can use the same functions.
//
//===----------------------------------------------------------------------===//

#ifndef ATTNC_STATUS_H
#define ATTNC_STATUS_H

#include <optional>
#include <string>
#include <utility>

namespace attnc {

/// The result of a fallible operation: ok, or an error with a message.
class [[nodiscard]] Status {
public:
  static Status ok() { return Status(); }
  static Status error(std::string message) {
    Status s;
    s.message_ = std::move(message);
    s.failed_ = true;
    return s;
  }

  bool isOk() const { return !failed_; }
  explicit operator bool() const { return isOk(); }
  const std::string &message() const { return message_; }

  /// Returns this error with `context: ` put in front of its message.
  Status withContext(const std::string &context) const {
    if (isOk())
      return *this;
    return error(context + ": " + message_);
  }

private:
  Status() = default;
  std::string message_;
  bool failed_ = false;
};

/// A value of type T, or the error that prevented computing it.
template <typename T> class [[nodiscard]] StatusOr {
public:
  StatusOr(T value) : value_(std::move(value)), status_(Status::ok()) {}
  StatusOr(Status status) : status_(std::move(status)) {
    if (status_.isOk())
      status_ =
          Status::error("internal error: StatusOr built from an ok status");
  }

  bool isOk() const { return status_.isOk(); }
  explicit operator bool() const { return isOk(); }
  const Status &status() const { return status_; }

  T &value() & { return *value_; }
  const T &value() const & { return *value_; }
  T &&value() && { return std::move(*value_); }
  T *operator->() { return &*value_; }
  const T *operator->() const { return &*value_; }
  T &operator*() & { return *value_; }
  const T &operator*() const & { return *value_; }

private:
  std::optional<T> value_;
  Status status_;
};

} // namespace attnc

#endif // ATTNC_STATUS_H
