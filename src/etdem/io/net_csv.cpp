#include "etdem/io/net_csv.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <string>

#include <fmt/format.h>

#include "etdem/io/scenario_error.hpp"
#include "etdem/world/world.hpp"

namespace etdem {

namespace {

constexpr const char* kHeader =
    "time,max_sag,max_strain,broken_links,clamp_fx,clamp_fy,clamp_fz,clamp_force,"
    "mass_upstream,mass_downstream\n";

/// The header and the rows of an earlier file up to time t (a resumed run continues from there;
/// rows written after its checkpoint go).
std::string rows_until(const std::string& path, double t) {
  std::string kept = kHeader;
  std::FILE* f = std::fopen(path.c_str(), "r");
  if (!f) throw InputError(path + ": --resume: the net's file of the earlier run is missing");
  char line[1024];
  bool header = true;
  while (std::fgets(line, sizeof line, f)) {
    if (header) {
      header = false;
      continue;
    }
    if (std::strtod(line, nullptr) > t * (1.0 + 1e-12)) break;
    kept += line;
  }
  std::fclose(f);
  return kept;
}

}  // namespace

NetCsvWriter::NetCsvWriter(const std::string& directory, const World& world, double resume_time) {
  node_.assign(world.bodies.count(), 0);
  for (const Net& n : world.nets) {
    for (int i : n.nodes) node_[i] = 1;
    const std::string path = directory + "/net_" + n.name + ".csv";
    const std::string start = resume_time >= 0.0 ? rows_until(path, resume_time) : kHeader;
    std::FILE* f = std::fopen(path.c_str(), "w");
    if (!f) throw InputError(path + ": cannot open for writing");
    std::fputs(start.c_str(), f);
    files_.push_back(f);
  }
}

void NetCsvWriter::flush() {
  for (std::FILE* f : files_) std::fflush(f);
}

NetCsvWriter::~NetCsvWriter() {
  for (std::FILE* f : files_) std::fclose(f);
}

void NetCsvWriter::write(const World& world) {
  const Bodies& b = world.bodies;
  for (std::size_t k = 0; k < files_.size(); ++k) {
    const Net& n = world.nets[k];
    // Sag: the largest displacement of a node along the net's normal (either way) since the
    // start. Masses: the grains (not nodes) on either side of the net's starting plane.
    double sag = 0.0;
    for (std::size_t j = 0; j < n.nodes.size(); ++j)
      sag = std::max(sag, std::abs((b.position[n.nodes[j]] - n.start[j]).dot(n.normal)));
    double up = 0.0, down = 0.0;
    for (int i = 0; i < b.count(); ++i) {
      if (!b.is_dynamic(i) || node_[i]) continue;
      ((b.position[i] - n.start[0]).dot(n.normal) < 0.0 ? up : down) += b.mass[i];
    }
    const Vec3& f = n.clamp_force;
    fmt::print(files_[k], "{:.9g},{:.9g},{:.9g},{},{:.9g},{:.9g},{:.9g},{:.9g},{:.9g},{:.9g}\n",
               world.time(), sag, n.max_strain, n.broken_links, f.x(), f.y(), f.z(), f.norm(), up,
               down);
  }
}

}  // namespace etdem
