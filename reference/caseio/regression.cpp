#include "reference/caseio/regression.h"

#include <cctype>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace cp {
namespace {

std::string trim(std::string_view t) {
  while (!t.empty() && std::isspace(static_cast<unsigned char>(t.front()))) t.remove_prefix(1);
  while (!t.empty() && std::isspace(static_cast<unsigned char>(t.back()))) t.remove_suffix(1);
  return std::string(t);
}

}  // namespace

std::string CaseRecord::header_value(std::string_view key) const {
  for (const auto& [k, v] : header)
    if (k == key) return v;
  return {};
}

Case CaseRecord::case_for(Version v) const {
  Case c = parse_case(line);
  c.version = v;
  validate_case(c);
  return c;
}

Expectation parse_expect_line(std::string_view text) {
  std::string s = trim(text);
  if (!s.empty() && s[0] == '#') s = trim(std::string_view(s).substr(1));
  if (s.rfind("expect ", 0) != 0) throw CaseError("expect", "not an expect line: '" + s + "'");
  const auto colon = s.find(':');
  if (colon == std::string::npos) throw CaseError("expect", "no ':' in '" + s + "'");
  const std::string ver = trim(std::string_view(s).substr(7, colon - 7));
  const auto v = parse_version(ver);
  if (!v) throw CaseError("expect", "unknown version '" + ver + "'");
  Expectation e{*v, ExpectedOutcome::ok, {}};
  const std::string verdict = trim(std::string_view(s).substr(colon + 1));
  if (verdict == "ok") return e;
  if (verdict == "assert") {
    e.outcome = ExpectedOutcome::assert_fired;
    return e;
  }
  if (verdict == "crash") {
    e.outcome = ExpectedOutcome::crashed;
    return e;
  }
  if (verdict.rfind("violation", 0) != 0)
    throw CaseError("expect", "bad verdict '" + verdict + "' (ok, assert, crash, violation I-x,...)");
  e.outcome = ExpectedOutcome::violation;
  std::stringstream tags(verdict.substr(9));
  for (std::string tag; std::getline(tags, tag, ',');)
    if (!(tag = trim(tag)).empty()) e.invariants.push_back(tag);
  return e;
}

std::string print_expect_line(const Expectation& e) {
  std::string s = "# expect " + std::string(name(e.version)) + ": ";
  switch (e.outcome) {
    case ExpectedOutcome::ok: return s + "ok";
    case ExpectedOutcome::assert_fired: return s + "assert";
    case ExpectedOutcome::crashed: return s + "crash";
    case ExpectedOutcome::violation: break;
  }
  s += "violation ";
  for (std::size_t i = 0; i < e.invariants.size(); ++i) s += (i ? "," : "") + e.invariants[i];
  return s;
}

namespace {

// Records of a stream. With `one`, the whole text is a single record: a '#' block after the
// case line belongs to it too, and the case line may be missing (left empty).
std::vector<CaseRecord> read_records(std::istream& in, const std::string& name, bool one) {
  std::vector<CaseRecord> out;
  CaseRecord cur;
  std::string s;
  for (std::size_t n = 1; std::getline(in, s); ++n) {
    s = trim(s);
    if (s.empty()) continue;
    const std::string where = name + ":" + std::to_string(n);
    if (s[0] != '#') {
      if (one && !cur.line.empty()) throw CaseError("", where + ": more than one case line");
      cur.line = s;
      cur.origin = where;
      if (!one) {
        out.push_back(std::move(cur));
        cur = CaseRecord{};
      }
      continue;
    }
    const std::string body = trim(std::string_view(s).substr(1));
    if (body.rfind("expect ", 0) == 0) {
      try {
        cur.expects.push_back(parse_expect_line(body));
      } catch (const CaseError& e) {
        throw CaseError("expect", where + ": " + std::string(e.what()).substr(14));  // drop "key 'expect': "
      }
      continue;
    }
    const auto colon = body.find(':');
    const auto space = body.find(' ');
    if (colon != std::string::npos && colon > 0 && (space == std::string::npos || space > colon))
      cur.header.emplace_back(body.substr(0, colon), trim(std::string_view(body).substr(colon + 1)));
  }
  if (one) {
    if (cur.origin.empty()) cur.origin = name;
    out.push_back(std::move(cur));
  }
  return out;
}

}  // namespace

std::vector<CaseRecord> read_case_records(std::istream& in, const std::string& name) {
  return read_records(in, name, false);
}

std::vector<CaseRecord> read_case_records_text(const std::string& text, const std::string& name) {
  std::istringstream in(text);
  return read_records(in, name, false);
}

CaseRecord read_case_record_text(const std::string& text, const std::string& name) {
  std::istringstream in(text);
  return std::move(read_records(in, name, true).front());
}

CaseRecord read_regression_file(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot read " + path);
  CaseRecord r = std::move(read_records(in, path, true).front());
  if (r.line.empty()) throw std::runtime_error(path + ": no case line");
  return r;
}

std::string print_case_record(const CaseRecord& r) {
  std::string s;
  for (const auto& [k, v] : r.header) s += "# " + k + ": " + v + "\n";
  for (const auto& e : r.expects) s += print_expect_line(e) + "\n";
  return s + r.line + "\n";
}

}  // namespace cp
