// Collects violations of one check, keeping the first kMaxRecorded and counting the rest.
#pragma once

#include "invariants/catalogue.h"

namespace cp::detail {

class Sink {
 public:
  explicit Sink(InvariantId id) { r_.id = id; }
  void add(Violation v) {
    ++r_.total_violations;
    r_.verdict = Verdict::violated;
    if (r_.violations.size() < kMaxRecorded) r_.violations.push_back(std::move(v));
  }
  InvariantResult done() { return std::move(r_); }
  InvariantResult not_applicable(std::string why) {
    r_.verdict = Verdict::not_applicable;
    r_.note = std::move(why);
    return std::move(r_);
  }
  InvariantResult not_evaluated() {
    r_.verdict = Verdict::not_evaluated;
    r_.note = "no plan was built";
    return std::move(r_);
  }
  void note(std::string n) { r_.note = std::move(n); }

 private:
  InvariantResult r_;
};

inline std::string str(std::int64_t v) { return std::to_string(v); }

// The check functions, one per invariant, grouped in files by theme.
InvariantResult check_I1(const Case&, const Plan&);
InvariantResult check_I2(const Case&, const Plan&);
InvariantResult check_I3(const Case&, const Plan&);
InvariantResult check_I4(const Case&, const Plan&);
InvariantResult check_I5(const Case&, const Plan&);
InvariantResult check_I6(const Case&, const Plan&);
InvariantResult check_I7(const Case&, const Plan&);
InvariantResult check_I8(const Case&, const Plan&);
InvariantResult check_I9(const Case&, const Plan&);
InvariantResult check_I10(const Case&, const Plan&);
InvariantResult check_I11(const Case&, const Plan&);
InvariantResult check_I12(const Case&, const Plan&);
InvariantResult check_I13(const Case&, const Plan&);

}  // namespace cp::detail
