#include "etdem/io/toml_reader.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <fmt/format.h>

namespace etdem {
namespace {

const char* type_name(const toml::node& n) {
  switch (n.type()) {
    case toml::node_type::table:
      return "a table";
    case toml::node_type::array:
      return "an array";
    case toml::node_type::string:
      return "a string";
    case toml::node_type::integer:
      return "an integer";
    case toml::node_type::floating_point:
      return "a floating-point number";
    case toml::node_type::boolean:
      return "a boolean";
    case toml::node_type::date:
      return "a date";
    case toml::node_type::time:
      return "a time";
    case toml::node_type::date_time:
      return "a date-time";
    default:
      return "nothing";
  }
}

int line_of(const toml::node& n) {
  return static_cast<int>(n.source().begin.line);
}

/// Edit distance, for "did you mean" on unknown keys.
std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diag = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diag = up;
    }
  }
  return row[b.size()];
}

std::string trim(std::string_view s) {
  const auto b = s.find_first_not_of(" \t\r\n");
  if (b == std::string_view::npos) return {};
  const auto e = s.find_last_not_of(" \t\r\n");
  return std::string(s.substr(b, e - b + 1));
}

/// A value as one line of TOML. `exact`: a literal TOML reads back to the same value (strings
/// escaped, keys quoted where they must be); otherwise the text messages quote (strings as they
/// are, keys bare; control characters are escaped for messages by one_line).
void render(const toml::node& n, std::string& out, bool exact) {
  if (const auto* v = n.as_string()) {
    out += '"';
    for (const char c : v->get()) {
      if (exact && (c == '"' || c == '\\'))
        out += {'\\', c};
      else if (exact && (static_cast<unsigned char>(c) < 0x20 || c == 0x7f))
        out += fmt::format("\\u{:04X}", static_cast<unsigned char>(c));
      else
        out += c;
    }
    out += '"';
  } else if (const auto* v = n.as_integer()) {
    out += fmt::format("{}", v->get());
  } else if (const auto* v = n.as_floating_point()) {
    // Shortest text that reads back to the same double (0.1, not 0.10000000000000001), with a
    // ".0" kept on whole numbers so the value reads as the user wrote it.
    std::string t = fmt::format("{}", v->get());
    if (t.find_first_of(".eni") == std::string::npos) t += ".0";
    out += t;
  } else if (const auto* v = n.as_boolean()) {
    out += v->get() ? "true" : "false";
  } else if (const auto* a = n.as_array()) {
    out += '[';
    for (std::size_t i = 0; i < a->size(); ++i) {
      if (i) out += ", ";
      render(*a->get(i), out, exact);
    }
    out += ']';
  } else if (const auto* t = n.as_table()) {
    out += "{ ";
    bool first = true;
    for (const auto& [k, v] : *t) {
      if (!first) out += ", ";
      first = false;
      out += (exact ? toml_key(k.str()) : std::string(k.str())) + " = ";
      render(v, out, exact);
    }
    out += " }";
  } else {
    std::ostringstream os;
    n.visit([&](const auto& x) { os << x; });
    out += os.str();
  }
}

}  // namespace

std::string toml_key(std::string_view key) {
  const bool bare = !key.empty() && std::all_of(key.begin(), key.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-';
  });
  if (bare) return std::string(key);
  std::string out;
  render(toml::value<std::string>(std::string(key)), out, true);
  return out;
}

std::string toml_literal(const toml::node& node) {
  std::string out;
  render(node, out, true);
  return out;
}

std::string toml_value_text(const toml::node& node) {
  std::string s;
  render(node, s, false);
  for (char& c : s)
    if (c == '\n' || c == '\r' || c == '\t') c = ' ';
  if (s.size() > 100) {
    s.resize(97);
    s += "...";
  }
  return s;
}

namespace {

/// Control characters (a NUL would end the message where it is printed) written as \xNN, so
/// a message stays one line whatever the input held.
std::string one_line(std::string s) {
  std::string out;
  out.reserve(s.size());
  for (const char c : s) {
    const auto u = static_cast<unsigned char>(c);
    if (u < 0x20 || u == 0x7f)
      out += fmt::format("\\x{:02x}", u);
    else
      out += c;
  }
  return out;
}

}  // namespace

