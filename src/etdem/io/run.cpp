#include "etdem/io/run.hpp"

#include <omp.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <map>
#include <optional>

#include <fmt/format.h>

#include "etdem/io/energy_csv.hpp"
#include "etdem/io/net_csv.hpp"
#include "etdem/io/output_check.hpp"
#include "etdem/io/progress.hpp"
#include "etdem/io/shape_nodes.hpp"
#include "etdem/io/state_csv.hpp"
#include "etdem/io/summary_json.hpp"
#include "etdem/io/vtk_writer.hpp"
#include "etdem/world/world.hpp"

namespace etdem {
namespace fs = std::filesystem;
namespace {

/// Removes output files of an earlier run that this run might not overwrite.
void remove_stale_outputs(const fs::path& dir) {
  std::error_code ec;
  if (fs::is_directory(dir / "frames", ec))
    for (const auto& e : fs::directory_iterator(dir / "frames", ec))
      if (is_vtk_frame_file(e.path().filename().string())) fs::remove(e.path(), ec);
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    const std::string name = e.path().filename().string();
    if ((name.starts_with("state_") || name.starts_with("net_")) && e.path().extension() == ".csv")
      fs::remove(e.path(), ec);
  }
  fs::remove(dir / "particles.pvd", ec);
  fs::remove(dir / "view.pvsm", ec);  // etdem view's state of the earlier frames
  for (const char* name :
       {"repose.json", "repose_series.csv", "mound.json", "mound_profile.csv", "runout.json",
        "runout_map.csv", "energy.png", "repose.png", "mound.png", "runout.png"})
    fs::remove(dir / name, ec);
}

}  // namespace

VtkEncoding vtk_encoding(const OutputSettings& output) {
  return {.binary = output.vtk_format == OutputSettings::VtkFormat::Binary,
          .zlib = output.vtk_compression == OutputSettings::VtkCompression::Zlib};
}

std::vector<WallQuad> wall_quads(const Scenario& sc, const std::vector<BodyOrigin>& origin) {
  std::vector<WallQuad> out;
  for (std::size_t i = 0; i < origin.size(); ++i) {
    const BodyOrigin& o = origin[i];
    if (o.kind != BodyOrigin::Kind::Wall) continue;
    const WallSpec& w = sc.walls[o.index];
    WallQuad q;
    q.body = static_cast<int>(i);
    if (w.type == WallSpec::Type::Box) {
      const BoxPlane p = box_planes(w)[o.item];
      q.corners = p.quad;
      q.normal = p.normal;
      q.floor = o.item == 0;  // box_planes order: the floor first
    } else if (w.type == WallSpec::Type::Plane) {
      q.corners = {w.point, w.point, w.point, w.point};
      q.normal = w.normal;
      q.floor = true;
    } else {
      continue;  // meshes are drawn as meshes
    }
    out.push_back(q);
  }
  return out;
}

std::string output_directory(const Scenario& sc, const std::string& requested) {
  if (!requested.empty()) return requested;
  if (!sc.output.directory.empty()) return sc.output.directory;
  return (fs::path("out") / sc.stem).string();
}

RunResult run_scenario(const Scenario& sc, const RunOptions& options) {
  // Built first: a scenario whose initial state is rejected leaves no output directory.
  World world;
  const std::vector<BodyOrigin> origin = build_world(sc, world);
  RunResult result;
  result.directory = output_directory(sc, options.directory);
  const fs::path dir(result.directory);
  const bool frames = sc.output.every > 0 && sc.output.vtk;
  check_output_files(result.directory,
                     {"shapes.json", "energy.csv", "summary.json", "state.csv", "particles.pvd"});
  std::error_code ec;
  fs::create_directories(frames ? dir / "frames" : dir, ec);
  if (ec || !fs::is_directory(dir))
    throw InputError(fmt::format("{}: cannot create the output directory ({})", dir.string(),
                                 ec ? ec.message() : "not a directory"));
  remove_stale_outputs(dir);

  RunInfo info;
  // The thread count the run will use (`--threads`, [simulation] threads), as the world sets it
  // when it initialises.
  info.threads = world.settings.threads > 0 ? world.settings.threads : omp_get_max_threads();

  write_shapes_json((dir / "shapes.json").string(), world.shapes);
  EnergyCsvWriter energy((dir / "energy.csv").string());
  try {
    world.initialize();  // checks the initial state: a failure still leaves a summary
  } catch (const std::exception& e) {
    result.summary = make_summary(sc, world, {.status = fmt::format("failed: {}", e.what())});
    write_json((dir / "summary.json").string(), result.summary);
    throw;
  }
  energy.write(world.time(), world.ledger());
  NetCsvWriter nets(dir.string(), world);
  nets.write(world);
  std::optional<VtkWriter> vtk;
  if (frames) {
    vtk.emplace(dir.string(), wall_quads(sc, origin), vtk_encoding(sc.output));
    vtk->write_frame(world);
  }
  const long n = sc.steps();
  const auto t0 = std::chrono::steady_clock::now();
  auto finish = [&](const std::string& status) {
    info.wall_seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    info.status = status;
    energy.flush();
    if (vtk) {
      vtk->write_pvd();
      info.frames = vtk->frames();
    }
    result.summary = make_summary(sc, world, info);
    write_json((dir / "summary.json").string(), result.summary);
  };
  Progress progress(n, options.progress);
  try {
    for (long s = 1; s <= n; ++s) {
      world.step();
      if (s % sc.output.energy_every == 0 || s == n) {
        energy.write(world.time(), world.ledger());
        nets.write(world);
      }
      info.max_relative_residual =
          std::max(info.max_relative_residual, relative_residual(world.ledger()));
      if (vtk && (s % sc.output.every == 0 || s == n)) {
        const auto f0 = std::chrono::steady_clock::now();
        vtk->write_frame(world);
        info.frame_seconds +=
            std::chrono::duration<double>(std::chrono::steady_clock::now() - f0).count();
      }
      if (sc.output.state_every > 0 && s % sc.output.state_every == 0)
        write_state_csv((dir / fmt::format("state_{:06d}.csv", s)).string(), world);
      progress.update(s, world.time());
    }
  } catch (const std::exception& e) {
    progress.finish();
    finish(fmt::format("failed: {}", e.what()));
    throw;
  }
  progress.finish();
  write_state_csv((dir / "state.csv").string(), world);
  finish("completed");
  result.steps = world.step_count();
  result.wall_seconds = info.wall_seconds;
  result.ledger = world.ledger();
  result.max_relative_residual = info.max_relative_residual;
  result.frames = info.frames;
  return result;
}

}  // namespace etdem
