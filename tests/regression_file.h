// Reads a corpus/regressions/*.case file: '# key: value' header lines, then one case line.
//   # bug: <what broke>            # invariant: I-6
//   # expect <version>: ok | assert | violation I-6,I-9
#pragma once

#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "invariants/catalogue.h"

namespace cp {

struct RegressionExpectation {
  Version version;
  Outcome outcome;
  std::vector<InvariantId> violated;
};

struct RegressionFile {
  std::string bug;
  std::string line;
  std::vector<RegressionExpectation> expectations;
  // The case line with `version=` replaced.
  Case case_for(Version v) const {
    Case c = parse_case(line);
    c.version = v;
    validate_case(c);
    return c;
  }
};

inline RegressionFile read_regression_file(const std::filesystem::path& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot read " + path.string());
  RegressionFile rf;
  std::string s;
  auto trim = [](std::string t) {
    while (!t.empty() && std::isspace(static_cast<unsigned char>(t.back()))) t.pop_back();
    while (!t.empty() && std::isspace(static_cast<unsigned char>(t.front()))) t.erase(t.begin());
    return t;
  };
  while (std::getline(in, s)) {
    s = trim(s);
    if (s.empty()) continue;
    if (s[0] != '#') {
      if (!rf.line.empty()) throw std::runtime_error(path.string() + ": more than one case line");
      rf.line = s;
      continue;
    }
    s = trim(s.substr(1));
    if (s.rfind("bug:", 0) == 0) rf.bug = trim(s.substr(4));
    if (s.rfind("expect ", 0) != 0) continue;
    const auto colon = s.find(':');
    if (colon == std::string::npos) throw std::runtime_error(path.string() + ": bad expect line: " + s);
    const auto ver = parse_version(trim(s.substr(7, colon - 7)));
    if (!ver) throw std::runtime_error(path.string() + ": unknown version in: " + s);
    RegressionExpectation ex{*ver, Outcome::ok, {}};
    const std::string verdict = trim(s.substr(colon + 1));
    if (verdict == "ok") ex.outcome = Outcome::ok;
    else if (verdict == "assert") ex.outcome = Outcome::assert_fired;
    else if (verdict == "crash") ex.outcome = Outcome::crashed;
    else if (verdict.rfind("violation", 0) == 0) {
      ex.outcome = Outcome::violation;
      std::string list = trim(verdict.substr(9));
      std::size_t pos = 0;
      while (pos < list.size()) {
        auto comma = list.find(',', pos);
        InvariantId id{};
        if (!parse_invariant(trim(list.substr(pos, comma - pos)), id))
          throw std::runtime_error(path.string() + ": unknown invariant in: " + s);
        ex.violated.push_back(id);
        if (comma == std::string::npos) break;
        pos = comma + 1;
      }
    } else {
      throw std::runtime_error(path.string() + ": bad verdict in: " + s);
    }
    rf.expectations.push_back(std::move(ex));
  }
  if (rf.line.empty()) throw std::runtime_error(path.string() + ": no case line");
  return rf;
}

}  // namespace cp