std::string input_message(std::string_view file, int line, std::string_view key,
                          std::string_view message, std::string_view value) {
  std::string out(file);
  if (line > 0) out += fmt::format(":{}", line);
  out += fmt::format(": {}: {}", key.empty() ? "(file)" : key, message);
  if (!value.empty()) out += fmt::format(" (value {})", value);
  return one_line(std::move(out));
}

TomlReader::TomlReader(const TomlSource& source, const toml::table& table, std::string path)
    : source_(&source), table_(&table), path_(std::move(path)) {}

int TomlReader::line() const {
  return line_of(*table_);
}

bool TomlReader::has(std::string_view key) const {
  return table_->contains(key);
}

std::string TomlReader::key_path(std::string_view key) const {
  return path_.empty() ? std::string(key) : path_ + "." + std::string(key);
}

const toml::node* TomlReader::get(std::string_view key) const {
  if (std::find(read_.begin(), read_.end(), key) == read_.end()) read_.emplace_back(key);
  return table_->get(key);
}

void TomlReader::fail(std::string_view key, std::string_view message) const {
  const std::string kp = key_path(key);
  const toml::node* n = table_->get(key);
  bool from_override = false;
  for (const std::string& o : source_->overridden)
    from_override |= o == kp || o.starts_with(kp + ".") || o.starts_with(kp + "[");
  // A value set on the command line has no line in the file.
  const int ln = from_override ? 0 : n ? line_of(*n) : line();
  const std::string where = from_override ? "--set " + kp : kp;
  throw ScenarioError(
      input_message(source_->file, ln, where, message, n ? toml_value_text(*n) : std::string()));
}

void TomlReader::fail_table(std::string_view message) const {
  throw ScenarioError(input_message(source_->file, line(), path_, message));
}

void TomlReader::finish() const {
  for (const auto& [k, v] : *table_) {
    const std::string_view key = k.str();
    if (std::find(read_.begin(), read_.end(), key) != read_.end()) continue;
    std::string best;
    std::size_t best_d = 3;  // suggest only close matches
    for (const std::string& known : read_) {
      const std::size_t d = edit_distance(key, known);
      if (d < best_d) best_d = d, best = known;
    }
    std::string msg = "unknown key";
    if (!best.empty()) msg += fmt::format(" (did you mean '{}'?)", best);
    fail(key, msg);
  }
}

double TomlReader::number(std::string_view key) const {
  const toml::node* n = get(key);
  if (!n) fail(key, "required key is missing");
  if (!n->is_number()) fail(key, fmt::format("expected a number, got {}", type_name(*n)));
  const double v =
      n->is_integer() ? static_cast<double>(n->as_integer()->get()) : n->as_floating_point()->get();
  if (!std::isfinite(v)) fail(key, "must be a finite number");
  return v;
}

double TomlReader::number(std::string_view key, double fallback) const {
  return get(key) ? number(key) : fallback;
}

long TomlReader::integer(std::string_view key) const {
  const toml::node* n = get(key);
  if (!n) fail(key, "required key is missing");
  if (!n->is_integer()) fail(key, fmt::format("expected an integer, got {}", type_name(*n)));
  return static_cast<long>(n->as_integer()->get());
}

long TomlReader::integer(std::string_view key, long fallback) const {
  return get(key) ? integer(key) : fallback;
}

bool TomlReader::boolean(std::string_view key, bool fallback) const {
  const toml::node* n = get(key);
  if (!n) return fallback;
  if (!n->is_boolean()) fail(key, fmt::format("expected true or false, got {}", type_name(*n)));
  return n->as_boolean()->get();
}

std::string TomlReader::string(std::string_view key) const {
  const toml::node* n = get(key);
  if (!n) fail(key, "required key is missing");
  if (!n->is_string()) fail(key, fmt::format("expected a string, got {}", type_name(*n)));
  return n->as_string()->get();
}

std::string TomlReader::string(std::string_view key, const std::string& fallback) const {
  return get(key) ? string(key) : fallback;
}

