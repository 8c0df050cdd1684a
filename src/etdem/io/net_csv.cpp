#include "etdem/io/net_csv.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <string>
#include <string_view>

#include <fmt/format.h>

#include "etdem/io/scenario_error.hpp"
#include "etdem/world/world.hpp"

namespace etdem {

namespace {

constexpr std::string_view kHeader =
    "time,max_sag,max_strain,broken_links,clamp_fx,clamp_fy,clamp_fz,clamp_force,"
    "mass_upstream,mass_downstream\n";

/// Opens the file of a net: anew with its header, or (resuming) cut back to `keep` bytes.
std::FILE* open_net_file(const std::string& path, const std::uint64_t* keep) {
  if (keep) {
    std::error_code ec;
    const std::uintmax_t size = std::filesystem::file_size(path, ec);
    if (ec || size < *keep)
      throw InputError(
          fmt::format("{}: --resume: {} bytes, the checkpoint's run had written {}: another run",
                      path, ec ? 0 : size, *keep));
    std::filesystem::resize_file(path, *keep, ec);
    if (ec)
      throw InputError(path + ": cannot be shortened to the checkpoint's rows: " + ec.message());
  }
  std::FILE* f = std::fopen(path.c_str(), keep ? "a" : "w");
  if (!f) throw InputError(path + ": cannot open for writing");
  if (!keep) std::fwrite(kHeader.data(), 1, kHeader.size(), f);
  return f;
}

}  // namespace

NetCsvWriter::NetCsvWriter(const std::string& directory, const World& world,
                           const std::vector<std::uint64_t>* resume_bytes) {
  if (resume_bytes && resume_bytes->size() != world.nets.size())
    throw InputError(fmt::format("{}: --resume: the checkpoint has {} net files, the scenario {}",
                                 directory, resume_bytes->size(), world.nets.size()));
  node_.assign(world.bodies.count(), 0);
  try {
    for (std::size_t k = 0; k < world.nets.size(); ++k) {
      const Net& n = world.nets[k];
      for (int i : n.nodes) node_[i] = 1;
      const std::uint64_t* keep = resume_bytes ? &(*resume_bytes)[k] : nullptr;
      files_.push_back(open_net_file(directory + "/net_" + n.name + ".csv", keep));
      bytes_.push_back(keep ? *keep : kHeader.size());
    }
  } catch (...) {
    for (std::FILE* f : files_) std::fclose(f);
    throw;
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
    const std::string row = fmt::format(
        "{:.9g},{:.9g},{:.9g},{},{:.9g},{:.9g},{:.9g},{:.9g},{:.9g},{:.9g}\n", world.time(), sag,
        n.max_strain, n.broken_links, f.x(), f.y(), f.z(), f.norm(), up, down);
    std::fwrite(row.data(), 1, row.size(), files_[k]);
    bytes_[k] += row.size();
  }
}

}  // namespace etdem
