#include "etdem/core/setting.hpp"

#include <cmath>
#include <limits>

#include <fmt/format.h>

namespace etdem {

namespace {
constexpr double kInf = std::numeric_limits<double>::infinity();
}  // namespace

std::string setting_number_text(double v) {
  if (std::isfinite(v) && v == std::round(v) && std::abs(v) >= 1e5) {
    const int e = static_cast<int>(std::floor(std::log10(std::abs(v))));
    const double m = v / std::pow(10.0, e);
    if (m == std::round(m)) return fmt::format("{}e{}", m, e);
  }
  return fmt::format("{}", v);
}

bool SettingRange::contains(double v) const {
  if (std::isnan(v)) return false;
  const bool lo_ok = lo_open ? v > lo : v >= lo;
  const bool hi_ok = hi_open ? v < hi : v <= hi;
  return lo_ok && hi_ok;
}

bool SettingRange::bounded() const {
  return lo > -kInf || hi < kInf;
}

std::string SettingRange::text() const {
  const bool has_lo = lo > -kInf, has_hi = hi < kInf;
  if (has_lo && has_hi)
    return fmt::format("{}{}, {}{}", lo_open ? "(" : "[", setting_number_text(lo),
                       setting_number_text(hi), hi_open ? ")" : "]");
  if (has_lo) return fmt::format("{} {}", lo_open ? ">" : ">=", setting_number_text(lo));
  if (has_hi) return fmt::format("{} {}", hi_open ? "<" : "<=", setting_number_text(hi));
  return "";
}

}  // namespace etdem