std::vector<double> TomlReader::numbers(std::string_view key, std::size_t length) const {
  const toml::node* n = get(key);
  if (!n) fail(key, "required key is missing");
  const toml::array* a = n->as_array();
  if (!a) fail(key, fmt::format("expected an array of {} numbers, got {}", length, type_name(*n)));
  if (a->size() != length) fail(key, fmt::format("expected {} numbers, got {}", length, a->size()));
  std::vector<double> out(length);
  for (std::size_t i = 0; i < length; ++i) {
    const toml::node& e = *a->get(i);
    if (!e.is_number())
      fail(key, fmt::format("element {} must be a number, not {}", i, type_name(e)));
    out[i] =
        e.is_integer() ? static_cast<double>(e.as_integer()->get()) : e.as_floating_point()->get();
    if (!std::isfinite(out[i])) fail(key, fmt::format("element {} must be finite", i));
  }
  return out;
}

Vec3 TomlReader::vec3(std::string_view key) const {
  const auto v = numbers(key, 3);
  return Vec3(v[0], v[1], v[2]);
}

Vec3 TomlReader::vec3(std::string_view key, const Vec3& fallback) const {
  return get(key) ? vec3(key) : fallback;
}

Quat TomlReader::unit_quaternion(std::string_view key, const Quat& fallback) const {
  if (!get(key)) return fallback;
  const auto q = numbers(key, 4);
  Quat out(q[0], q[1], q[2], q[3]);
  if (std::abs(out.norm() - 1.0) > 1e-3)
    fail(key, "must be a unit quaternion [w, x, y, z] (|q| within 1e-3 of 1)");
  out.normalize();
  return out;
}

std::vector<std::string> TomlReader::strings(std::string_view key) const {
  const toml::node* n = get(key);
  if (!n) fail(key, "required key is missing");
  const toml::array* a = n->as_array();
  if (!a) fail(key, fmt::format("expected an array of strings, got {}", type_name(*n)));
  std::vector<std::string> out;
  for (std::size_t i = 0; i < a->size(); ++i) {
    const toml::node& e = *a->get(i);
    if (!e.is_string())
      fail(key, fmt::format("element {} must be a string, not {}", i, type_name(e)));
    out.push_back(e.as_string()->get());
  }
  return out;
}

std::vector<Vec3> TomlReader::vec3_list(std::string_view key) const {
  const toml::node* n = get(key);
  if (!n) fail(key, "required key is missing");
  const toml::array* a = n->as_array();
  if (!a) fail(key, fmt::format("expected an array of [x, y, z] arrays, got {}", type_name(*n)));
  if (a->empty()) fail(key, "must not be empty");
  std::vector<Vec3> out(a->size());
  for (std::size_t i = 0; i < a->size(); ++i) {
    const toml::node& e = *a->get(i);
    const toml::array* xyz = e.as_array();
    if (!xyz || xyz->size() != 3)
      fail(key,
           fmt::format("element {} must be an array of 3 numbers, not {}", i, toml_value_text(e)));
    for (std::size_t c = 0; c < 3; ++c) {
      const toml::node& x = *xyz->get(c);
      if (!x.is_number())
        fail(key, fmt::format("element {} {} must hold numbers only", i, toml_value_text(e)));
      out[i][c] = x.is_integer() ? static_cast<double>(x.as_integer()->get())
                                 : x.as_floating_point()->get();
      if (!std::isfinite(out[i][c]))
        fail(key, fmt::format("element {} {} must hold finite numbers", i, toml_value_text(e)));
    }
  }
  return out;
}

std::optional<TomlReader> TomlReader::table(std::string_view key) const {
  const toml::node* n = get(key);
  if (!n) return std::nullopt;
  if (!n->is_table()) fail(key, fmt::format("expected a table, got {}", type_name(*n)));
  return TomlReader(*source_, *n->as_table(), key_path(key));
}

std::vector<TomlReader> TomlReader::tables(std::string_view key) const {
  std::vector<TomlReader> out;
  const toml::node* n = get(key);
  if (!n) return out;
  const toml::array* a = n->as_array();
  if (!a || !a->is_array_of_tables())
    fail(key, fmt::format("expected an array of tables ([[{}]]), got {}", key, type_name(*n)));
  for (std::size_t i = 0; i < a->size(); ++i)
    out.emplace_back(*source_, *a->get(i)->as_table(), fmt::format("{}[{}]", key_path(key), i));
  return out;
}

