// Python values as TOML for the scenario loader: the Scenario builder's tables and the `set=`
// overrides of etdem.load. Nothing here validates a scenario: the values go to the loader
// (io/scenario_tree.hpp, io/scenario.hpp), which checks them as it checks a file.
#pragma once

#include <string>
#include <vector>

#include <pybind11/pybind11.h>
#include <toml++/toml.h>

#include "etdem/io/scenario_spec.hpp"

namespace etdem::python {

namespace py = pybind11;

/// Inserts `value` as `name` into `table`: bool, int, float (numpy scalars too), str, list /
/// tuple / numpy array (an array), dict with str keys (a table); None inserts nothing. Throws
/// InputError "FILE: KEY: message (value V)" for anything else; `key` is the key path.
void insert_value(toml::table& table, const std::string& name, py::handle value,
                  const std::string& file, const std::string& key);

/// A dict (or keyword arguments) as a TOML table; keys whose value is None are left out.
toml::table to_table(py::handle dict, const std::string& file, const std::string& key);

/// `set=` of etdem.load as the loader's "key=value" overrides: a dict {key: value} (the value
/// written as a TOML literal) or a list of "key=value" strings (as `etdem run --set` takes them).
std::vector<std::string> overrides_of(py::handle set, const std::string& file);

/// The Scenario builder (etdem.Scenario): a TOML tree grown table by table from Python, checked
/// only by the loader, when it is built.
class ScenarioBuilder {
 public:
  /// `name` stands for the file in messages; relative file names (meshes) are read relative to
  /// its directory ("<python>": the working directory).
  explicit ScenarioBuilder(std::string name);
  ScenarioBuilder(py::handle dict, std::string name);

  /// Merges keys into [simulation] or [output] (a later value of a key replaces the earlier).
  void merge(const std::string& table, py::handle keys);
  /// Appends a table to [[material]], [[shape]], [[body]], [[fill]], [[wall]] or [[event]].
  void append(const std::string& array, py::handle keys);
  /// The tree as TOML text (a scenario file that loads into the same world).
  std::string toml_text() const;
  /// The tree through the loader, with `overrides` ("key=value") applied first.
  Scenario scenario(const std::vector<std::string>& overrides) const;
  const std::string& name() const { return name_; }

 private:
  std::string name_;
  toml::table root_;
};

}  // namespace etdem::python
