// A setting's declaration: the key a scenario file names it by, the field of a plain settings
// struct it fills, its unit, valid range, allowed values and one line of documentation. A part of
// the engine declares the keys of its own settings struct with these (a solver beside itself:
// solvers/<name>.cpp); the settings schema (io/settings_schema.hpp) gathers them into the tables
// the loader reads through and docs/scenario.md is generated from.
#pragma once

#include <functional>
#include <limits>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include "etdem/core/math.hpp"

namespace etdem {

enum class SettingKind { Number, Integer, Boolean, String, Vec3 };
using SettingValue = std::variant<double, long, bool, std::string, Vec3>;

/// An interval of valid numbers; an infinite end is unbounded.
struct SettingRange {
  double lo = -std::numeric_limits<double>::infinity();
  double hi = std::numeric_limits<double>::infinity();
  bool lo_open = false, hi_open = false;

  bool contains(double v) const;
  bool bounded() const;
  /// "[1, 1e6]", ">= 0", "> 0", "(0, 1)"; "" when unbounded.
  std::string text() const;
};

/// A bound as written in the docs: 1e6 for a large power-of-ten multiple, else the shortest
/// decimal.
std::string setting_number_text(double v);

template <class T>
struct Setting {
  std::string_view key;
  SettingKind kind = SettingKind::Number;
  std::string_view unit;  // "" = dimensionless or not a quantity
  SettingRange range;
  std::vector<std::string> choices;  // strings: the allowed values (empty: any string)
  bool required = false;
  std::string_view doc;   // one line: what it does
  std::string_view note;  // a further condition the loader checks, for the docs ("" = none)
  std::function<SettingValue(const T&)> get;
  std::function<void(T&, const SettingValue&)> set;
};

/// The builders of declarations. `ref` names the field: a pointer to a data member of T, or a
/// callable returning a reference to the field of a T.
namespace setting {

inline SettingRange closed(double lo, double hi) {
  return {lo, hi, false, false};
}
inline SettingRange open(double lo, double hi) {
  return {lo, hi, true, true};
}
inline SettingRange half_open(double lo, double hi) {  // [lo, hi)
  return {lo, hi, false, true};
}
inline SettingRange left_open(double lo, double hi) {  // (lo, hi]
  return {lo, hi, true, false};
}
inline SettingRange at_least(double lo) {
  return {lo, std::numeric_limits<double>::infinity(), false, false};
}
inline SettingRange above(double lo) {
  return {lo, std::numeric_limits<double>::infinity(), true, false};
}
inline SettingRange any() {
  return {};
}

template <class V>
constexpr SettingKind kind_of() {
  if constexpr (std::is_same_v<V, double>)
    return SettingKind::Number;
  else if constexpr (std::is_same_v<V, bool>)
    return SettingKind::Boolean;
  else if constexpr (std::is_integral_v<V>)
    return SettingKind::Integer;
  else if constexpr (std::is_same_v<V, std::string>)
    return SettingKind::String;
  else
    return SettingKind::Vec3;
}

/// A setting stored in a double, int, long, bool, string or Vec3 field; kind, default and
/// conversion follow from the field's type.
template <class T, class F>
Setting<T> field(std::string_view key, std::string_view unit, SettingRange range,
                 std::string_view doc, F ref, std::string_view note = {}) {
  using V = std::remove_cvref_t<std::invoke_result_t<F, T&>>;
  Setting<T> s;
  s.key = key;
  s.kind = kind_of<V>();
  s.unit = unit;
  s.range = range;
  s.doc = doc;
  s.note = note;
  s.get = [ref](const T& t) -> SettingValue {
    const V& v = std::invoke(ref, const_cast<T&>(t));
    if constexpr (std::is_integral_v<V> && !std::is_same_v<V, bool>)
      return static_cast<long>(v);
    else
      return v;
  };
  s.set = [ref](T& t, const SettingValue& v) {
    if constexpr (std::is_integral_v<V> && !std::is_same_v<V, bool>)
      std::invoke(ref, t) = static_cast<V>(std::get<long>(v));  // the range keeps it within V
    else
      std::invoke(ref, t) = std::get<V>(v);
  };
  return s;
}

/// A string field with a fixed set of values.
template <class T, class F>
Setting<T> one_of(std::string_view key, std::vector<std::string> choices, std::string_view doc,
                  F ref) {
  Setting<T> s = field<T>(key, "", any(), doc, ref);
  s.choices = std::move(choices);
  return s;
}

/// An enum field: `names` maps each value to its name in the file.
template <class T, class E, class F>
Setting<T> named(std::string_view key, std::vector<std::pair<std::string, E>> names,
                 std::string_view doc, F ref) {
  Setting<T> s;
  s.key = key;
  s.kind = SettingKind::String;
  s.doc = doc;
  for (const auto& n : names) s.choices.push_back(n.first);
  s.get = [ref, names](const T& t) -> SettingValue {
    for (const auto& [name, value] : names)
      if (std::invoke(ref, const_cast<T&>(t)) == value) return name;
    return std::string();
  };
  s.set = [ref, names](T& t, const SettingValue& v) {
    for (const auto& [name, value] : names)
      if (name == std::get<std::string>(v)) std::invoke(ref, t) = value;
  };
  return s;
}

template <class T>
Setting<T> required(Setting<T> s) {
  s.required = true;
  return s;
}

/// The settings of a part held in a field of an Outer: the same keys, reading and writing the
/// field `ref` names (a callable returning a reference to the Inner of an Outer).
template <class Outer, class Inner, class F>
std::vector<Setting<Outer>> within(const std::vector<Setting<Inner>>& keys, F ref) {
  std::vector<Setting<Outer>> out;
  out.reserve(keys.size());
  for (const Setting<Inner>& k : keys)
    out.push_back(
        {k.key, k.kind, k.unit, k.range, k.choices, k.required, k.doc, k.note,
         [get = k.get, ref](const Outer& o) {
           return get(std::invoke(ref, const_cast<Outer&>(o)));
         },
         [set = k.set, ref](Outer& o, const SettingValue& v) { set(std::invoke(ref, o), v); }});
  return out;
}

/// The same, for the field `member` of an Outer.
template <class Outer, class Inner>
std::vector<Setting<Outer>> within(const std::vector<Setting<Inner>>& keys, Inner Outer::*member) {
  return within<Outer, Inner>(keys, [member](Outer& o) -> Inner& { return o.*member; });
}

}  // namespace setting
}  // namespace etdem
