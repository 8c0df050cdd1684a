#include "etdem/io/run.hpp"

#include <omp.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <map>
#include <optional>

#include <unistd.h>

#include <fmt/format.h>

#include "etdem/core/byte_stream.hpp"
#include "etdem/core/stage_profile.hpp"
#include "etdem/distributed/decomposed_world.hpp"
#include "etdem/io/checkpoint.hpp"
#include "etdem/io/energy_csv.hpp"
#include "etdem/io/net_csv.hpp"
#include "etdem/io/output_check.hpp"
#include "etdem/io/progress.hpp"
#include "etdem/io/scenario.hpp"
#include "etdem/io/shape_nodes.hpp"
#include "etdem/io/state_csv.hpp"
#include "etdem/io/summary_json.hpp"
#include "etdem/io/vtk_writer.hpp"
#include "etdem/world/world.hpp"

namespace etdem {
namespace fs = std::filesystem;
namespace {

/// Removes output files of an earlier run that this run might not overwrite. A resumed run
/// keeps its frames and snapshots (it continues them) and removes only what the analyses made.
void remove_stale_outputs(const fs::path& dir, bool resuming) {
  std::error_code ec;
  fs::remove(dir / "view.pvsm", ec);  // etdem view's state of the earlier frames
  for (const char* name :
       {"repose.json", "repose_series.csv", "mound.json", "mound_profile.csv", "runout.json",
        "runout_map.csv", "energy.png", "repose.png", "mound.png", "runout.png"})
    fs::remove(dir / name, ec);
  if (resuming) return;
  if (fs::is_directory(dir / "frames", ec))
    for (const auto& e : fs::directory_iterator(dir / "frames", ec))
      if (is_vtk_frame_file(e.path().filename().string())) fs::remove(e.path(), ec);
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    const std::string name = e.path().filename().string();
    if ((name.starts_with("state_") || name.starts_with("net_")) && e.path().extension() == ".csv")
      fs::remove(e.path(), ec);
  }
  fs::remove(dir / "particles.pvd", ec);
}

/// Per shape, the [[net]] whose nodes have it (shapes.json marks them so the deposit analyses
/// leave the nets out); empty for grain shapes.
std::vector<std::string> net_shapes(const World& world) {
  std::vector<std::string> out(world.shapes.size());
  for (const Net& n : world.nets)
    for (int id : n.nodes) out[world.bodies.shape[id]] = n.name;
  return out;
}

/// The checkpoint directory DIR/checkpoints, created and found writable before the run starts.
std::string checkpoint_directory(const fs::path& dir) {
  const fs::path cdir = dir / "checkpoints";
  std::error_code ec;
  fs::create_directories(cdir, ec);
  if (ec || !fs::is_directory(cdir) || ::access(cdir.c_str(), W_OK) != 0)
    throw InputError(fmt::format("{}: output.checkpoint_every: cannot write checkpoints there ({})",
                                 cdir.string(), ec ? ec.message() : "not a writable directory"));
  return cdir.string();
}

/// The run's own part of a checkpoint: what its output files hold so far.
struct RunCheckpoint {
  double max_relative_residual = 0.0;
  double frame_seconds = 0.0;
  std::uint64_t energy_bytes = 0;
  std::uint32_t energy_crc = 0;
  std::vector<std::uint64_t> net_bytes;  // per net: its net_NAME.csv's length
};

std::vector<CheckpointSection> run_checkpoint_sections(const RunCheckpoint& run,
                                                       const VtkWriter* vtk) {
  // THE list of the run's sections (beside the world's, world/world_checkpoint.cpp).
  std::vector<CheckpointSection> out;
  ByteWriter w;
  w.put(run.max_relative_residual), w.put(run.frame_seconds), w.put(run.energy_bytes);
  w.put(run.energy_crc), w.put(run.net_bytes);
  out.push_back({"run", w.take()});
  if (vtk) {
    ByteWriter f;
    vtk->save(f);
    out.push_back({"frames", f.take()});
  }
  return out;
}

template <class Load>
void load_run_section(const Checkpoint& ck, const std::string& name, Load load) {
  ByteReader r(ck.section(name).bytes);
  try {
    load(r);
    if (!r.done()) throw ByteStreamError("longer than this etdem writes it");
  } catch (const ByteStreamError& e) {
    throw InputError(fmt::format("{}: --resume: section '{}': {}", ck.path, name, e.what()));
  } catch (const std::invalid_argument& e) {
    throw InputError(fmt::format("{}: --resume: section '{}': {}", ck.path, name, e.what()));
  }
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

namespace {

/// What the run loop steps: the world itself, or this rank's part of it in a run split over
/// ranks (docs/distributed.md). Every rank of a split run makes the same calls; rank 0 writes
/// every file from its `world`, which sync() fills with the whole world's state first.
class Stepper {
 public:
  Stepper(World& world, distributed::Transport* transport, const std::string& file)
      : world_(world), t_(transport) {
    if (!t_) return;
    try {
      split_.emplace(world, *t_);
    } catch (const std::invalid_argument& e) {  // a feature not carried yet: the same everywhere
      throw InputError(fmt::format("{}: {}", file, e.what()));
    }
  }
  void step() { split_ ? split_->step() : world_.step(); }
  double time() const { return split_ ? split_->time() : world_.time(); }
  long step_count() const { return split_ ? split_->step_count() : world_.step_count(); }
  const EnergyLedger& ledger() const { return split_ ? split_->ledger() : world_.ledger(); }
  /// Collective: the whole world's state into `world` on the writing rank (with the warm start
  /// for a checkpoint).
  void sync(bool checkpoint = false) {
    if (split_) split_->gather(world_, checkpoint);
  }
  /// A split run reads `flag` at every step's ledger reduction (DecomposedWorld::watch_stop).
  void watch_stop(const volatile std::sig_atomic_t* flag) {
    if (split_) split_->watch_stop(flag);
  }
  /// True on every rank when any rank was asked to stop. A split run learnt it from the step's
  /// own reduction (a flag set after it is seen after the next step).
  bool stop(bool here) { return split_ ? split_->take_stop() : here; }
  /// What the split moved, summed over the ranks (the scaling model's inputs, bench/); collective.
  nlohmann::json ranks_summary() {
    if (!split_) return nullptr;
    const distributed::DecomposedStats& st = split_->stats();
    const distributed::TransportCounters& tc = t_->counters();
    std::int64_t sums[] = {st.owned,
                           st.ghosts,
                           st.islands_hosted,
                           st.islands_spanning,
                           st.migrated,
                           tc.exchanges,
                           tc.messages,
                           tc.bytes,
                           st.label_rounds,
                           st.rebalances,
                           tc.reductions,
                           st.islands_shared,
                           st.groups_shared,
                           st.islands_shared_direct,
                           tc.collects,
                           st.rebalances_by_time,
                           st.contacts_kept_local,
                           st.islands_sent_whole,
                           st.grains_sent_slim,
                           st.refreshed_in_place,
                           st.shared_row_updates,
                           st.collisions_kept_local,
                           st.islands_offloaded};
    t_->sum(std::span<std::int64_t>(sums));
    // How evenly the ranks were loaded: the largest rank over the mean of the grain-steps it
    // owned, the contact points it detected, its busy time (its phases' wall time less what
    // it spent in collectives, waits included), and the row updates it made in the piles the
    // ranks solved together (their resting pass's sweeps split by blocks).
    const double busy = std::max(split_->profile().total() - tc.seconds, 0.0);
    std::array<double, 6> most{static_cast<double>(st.owned),
                               static_cast<double>(st.contacts),
                               busy,
                               tc.seconds,
                               static_cast<double>(st.most_ranks_spanned),
                               static_cast<double>(st.shared_row_updates)};
    t_->max(std::span<double>(most));
    const double contacts = static_cast<double>(t_->sum(st.contacts));
    auto summed = [&](double x) {
      ExactSum part;
      part += x;
      return t_->sum(part).value();
    };
    const double busy_sum = summed(busy), wait_sum = summed(tc.seconds);
    const double ranks = t_->size();
    auto ratio = [&](double top, double sum) { return sum > 0.0 ? top / (sum / ranks) : 1.0; };
    // Each stage's seconds (core/stage_profile.hpp): the largest rank's and the mean (summed in
    // whole nanoseconds, exactly).
    // Of those, the seconds in the transport's calls (waits included) likewise, and the bytes
    // each stage sent, summed over the ranks.
    const StageProfile& here = split_->stages();
    constexpr int kStages = StageProfile::kStages;
    std::array<double, 2 * kStages> stage_most{};
    std::array<std::int64_t, 3 * kStages> stage_ns{};
    for (int k = 0; k < kStages; ++k) {
      stage_most[k] = here.seconds[k];
      stage_most[kStages + k] = here.transferring[k];
      stage_ns[k] = std::llround(here.seconds[k] * 1e9);
      stage_ns[kStages + k] = std::llround(here.transferring[k] * 1e9);
      stage_ns[2 * kStages + k] = here.sent[k];
    }
    // And each step phase's seconds (waits included; StepProfile), the largest rank's and the
    // mean: how evenly each stretch between two collectives was shared.
    const StepProfile& phases = split_->profile();
    constexpr int kPhases = StepProfile::kPhases;
    std::array<double, kPhases> phase_most{};
    std::array<std::int64_t, kPhases> phase_ns{};
    for (int k = 0; k < kPhases; ++k) {
      phase_most[k] = phases.seconds[k];
      phase_ns[k] = std::llround(phases.seconds[k] * 1e9);
    }
    t_->max(std::span<double>(stage_most));
    t_->sum(std::span<std::int64_t>(stage_ns));
    t_->max(std::span<double>(phase_most));
    t_->sum(std::span<std::int64_t>(phase_ns));
    nlohmann::json phase_max = nlohmann::json::object(), phase_mean = nlohmann::json::object();
    for (int k = 0; k < kPhases; ++k) {
      phase_max[StepProfile::kNames[k]] = phase_most[k];
      phase_mean[StepProfile::kNames[k]] = 1e-9 * static_cast<double>(phase_ns[k]) / ranks;
    }
    nlohmann::json stage_max = nlohmann::json::object(), stage_mean = nlohmann::json::object(),
                   transfer_max = nlohmann::json::object(),
                   transfer_mean = nlohmann::json::object(), bytes = nlohmann::json::object();
    for (int k = 0; k < kStages; ++k) {
      const char* name = StageProfile::kNames[k];
      stage_max[name] = stage_most[k];
      stage_mean[name] = 1e-9 * static_cast<double>(stage_ns[k]) / ranks;
      transfer_max[name] = stage_most[kStages + k];
      transfer_mean[name] = 1e-9 * static_cast<double>(stage_ns[kStages + k]) / ranks;
      bytes[name] = stage_ns[2 * kStages + k];
    }
    return {{"count", t_->size()},
            {"owned_grain_steps", sums[0]},
            {"ghost_grain_steps", sums[1]},
            {"islands", sums[2]},
            {"islands_spanning_ranks", sums[3]},
            {"islands_shared", sums[11]},
            {"islands_shared_direct", sums[13]},
            {"contacts_kept_local", sums[16]},
            {"collisions_kept_local", sums[21]},
            {"grains_sent_slim", sums[18]},
            {"islands_sent_whole", sums[17]},
            {"islands_offloaded", sums[22]},
            {"collision_groups_shared", sums[12]},
            {"most_ranks_one_island_spanned", static_cast<long>(most[4])},
            {"migrations", sums[4]},
            {"exchanges_per_rank", sums[5] / t_->size()},
            {"worlds_refreshed_in_place_per_rank", sums[19] / t_->size()},
            {"shared_row_updates", sums[20]},
            {"collects_per_rank", sums[14] / t_->size()},
            {"messages", sums[6]},
            {"bytes", sums[7]},
            {"label_rounds_per_rank", sums[8] / t_->size()},
            {"rebalances", sums[9] / t_->size()},
            {"rebalances_by_time", sums[15] / t_->size()},
            {"reductions_per_rank", sums[10] / t_->size()},
            {"contacts_detected", static_cast<long>(contacts)},
            {"busy_seconds_mean", busy_sum / ranks},
            {"busy_seconds_max", most[2]},
            {"collective_seconds_mean", wait_sum / ranks},
            {"collective_seconds_max", most[3]},
            {"phase_seconds_max", std::move(phase_max)},
            {"phase_seconds_mean", std::move(phase_mean)},
            {"stage_seconds_max", std::move(stage_max)},
            {"stage_seconds_mean", std::move(stage_mean)},
            {"stage_transfer_seconds_max", std::move(transfer_max)},
            {"stage_transfer_seconds_mean", std::move(transfer_mean)},
            {"stage_bytes", std::move(bytes)},
            {"imbalance",
             {{"owned_grains", ratio(most[0], static_cast<double>(sums[0]))},
              {"contacts", ratio(most[1], contacts)},
              {"busy_seconds", ratio(most[2], busy_sum)},
              {"shared_row_updates", ratio(most[5], static_cast<double>(sums[20]))}}}};
  }

 private:
  World& world_;
  distributed::Transport* t_;
  std::optional<distributed::DecomposedWorld> split_;
};

}  // namespace

RunResult run_scenario(const Scenario& sc, const RunOptions& options) {
  // Built first: a scenario whose initial state is rejected leaves no output directory.
  World world;
  const std::vector<BodyOrigin> origin = build_world(sc, world);
  distributed::Transport* transport =
      options.transport && options.transport->size() > 1 ? options.transport : nullptr;
  const bool root = !transport || transport->rank() == 0;  // writes the files
  RunResult result;
  result.directory = output_directory(sc, options.directory);
  const fs::path dir(result.directory);
  const bool frames = sc.output.every > 0 && sc.output.vtk;
  const bool resuming = !options.resume.empty();
  // A checkpoint is read and checked before anything is written (by every rank of a split run:
  // each builds the whole world from it).
  std::optional<Checkpoint> ck;
  RunCheckpoint run;
  if (resuming) {
    ck = read_checkpoint(options.resume, sc.content_hash, sc.file);
    if (!ck->has("run"))
      throw InputError(fmt::format(
          "{}: --resume: holds a world only (written by World.save_checkpoint), not a run; "
          "resume it from Python (etdem.load(..., resume=...))",
          ck->path));
    if (!fs::is_directory(dir))
      throw InputError(fmt::format(
          "{}: --resume: no such run directory; resume into the directory of the run that "
          "wrote {} (-o DIR)",
          dir.string(), ck->path));
    load_run_section(*ck, "run", [&](ByteReader& r) {
      r.get(run.max_relative_residual), r.get(run.frame_seconds), r.get(run.energy_bytes);
      r.get(run.energy_crc), r.get(run.net_bytes, sizeof(std::uint64_t));
    });
    // The directory holds the checkpoint's run (its energy.csv so far), before anything changes.
    check_energy_csv_prefix((dir / "energy.csv").string(), run.energy_bytes, run.energy_crc);
    world.initialize();  // the solvers; the state comes from the checkpoint
    restore_world(*ck, world);
  }
  std::string cdir;
  if (root) {
    check_output_files(result.directory,
                       {"shapes.json", "energy.csv", "summary.json", "state.csv", "particles.pvd"});
    std::error_code ec;
    fs::create_directories(frames ? dir / "frames" : dir, ec);
    if (ec || !fs::is_directory(dir))
      throw InputError(fmt::format("{}: cannot create the output directory ({})", dir.string(),
                                   ec ? ec.message() : "not a directory"));
    cdir = sc.output.checkpoint_every > 0 ? checkpoint_directory(dir) : "";
    remove_stale_outputs(dir, resuming);
  }

  RunInfo info;
  // The thread count the run will use (`--threads`, [simulation] threads), as the world sets it
  // when it initialises.
  info.threads = world.settings.threads > 0 ? world.settings.threads : omp_get_max_threads();

  std::optional<EnergyCsvWriter> energy;
  std::optional<VtkWriter> vtk;
  if (frames && root) vtk.emplace(dir.string(), wall_quads(sc, origin), vtk_encoding(sc.output));
  if (resuming) {
    if (frames != ck->has("frames"))
      throw InputError(
          fmt::format("{}: --resume: frames section does not fit the scenario", ck->path));
    if (vtk) load_run_section(*ck, "frames", [&](ByteReader& r) { vtk->load(r); });
    if (root) {
      energy.emplace((dir / "energy.csv").string(), run.energy_bytes, run.energy_crc);
      write_shapes_json((dir / "shapes.json").string(), world.shapes, net_shapes(world));
    }
    info.max_relative_residual = run.max_relative_residual;
    info.frame_seconds = run.frame_seconds;
  } else {
    if (root) {
      write_shapes_json((dir / "shapes.json").string(), world.shapes, net_shapes(world));
      energy.emplace((dir / "energy.csv").string());
    }
    try {
      world.initialize();  // checks the initial state: a failure still leaves a summary
    } catch (const std::exception& e) {
      if (root) {
        result.summary = make_summary(sc, world, {.status = fmt::format("failed: {}", e.what())});
        write_json((dir / "summary.json").string(), result.summary);
      }
      throw;
    }
    if (root) energy->write(world.time(), world.ledger());
    if (vtk) vtk->write_frame(world);
  }
  Stepper stepper(world, transport, sc.file);
  stepper.watch_stop(options.stop);
  // net_NAME.csv per net; a resumed run keeps the rows up to the checkpoint.
  std::optional<NetCsvWriter> nets;
  if (root) {
    nets.emplace(dir.string(), world, resuming ? &run.net_bytes : nullptr);
    if (!resuming) nets->write(world);
  }
  const long n = sc.steps();
  const auto t0 = std::chrono::steady_clock::now();
  // Everything the next step needs, and what the output files hold so far. Collective.
  auto save_checkpoint = [&](const std::string& directory) {
    stepper.sync(true);
    if (!root) return;
    energy->flush();
    nets->flush();
    run.max_relative_residual = info.max_relative_residual;
    run.frame_seconds = info.frame_seconds;
    run.energy_bytes = energy->bytes();
    run.energy_crc = energy->crc();
    run.net_bytes = nets->bytes();
    std::vector<CheckpointSection> sections = world_checkpoint_sections(world);
    for (CheckpointSection& s : run_checkpoint_sections(run, vtk ? &*vtk : nullptr))
      sections.push_back(std::move(s));
    result.checkpoint = checkpoint_path(dir.string(), world.step_count());
    write_checkpoint(result.checkpoint, sc.content_hash, world.step_count(), sections);
    prune_checkpoints(directory, sc.output.checkpoint_keep);
  };
  // Collective: the whole world is in `world` on the writing rank (stepper.sync) before.
  auto finish = [&](const std::string& status) {
    info.wall_seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    info.status = status;
    const nlohmann::json ranks = stepper.ranks_summary();
    result.steps = stepper.step_count();
    result.wall_seconds = info.wall_seconds;
    result.ledger = stepper.ledger();
    result.max_relative_residual = info.max_relative_residual;
    if (!root) return;
    energy->flush();
    nets->flush();
    if (vtk) {
      vtk->write_pvd();
      info.frames = vtk->frames();
    }
    result.summary = make_summary(sc, world, info);
    if (!ranks.is_null()) result.summary["ranks"] = ranks;
    write_json((dir / "summary.json").string(), result.summary);
    result.frames = info.frames;
  };
  Progress progress(n, options.progress && root);
  try {
    for (long s = stepper.step_count() + 1; s <= n; ++s) {
      stepper.step();
      // The same steps on every rank: what is written depends on the step number only. A split
      // run gathers the grains once for every file of the step that reads them: frames,
      // snapshots and net_NAME.csv (the mass on either side of a net).
      const bool row = s % sc.output.energy_every == 0 || s == n;
      const bool frame = frames && (s % sc.output.every == 0 || s == n);
      const bool snapshot = sc.output.state_every > 0 && s % sc.output.state_every == 0;
      if (frame || snapshot || (row && !world.nets.empty())) stepper.sync();
      if (row && root) {
        energy->write(stepper.time(), stepper.ledger());
        nets->write(world);
      }
      info.max_relative_residual =
          std::max(info.max_relative_residual, relative_residual(stepper.ledger()));
      if (vtk && frame) {
        const auto f0 = std::chrono::steady_clock::now();
        vtk->write_frame(world);
        info.frame_seconds +=
            std::chrono::duration<double>(std::chrono::steady_clock::now() - f0).count();
      }
      if (root && snapshot)
        write_state_csv((dir / fmt::format("state_{:06d}.csv", s)).string(), world);
      progress.update(s, stepper.time());
      if (s == n) break;
      if (stepper.stop(options.stop && *options.stop)) {
        // Interrupted: a checkpoint at this step, the state so far, every output flushed.
        progress.finish();
        save_checkpoint(cdir.empty() && root ? checkpoint_directory(dir) : cdir);
        if (root) write_state_csv((dir / "state.csv").string(), world);
        finish("interrupted");
        result.interrupted = true;
        return result;
      }
      if (sc.output.checkpoint_every > 0 && s % sc.output.checkpoint_every == 0)
        save_checkpoint(cdir);
    }
  } catch (const std::exception& e) {
    progress.finish();
    // A split run's ranks end together (the command line aborts them); a serial run's summary
    // records the error.
    if (!transport) finish(fmt::format("failed: {}", e.what()));
    throw;
  }
  progress.finish();
  stepper.sync();
  if (root) write_state_csv((dir / "state.csv").string(), world);
  finish("completed");
  return result;
}

}  // namespace etdem
