//===- Error.h - Recoverable errors without exceptions ----------*- C++ -*-===//
//
// kiln reports user-facing failures as values: `Error` carries a message,
// `Expected<T>` carries either a T or an Error. Internal invariants use
// assert instead. No exceptions cross library boundaries.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_SUPPORT_ERROR_H
#define KILN_SUPPORT_ERROR_H

#include <cassert>
#include <fmt/format.h>
#include <optional>
#include <string>
#include <utility>
#include <variant>

namespace kiln {

/// A possibly-failed operation. Converts to true when it holds an error, in
/// the style of llvm::Error: `if (Error e = doThing()) return e;`.
class [[nodiscard]] Error {
public:
  static Error success() { return Error(); }
  static Error failure(std::string message) {
    Error e;
    e.message_ = std::move(message);
    return e;
  }

  explicit operator bool() const { return message_.has_value(); }
  const std::string &message() const {
    assert(message_ && "message() called on a success value");
    return *message_;
  }

private:
  Error() = default;
  std::optional<std::string> message_;
};

/// Builds an Error from a fmt format string.
template <typename... Args>
Error makeError(fmt::format_string<Args...> format, Args &&...args) {
  return Error::failure(fmt::format(format, std::forward<Args>(args)...));
}

/// Either a value of type T or an Error.
template <typename T> class [[nodiscard]] Expected {
public:
  Expected(T value) : storage_(std::move(value)) {}
  Expected(Error error) : storage_(std::move(error)) {
    assert(std::get<Error>(storage_) && "Expected built from a success Error");
  }

  explicit operator bool() const { return storage_.index() == 0; }
  T &operator*() { return std::get<T>(storage_); }
  const T &operator*() const { return std::get<T>(storage_); }
  T *operator->() { return &std::get<T>(storage_); }
  const T *operator->() const { return &std::get<T>(storage_); }

  /// The error; only valid when the Expected holds no value.
  Error takeError() {
    if (storage_.index() == 0)
      return Error::success();
    return std::move(std::get<Error>(storage_));
  }
  const std::string &errorMessage() const {
    return std::get<Error>(storage_).message();
  }

private:
  std::variant<T, Error> storage_;
};

} // namespace kiln

#endif // KILN_SUPPORT_ERROR_H
