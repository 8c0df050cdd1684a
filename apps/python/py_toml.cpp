#include "py_toml.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <limits>

#include <fmt/format.h>

#include "etdem/io/scenario_error.hpp"
#include "etdem/io/scenario_tree.hpp"
#include "etdem/io/toml_reader.hpp"

namespace etdem::python {
namespace {

[[noreturn]] void fail(const std::string& file, const std::string& key, std::string_view message,
                       py::handle value) {
  std::string text;
  try {
    text = py::repr(value).cast<std::string>();
  } catch (const py::error_already_set&) {
    text = "?";
  }
  if (text.size() > 100) text = text.substr(0, 97) + "...";
  throw InputError(input_message(file, 0, key, message, text));
}

std::string type_of(py::handle value) {
  return py::str(py::type::handle_of(value).attr("__name__")).cast<std::string>();
}

/// Where a converted value goes: a key of a table or the end of an array.
struct Slot {
  toml::table* table = nullptr;
  std::string name;
  toml::array* array = nullptr;

  template <class Node>
  void put(Node&& node) const {
    if (table)
      table->insert_or_assign(name, std::forward<Node>(node));
    else
      array->push_back(std::forward<Node>(node));
  }
};

/// Puts the node for `value` (not None) into `slot`; arrays and tables recurse with the key
/// path extended, at most 32 levels deep.
void convert(py::handle value, const std::string& file, const std::string& key, int depth,
             const Slot& slot) {
  if (depth > 32) fail(file, key, "nested deeper than 32 levels", value);
  if (PyBool_Check(value.ptr())) return slot.put(toml::value<bool>(value.cast<bool>()));
  if (PyLong_Check(value.ptr())) {
    int overflow = 0;
    const long long v = PyLong_AsLongLongAndOverflow(value.ptr(), &overflow);
    if (overflow != 0) fail(file, key, "integer out of the 64-bit range", value);
    return slot.put(toml::value<std::int64_t>(static_cast<std::int64_t>(v)));
  }
  if (PyFloat_Check(value.ptr())) return slot.put(toml::value<double>(value.cast<double>()));
  if (PyUnicode_Check(value.ptr()))
    return slot.put(toml::value<std::string>(value.cast<std::string>()));
  if (PyDict_Check(value.ptr())) {
    toml::table t;
    for (auto item : value.cast<py::dict>()) {
      if (!PyUnicode_Check(item.first.ptr()))
        fail(file, key, "table keys must be strings", item.first);
      const std::string name = item.first.cast<std::string>();
      if (item.second.is_none()) continue;
      convert(item.second, file, key + "." + name, depth + 1, Slot{&t, name, nullptr});
    }
    return slot.put(std::move(t));
  }
  if (PyList_Check(value.ptr()) || PyTuple_Check(value.ptr())) {
    toml::array a;
    std::size_t k = 0;
    for (py::handle e : value) {
      const std::string ek = fmt::format("{}[{}]", key, k++);
      if (e.is_none()) fail(file, ek, "None is not a value", e);
      convert(e, file, ek, depth + 1, Slot{nullptr, "", &a});
    }
    return slot.put(std::move(a));
  }
  // numpy arrays and scalars (float32, int64, bool_, 0-d arrays): their Python equivalents.
  if (py::hasattr(value, "dtype") && py::hasattr(value, "tolist")) {
    const py::object plain = value.attr("tolist")();
    if (!plain.is(value)) return convert(plain, file, key, depth + 1, slot);
  }
  fail(file, key, fmt::format("a Python {} is not a scenario value", type_of(value)), value);
}

/// The keys of a table: scalars and arrays as `key = literal`, sub-tables as [path.sub].
void append_table(const toml::table& t, const std::string& path, std::string& out) {
  for (const auto& [k, v] : t)
    if (!v.is_table()) {
      out += toml_key(k.str()) + " = " + toml_literal(v);
      out += '\n';
    }
  for (const auto& [k, v] : t)
    if (v.is_table()) {
      const std::string sub = path + "." + toml_key(k.str());
      out += fmt::format("\n[{}]\n", sub);
      append_table(*v.as_table(), sub, out);
    }
}

}  // namespace

void insert_value(toml::table& table, const std::string& name, py::handle value,
                  const std::string& file, const std::string& key) {
  if (value.is_none()) return;
  convert(value, file, key, 0, Slot{&table, name, nullptr});
}

toml::table to_table(py::handle dict, const std::string& file, const std::string& key) {
  if (!PyDict_Check(dict.ptr()))
    fail(file, key.empty() ? "scenario" : key, "expected a dict", dict);
  toml::table t;
  for (auto item : dict.cast<py::dict>()) {
    if (!PyUnicode_Check(item.first.ptr())) fail(file, key, "keys must be strings", item.first);
    const std::string name = item.first.cast<std::string>();
    insert_value(t, name, item.second, file, key.empty() ? name : key + "." + name);
  }
  return t;
}

std::vector<std::string> overrides_of(py::handle set, const std::string& file) {
  std::vector<std::string> out;
  if (set.is_none()) return out;
  if (PyDict_Check(set.ptr())) {
    for (auto item : set.cast<py::dict>()) {
      if (!PyUnicode_Check(item.first.ptr()))
        fail(file, "set", "keys must be strings such as \"simulation.dt\"", item.first);
      const std::string key = item.first.cast<std::string>();
      if (item.second.is_none()) fail(file, "set " + key, "None is not a value", item.second);
      toml::table holder;
      insert_value(holder, "v", item.second, file, "set " + key);
      out.push_back(key + "=" + toml_literal(*holder.get("v")));
    }
    return out;
  }
  if (PyList_Check(set.ptr()) || PyTuple_Check(set.ptr())) {
    for (py::handle e : set) {
      if (!PyUnicode_Check(e.ptr())) fail(file, "set", "expected \"key=value\" strings", e);
      out.push_back(e.cast<std::string>());
    }
    return out;
  }
  fail(file, "set", "expected a dict {\"simulation.dt\": 0.001} or a list of \"key=value\"", set);
}

ScenarioBuilder::ScenarioBuilder(std::string name) : name_(std::move(name)) {}

ScenarioBuilder::ScenarioBuilder(py::handle dict, std::string name) : name_(std::move(name)) {
  root_ = to_table(dict, name_, "");
}

void ScenarioBuilder::merge(const std::string& table, py::handle keys) {
  // A dotted path names a sub-table: "simulation.etm".
  toml::table* t = &root_;
  for (std::size_t s = 0; s <= table.size();) {
    const auto d = std::min(table.find('.', s), table.size());
    const std::string part = table.substr(s, d - s);
    if (part.empty()) fail(name_, table, "is not a table name", py::str(table));
    toml::node* n = t->get(part);
    if (!n) n = &t->insert_or_assign(part, toml::table{}).first->second;
    if (!n->is_table()) fail(name_, table, "is not a table in this scenario", py::str(table));
    t = n->as_table();
    s = d + 1;
  }
  const toml::table add = to_table(keys, name_, table);
  for (const auto& [k, v] : add) t->insert_or_assign(k, v);
}

void ScenarioBuilder::append(const std::string& array, py::handle keys) {
  toml::node* n = root_.get(array);
  if (!n) n = &root_.insert_or_assign(array, toml::array{}).first->second;
  if (!n->is_array()) fail(name_, array, "is not an array of tables in this scenario", py::none());
  toml::array& a = *n->as_array();
  a.push_back(to_table(keys, name_, fmt::format("{}[{}]", array, a.size())));
}

std::string ScenarioBuilder::toml_text() const {
  std::string head = fmt::format("# scenario '{}', written by the etdem Python module\n", name_);
  std::string out;
  // The tables in the order of docs/scenario.md, then any other (the loader will name it).
  std::vector<std::string> order = {"simulation", "material", "shape", "body",  "fill",
                                    "wall",       "net",      "event", "output"};
  for (const auto& [k, v] : root_)
    if (std::find(order.begin(), order.end(), k.str()) == order.end()) order.emplace_back(k.str());
  for (const std::string& name : order) {
    const toml::node* v = root_.get(name);
    if (!v) continue;
    if (const auto* t = v->as_table()) {
      out += fmt::format("\n[{}]\n", toml_key(name));
      append_table(*t, toml_key(name), out);
    } else if (const auto* a = v->as_array(); a && a->is_array_of_tables() && !a->empty()) {
      for (const auto& e : *a) {
        out += fmt::format("\n[[{}]]\n", toml_key(name));
        append_table(*e.as_table(), toml_key(name), out);
      }
    } else {
      head += fmt::format("{} = {}\n", toml_key(name), toml_literal(*v));  // before any table
    }
  }
  return head + out;
}

Scenario ScenarioBuilder::scenario(const std::vector<std::string>& overrides) const {
  toml::table root = root_;
  return parse_scenario_tree(root, name_, overrides);
}

}  // namespace etdem::python
