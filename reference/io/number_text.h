// A number as text with `prec` significant digits (ostream's default float format), for reports
// and pictures.
#pragma once

#include <sstream>
#include <string>

namespace cp::io {

inline std::string significant(double x, int prec = 3) {
  std::ostringstream os;
  os.precision(prec);
  os << x;
  return os.str();
}

}  // namespace cp::io
