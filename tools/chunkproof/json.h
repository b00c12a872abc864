// A minimal streaming JSON writer: enough for the CLI's --json outputs, no dependency.
#pragma once

#include <cstdint>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

namespace cp::cli {

class Json {
 public:
  explicit Json(std::ostream& os) : os_(os) {}
  Json& begin_object() { sep(); os_ << '{'; first_ = true; return *this; }
  Json& end_object() { os_ << '}'; first_ = false; return *this; }
  Json& begin_array() { sep(); os_ << '['; first_ = true; return *this; }
  Json& end_array() { os_ << ']'; first_ = false; return *this; }
  Json& key(std::string_view k) { sep(); str(k); os_ << ':'; first_ = true; return *this; }
  Json& value(std::string_view s) { sep(); str(s); return *this; }
  Json& value(const char* s) { return value(std::string_view(s)); }
  Json& value(const std::string& s) { return value(std::string_view(s)); }
  Json& value(bool b) { sep(); os_ << (b ? "true" : "false"); return *this; }
  Json& value(std::int64_t v) { sep(); os_ << v; return *this; }
  Json& value(int v) { return value(static_cast<std::int64_t>(v)); }
  Json& value(double v) { sep(); os_ << v; return *this; }
  Json& null() { sep(); os_ << "null"; return *this; }
  Json& value(const std::vector<std::int64_t>& v) {
    begin_array();
    for (auto x : v) value(x);
    return end_array();
  }
  template <class T>
  Json& field(std::string_view k, const T& v) { key(k); return value(v); }

 private:
  void sep() {
    if (!first_) os_ << ',';
    first_ = false;
  }
  void str(std::string_view s) {
    os_ << '"';
    for (char ch : s) {
      switch (ch) {
        case '"': os_ << "\\\""; break;
        case '\\': os_ << "\\\\"; break;
        case '\n': os_ << "\\n"; break;
        case '\t': os_ << "\\t"; break;
        default:
          if (static_cast<unsigned char>(ch) < 0x20) {
            const char* hex = "0123456789abcdef";
            os_ << "\\u00" << hex[(ch >> 4) & 0xf] << hex[ch & 0xf];
          } else {
            os_ << ch;
          }
      }
    }
    os_ << '"';
  }
  std::ostream& os_;
  bool first_ = true;
};

}  // namespace cp::cli