toml::table parse_toml_file(const std::string& file) {
  // Only a regular file of sane size: a directory would read as empty, /dev/zero never ends.
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::file_type type = fs::status(file, ec).type();
  auto refuse = [&](std::string_view why) {
    throw ScenarioError(input_message(file, 0, "file", why));
  };
  if (type == fs::file_type::directory) refuse("is a directory, not a scenario file");
  if (type != fs::file_type::regular && type != fs::file_type::not_found)
    refuse("is not a regular file (a device, FIFO or socket is never read as a scenario)");
  constexpr std::uintmax_t kMaxBytes = std::uintmax_t{64} << 20;
  if (type == fs::file_type::regular && fs::file_size(file, ec) > kMaxBytes)
    refuse(fmt::format("larger than the {} bytes a scenario file may have", kMaxBytes));
  std::ifstream in(file, std::ios::binary);
  if (!in) throw ScenarioError(input_message(file, 0, "file", "cannot open the scenario file"));
  std::stringstream buffer;
  buffer << in.rdbuf();
  if (in.bad()) throw ScenarioError(input_message(file, 0, "file", "cannot read the file"));
  return parse_toml_text(buffer.str(), file);
}

toml::table parse_toml_text(const std::string& text, const std::string& file) {
  try {
    return toml::parse(text, file);
  } catch (const toml::parse_error& e) {
    const auto& b = e.source().begin;
    throw ScenarioError(input_message(
        file, static_cast<int>(b.line), "syntax",
        fmt::format("TOML syntax error at column {}: {}", b.column, trim(e.description()))));
  }
}

std::string apply_override(toml::table& root, const std::string& spec, const std::string& file) {
  const auto eq = spec.find('=');
  if (eq == std::string::npos)
    throw ScenarioError(input_message(file, 0, "--set", "expected KEY=VALUE", spec));
  const std::string key = trim(std::string_view(spec).substr(0, eq));
  const std::string text = trim(std::string_view(spec).substr(eq + 1));
  auto bad = [&](std::string_view msg) {
    throw ScenarioError(input_message(file, 0, "--set " + key, msg, text));
  };
  if (key.empty()) bad("empty key");
  // The value as TOML; anything that does not parse as one value is a bare string.
  toml::table parsed;
  bool as_toml = false;
  try {
    parsed = toml::parse(std::string_view(std::string("v = ") + text), std::string_view("--set"));
    as_toml = parsed.size() == 1 && parsed.contains("v");
  } catch (const toml::parse_error&) {
  }
  // Walk (and create) the tables of the key path a.b[2].c.
  std::vector<std::string> parts;
  for (std::size_t s = 0; s <= key.size();) {
    const auto d = key.find('.', s);
    parts.push_back(key.substr(s, d == std::string::npos ? std::string::npos : d - s));
    if (d == std::string::npos) break;
    s = d + 1;
  }
  toml::table* t = &root;
  for (std::size_t p = 0; p < parts.size(); ++p) {
    std::string name = parts[p];
    long index = -1;  // -1: no index (a given index must be >= 0)
    if (const auto lb = name.find('['); lb != std::string::npos) {
      if (name.back() != ']') bad("malformed index in key");
      const std::string digits = name.substr(lb + 1, name.size() - lb - 2);
      try {
        std::size_t used = 0;
        index = std::stol(digits, &used);
        if (used != digits.size()) bad("malformed index in key");
      } catch (const std::exception&) {
        bad("malformed index in key");
      }
      if (index < 0)
        bad(fmt::format("index {} of '{}' is negative (tables count from 0)", digits,
                        name.substr(0, lb)));
      name = name.substr(0, lb);
    }
    if (name.empty()) bad("empty key segment");
    const bool last = p + 1 == parts.size();
    if (last && index < 0) {
      if (as_toml)
        parsed.get("v")->visit([&](const auto& v) { t->insert_or_assign(name, v); });
      else
        t->insert_or_assign(name, text);
      break;
    }
    toml::node* n = t->get(name);
    if (index >= 0) {
      toml::array* a = n ? n->as_array() : nullptr;
      if (!a || index >= static_cast<long>(a->size()) || !a->get(index)->is_table())
        bad(fmt::format("no table {}[{}] in the scenario", name, index));
      if (last) bad("the key names a table, not a value");
      t = a->get(index)->as_table();
      continue;
    }
    if (!n) n = &t->insert_or_assign(name, toml::table{}).first->second;
    if (!n->is_table()) bad(fmt::format("'{}' is not a table", name));
    t = n->as_table();
  }
  return key;
}

}  // namespace etdem
