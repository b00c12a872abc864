// Collects violations of one check, keeping the first kMaxRecorded and counting the rest.
//
// A violation's text is built only when it is recorded: add() takes a callable that makes the
// Violation, called for the first kMaxRecorded violations and never under verdict-only
// evaluation (catalogue.h: VerdictOnlyScope, the fuzzers' hot path), where a check only counts.
// Notes are skipped there too, so a check that holds allocates nothing.
#pragma once

#include <type_traits>

#include "invariants/catalogue.h"

namespace cp::detail {

class Sink {
 public:
  explicit Sink(InvariantId id) { r_.id = id; }
  // `make`: a callable returning the Violation (built only if recorded), or a Violation.
  template <class Make>
  void add(Make&& make) {
    ++r_.total_violations;
    r_.verdict = Verdict::violated;
    if (verdict_only() || r_.violations.size() >= kMaxRecorded) return;
    if constexpr (std::is_invocable_v<Make&>)
      r_.violations.push_back(make());
    else
      r_.violations.push_back(std::forward<Make>(make));
  }
  // A Violation built by the caller (braced initialiser): its text is made even when it is not
  // recorded — prefer the callable form in a loop.
  void add(Violation v) {
    add([&v]() -> Violation { return std::move(v); });
  }
  InvariantResult done() { return std::move(r_); }
  // `why`: text, or a callable returning it (built only when notes are kept).
  template <class Text>
  InvariantResult not_applicable(Text&& why) {
    r_.verdict = Verdict::not_applicable;
    note(std::forward<Text>(why));
    return std::move(r_);
  }
  InvariantResult not_evaluated() {
    r_.verdict = Verdict::not_evaluated;
    note("no plan was built");
    return std::move(r_);
  }
  template <class Text>
  void note(Text&& n) {
    if (verdict_only()) return;
    if constexpr (std::is_invocable_v<Text&>)
      r_.note = n();
    else
      r_.note = std::forward<Text>(n);
  }

 private:
  InvariantResult r_;
};

inline std::string str(std::int64_t v) { return std::to_string(v); }

}  // namespace cp::detail
