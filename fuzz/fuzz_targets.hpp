// The fuzzed entry points, one per input the project reads from users: the scenario loader (TOML
// text), the --set override parser, and each mesh reader (with the content sniffer in front).
// Each returns normally for any input: errors of the input are exceptions that are caught here;
// anything else (a crash, a sanitizer report, a hang) is a finding. Shared by the libFuzzer
// targets (fuzz_*.cpp) and by tests/io/test_fuzz_regressions.cpp, which replays the seeds and the
// inputs under tests/fuzz_regressions/.
#pragma once

#include <cstddef>
#include <cstdint>
#include <exception>
#include <string>
#include <string_view>
#include <vector>

#include "etdem/io/mesh_format.hpp"
#include "etdem/io/mesh_import.hpp"
#include "etdem/io/scenario.hpp"
#include "etdem/io/tet_mesh_import.hpp"
#include "etdem/shapes/tet_merge.hpp"

namespace etdem::fuzz {

inline std::string_view as_text(const std::uint8_t* data, std::size_t size) {
  return {reinterpret_cast<const char*>(data), size};
}

/// Inputs larger than this are skipped: the readers' cost grows with the size by design.
constexpr std::size_t kMaxInput = 1 << 20;

/// The scenario loader on TOML text (files it names are resolved next to "fuzz.toml", i.e. in
/// the working directory; read_mesh_file refuses anything but small regular files).
inline void scenario(const std::uint8_t* data, std::size_t size) {
  if (size > kMaxInput) return;
  try {
    (void)parse_scenario(std::string(as_text(data, size)), "fuzz.toml");
  } catch (const std::exception&) {
  }
}

/// --set overrides (one per line) applied to a small valid scenario, which is then loaded.
inline void set_override(const std::uint8_t* data, std::size_t size) {
  if (size > 4096) return;
  static const std::string kBase =
      "[simulation]\ndt = 0.001\nduration = 0.01\nsolver = \"etm\"\n\n[[material]]\nname = "
      "\"m\"\ndensity = 1000.0\nrestitution = 0.5\nfriction = 0.3\n\n[[shape]]\nname = "
      "\"ball\"\ntype = \"sphere\"\nradius = 0.01\n\n[[body]]\nname = \"b\"\nshape = "
      "\"ball\"\nmaterial = \"m\"\nposition = [0.0, 0.0, 0.1]\n\n[[wall]]\nname = "
      "\"floor\"\ntype = \"plane\"\npoint = [0.0, 0.0, 0.0]\nnormal = [0.0, 0.0, 1.0]\n"
      "material = \"m\"\n";
  std::vector<std::string> sets;
  std::string_view text = as_text(data, size);
  while (!text.empty() && sets.size() < 8) {
    const std::size_t eol = text.find('\n');
    sets.emplace_back(text.substr(0, eol));
    text = eol == std::string_view::npos ? std::string_view() : text.substr(eol + 1);
  }
  try {
    (void)parse_scenario(kBase, "base.toml", sets);
  } catch (const std::exception&) {
  }
}

inline void sniff(std::string_view bytes) {
  try {
    (void)sniff_mesh_format(bytes);
  } catch (const std::invalid_argument&) {
  }
}

inline void surface(const std::uint8_t* data, std::size_t size, MeshFormat format) {
  if (size > kMaxInput) return;
  const std::string_view bytes = as_text(data, size);
  sniff(bytes);
  try {
    (void)parse_surface_mesh(bytes, format);
  } catch (const std::invalid_argument&) {
  }
}

inline void stl(const std::uint8_t* data, std::size_t size) {
  surface(data, size, MeshFormat::StlAscii);
  surface(data, size, MeshFormat::StlBinary);
}

inline void obj(const std::uint8_t* data, std::size_t size) {
  surface(data, size, MeshFormat::Obj);
}

inline void volume(const std::uint8_t* data, std::size_t size, MeshFormat format) {
  if (size > kMaxInput) return;
  const std::string_view bytes = as_text(data, size);
  sniff(bytes);
  try {
    const TetMesh m = parse_volume_mesh(bytes, format);
    check_tet_mesh(m);
  } catch (const std::invalid_argument&) {
  }
}

inline void msh(const std::uint8_t* data, std::size_t size) {
  volume(data, size, MeshFormat::Msh);
}

inline void vtk(const std::uint8_t* data, std::size_t size) {
  volume(data, size, MeshFormat::Vtk);
}

}  // namespace etdem::fuzz
