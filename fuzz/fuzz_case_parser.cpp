// case_parser_fuzz: the case-line parser and printer (reference/caseio/case.h).
//  - parse_case never crashes: it returns a Case or throws CaseError, whose key is "" or a
//    key of the format (the message names the key);
//  - print(parse(x)) round-trips: parse(print(c)) == c and print(parse(print(c))) == print(c);
//  - a parsed case passes validate_case (the parser accepts nothing the validator refuses).
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>
#include <string_view>

#include "fuzz/common/findings.h"
#include "fuzz/replay.h"
#include "reference/caseio/case.h"

namespace {

[[noreturn]] void fail(const std::string& what, std::string_view input) {
  std::fprintf(stderr, "case_parser_fuzz: %s\n  input: '%.*s'\n", what.c_str(), static_cast<int>(input.size()),
               input.data());
  std::fflush(stderr);
  std::abort();
}

bool known_key(const std::string& k) {
  if (k.empty()) return true;
  for (const auto& ck : cp::case_keys())
    if (ck.key == k) return true;
  return false;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  cp::fuzz::count_execution();
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  cp::Case c;
  try {
    c = cp::parse_case(input);
  } catch (const cp::CaseError& e) {
    if (!known_key(e.key)) {
      // An unknown key is reported under its own name; it must be a word's key part.
      if (e.key.find_first_of(" \t\n\v\f\r=") != std::string::npos)
        fail("CaseError names key '" + e.key + "', which is not a key of the input", input);
      // The message names the key, non-printable bytes escaped (a NUL once cut what() short).
      if (std::string_view(e.what()).find(cp::CaseError::printable(e.key)) == std::string_view::npos)
        fail("CaseError's message does not name its key: " + std::string(e.what()), input);
      if (std::string_view(e.what()).find("unknown key") == std::string_view::npos)
        fail("CaseError names key '" + e.key + "', which is not a key of the format: " + e.what(), input);
    }
    return 0;
  } catch (const std::exception& e) {
    fail(std::string("parse_case threw something other than CaseError: ") + e.what(), input);
  }
  if (std::getenv("CHUNKPROOF_PRINT_CASE")) std::printf("case: %s\n", cp::print_case(c).c_str());
  try {
    cp::validate_case(c);
  } catch (const std::exception& e) {
    fail(std::string("parsed case fails validate_case: ") + e.what(), input);
  }
  const std::string printed = cp::print_case(c);
  cp::Case back;
  try {
    back = cp::parse_case(printed);
  } catch (const std::exception& e) {
    fail("the printed case does not parse: '" + printed + "': " + e.what(), input);
  }
  if (!(back == c))
    fail("parse(print(c)) != c; printed '" + printed + "', reprinted '" + cp::print_case(back) + "'", input);
  if (cp::print_case(back) != printed) fail("print(parse(print(c))) != print(c): '" + printed + "'", input);
  return 0;
}
