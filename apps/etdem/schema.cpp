// `etdem schema [--markdown | --update FILE.md]`: the settings every scenario may set
// (io/settings_schema.hpp), one line each as `--set` takes them, or the generated tables of
// docs/scenario.md, printed or rewritten in a file.
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <variant>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "commands.hpp"
#include "etdem/io/scenario_error.hpp"
#include "etdem/io/settings_schema.hpp"

namespace etdem::cli {
namespace {

/// One line per setting, as `--set` takes it: "simulation.etm.lambda = 30  (integer, [1, 1e6])".
template <class T>
void print_keys(const SettingTable<T>& table, std::string_view prefix) {
  const T defaults{};
  for (const Setting<T>& s : table.settings) {
    std::string valid = s.range.text();
    if (!s.choices.empty()) valid = fmt::format("{}", fmt::join(s.choices, ", "));
    if (!s.note.empty()) valid += (valid.empty() ? "" : ", ") + std::string(s.note);
    const std::string def = s.required ? std::string("required") : [&] {
      return std::visit(
          [](const auto& v) -> std::string {
            using V = std::decay_t<decltype(v)>;
            if constexpr (std::is_same_v<V, Vec3>)
              return fmt::format("[{}, {}, {}]", v.x(), v.y(), v.z());
            else if constexpr (std::is_same_v<V, std::string>)
              return fmt::format("\"{}\"", v);
            else
              return fmt::format("{}", v);
          },
          s.get(defaults));
    }();
    fmt::print("{}.{} = {}{}{}\n", prefix, s.key, def,
               s.unit.empty() ? "" : fmt::format(" [{}]", s.unit),
               valid.empty() ? "" : fmt::format("  ({})", valid));
  }
}

}  // namespace

int schema(bool markdown, const std::string& update) {
  if (!update.empty()) {
    std::ifstream in(update, std::ios::binary);
    if (!in) throw InputError(update + ": cannot be read");
    std::stringstream text;
    text << in.rdbuf();
    std::string updated;
    try {
      updated = update_schema_blocks(text.str());
    } catch (const std::invalid_argument& e) {
      throw InputError(fmt::format("{}: {}", update, e.what()));
    }
    if (updated == text.str()) {
      fmt::print("{}: up to date\n", update);
      return kExitOk;
    }
    std::ofstream out(update, std::ios::binary);
    out << updated;
    if (!out) throw InputError(update + ": cannot be written");
    fmt::print("{}: generated tables rewritten\n", update);
    return kExitOk;
  }
  if (markdown) {
    for (const std::string& name : schema_names())
      fmt::print("<!-- schema {} -->\n{}<!-- end schema -->\n\n", name, schema_markdown(name));
    return kExitOk;
  }
  for (const SettingTable<Scenario>& t : simulation_schema()) print_keys(t, t.name);
  print_keys(material_schema(), "material[N]");
  print_keys(output_schema(), "output");
  return kExitOk;
}

}  // namespace etdem::cli
