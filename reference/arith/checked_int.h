// Overflow-checked 64-bit integer: the executable instantiation of the planner arithmetic.
//
// Every planner quantity is a non-negative integer well inside int64, but the fuzzers and
// the case parser hand the planner arbitrary values; an overflow must become a clear error
// (exit 2), never a wrapped value that silently changes a plan.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>

namespace cp {

// Thrown when arithmetic on planner quantities leaves int64 or divides by zero.
struct ArithmeticError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

class Int {
 public:
  constexpr Int() = default;
  constexpr Int(std::int64_t v) : v_(v) {}  // NOLINT: implicit on purpose, literals read naturally
  constexpr std::int64_t get() const { return v_; }

  friend Int operator+(Int a, Int b) {
    std::int64_t r;
    if (__builtin_add_overflow(a.v_, b.v_, &r)) overflow("+", a, b);
    return r;
  }
  friend Int operator-(Int a, Int b) {
    std::int64_t r;
    if (__builtin_sub_overflow(a.v_, b.v_, &r)) overflow("-", a, b);
    return r;
  }
  friend Int operator*(Int a, Int b) {
    std::int64_t r;
    if (__builtin_mul_overflow(a.v_, b.v_, &r)) overflow("*", a, b);
    return r;
  }
  friend constexpr bool operator==(Int a, Int b) { return a.v_ == b.v_; }
  friend constexpr auto operator<=>(Int a, Int b) { return a.v_ <=> b.v_; }

 private:
  [[noreturn]] static void overflow(const char* op, Int a, Int b) {
    throw ArithmeticError("integer overflow in " + std::to_string(a.v_) + " " + op + " " +
                          std::to_string(b.v_));
  }
  std::int64_t v_ = 0;
};

}  // namespace cp
