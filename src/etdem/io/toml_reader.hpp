// Strict, typed access to a TOML table for the scenario loader. Every value read is checked for
// type and finiteness (TOML allows nan and inf literals); every key is marked as read, and
// finish() reports the first key nobody asked for, so a typo never passes silently. Every error
// is a ScenarioError of one line: "FILE[:LINE]: KEY: message (value VALUE)".
#pragma once

#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include <toml++/toml.h>

#include "etdem/core/math.hpp"
#include "etdem/io/scenario_error.hpp"

namespace etdem {

/// What every reader of one file shares: the file name printed in messages and the key paths
/// that command-line overrides (--set) replaced, so their errors say where the value came from.
struct TomlSource {
  std::string file;
  std::set<std::string> overridden;
};

class TomlReader {
 public:
  /// `path` is the key path of `table` ("" for the root, "simulation", "material[2]").
  TomlReader(const TomlSource& source, const toml::table& table, std::string path);

  const std::string& path() const { return path_; }
  /// Line of this table in the file (0 when unknown, e.g. created by an override).
  int line() const;
  bool has(std::string_view key) const;

  // Required values (an absent key is an error) and optional ones with a fallback.
  double number(std::string_view key) const;
  double number(std::string_view key, double fallback) const;
  long integer(std::string_view key) const;
  long integer(std::string_view key, long fallback) const;
  bool boolean(std::string_view key, bool fallback) const;
  std::string string(std::string_view key) const;
  std::string string(std::string_view key, const std::string& fallback) const;
  /// A fixed-length array of finite numbers.
  std::vector<double> numbers(std::string_view key, std::size_t length) const;
  Vec3 vec3(std::string_view key) const;
  Vec3 vec3(std::string_view key, const Vec3& fallback) const;
  /// A quaternion [w, x, y, z] within 1e-3 of unit length, normalised; `fallback` when absent.
  Quat unit_quaternion(std::string_view key, const Quat& fallback) const;
  /// An array of strings (may be empty).
  std::vector<std::string> strings(std::string_view key) const;
  /// A non-empty array of [x, y, z] arrays of finite numbers (e.g. a polyhedron's vertices).
  std::vector<Vec3> vec3_list(std::string_view key) const;

  /// A sub-table (standard or inline); nullopt when absent.
  std::optional<TomlReader> table(std::string_view key) const;
  /// An array of tables ([[key]]); empty when absent.
  std::vector<TomlReader> tables(std::string_view key) const;

  /// Throws a ScenarioError about `key` of this table, quoting its value and line if present.
  [[noreturn]] void fail(std::string_view key, std::string_view message) const;
  /// Throws a ScenarioError about this table as a whole.
  [[noreturn]] void fail_table(std::string_view message) const;

  /// Throws for the first key of this table that was never read (unknown key).
  void finish() const;

 private:
  const toml::node* get(std::string_view key) const;  // marks the key as read
  std::string key_path(std::string_view key) const;

  const TomlSource* source_;
  const toml::table* table_;
  std::string path_;
  mutable std::vector<std::string> read_;  // keys asked for, in order (few per table)
};

/// Short one-line rendering of a TOML value for messages (strings quoted, long values cut).
std::string toml_value_text(const toml::node& node);

/// A value as TOML text that reads back to the same value (strings escaped, floats in their
/// shortest exact form, tables inline); for writing TOML (`--set` values from Python).
std::string toml_literal(const toml::node& node);
/// A key as TOML writes it: bare when it can be, quoted otherwise.
std::string toml_key(std::string_view key);

/// Formats the one-line message "FILE[:LINE]: KEY: message (value VALUE)".
std::string input_message(std::string_view file, int line, std::string_view key,
                          std::string_view message, std::string_view value = {});

/// Parses the file; a missing or unreadable file or a syntax error becomes a ScenarioError
/// naming the file and line.
toml::table parse_toml_file(const std::string& file);
/// Parses TOML text; `file` is used in messages.
toml::table parse_toml_text(const std::string& text, const std::string& file);

/// Applies one command-line override "a.b.c=value" (or "material[1].density=value") to the
/// tree. The value is parsed as a TOML value; text that is not valid TOML is taken as a string,
/// so `--set simulation.solver=etm` works without quotes. Returns the key path set.
std::string apply_override(toml::table& root, const std::string& spec, const std::string& file);

}  // namespace etdem
