// Runs a scenario from start to end and writes every output file (docs/scenario.md):
// energy.csv, state.csv (+ state_SSSSSS.csv), shapes.json, summary.json, frames/*.vtu and
// particles.pvd.
#pragma once

#include <csignal>
#include <string>

#include <nlohmann/json.hpp>

#include "etdem/io/scenario_spec.hpp"
#include "etdem/io/vtk_writer.hpp"
#include "etdem/world/energy_ledger.hpp"

namespace etdem {
namespace distributed {
class Transport;
}

struct RunOptions {
  std::string directory;  // "" = the scenario's output.directory, else out/<scenario stem>
  bool progress = true;   // progress line on stderr (only shown when stderr is a terminal)
  /// A checkpoint (io/checkpoint.hpp) of this scenario to continue from, "" = start. The
  /// directory must hold the run that wrote it; its files are continued, so the outputs end as
  /// those of a run that never stopped.
  std::string resume;
  /// Set (by a signal handler) to stop the run after the current step: a checkpoint is written,
  /// the outputs are flushed and summary.json says "interrupted".
  const volatile std::sig_atomic_t* stop = nullptr;
  /// The ranks of a run split over MPI ranks (docs/distributed.md); null or one rank: serial.
  /// Every rank calls run_scenario; rank 0 writes the files, which are the serial run's.
  distributed::Transport* transport = nullptr;
};

struct RunResult {
  std::string directory;
  long steps = 0;
  double wall_seconds = 0.0;
  EnergyLedger ledger;
  double max_relative_residual = 0.0;
  int frames = 0;
  nlohmann::json summary;
  bool interrupted = false;  // stopped by RunOptions::stop before the last step
  std::string checkpoint;    // the last checkpoint written, "" = none
};

/// The directory a run writes to: `requested` if not empty, else output.directory, else
/// out/<scenario stem>.
std::string output_directory(const Scenario& scenario, const std::string& requested);

/// Quads for the planes of the walls of a built world, to draw them in ParaView (VtkWriter): a
/// box container's faces (its floor grows over the run to cover the grains that run out onto the
/// infinite plane), and plain planes, which have no extent of their own and cover the grains'
/// footprint.
std::vector<WallQuad> wall_quads(const Scenario& scenario, const std::vector<BodyOrigin>& origin);

/// How frames are encoded, from [output] vtk_format and vtk_compression.
VtkEncoding vtk_encoding(const OutputSettings& output);

/// Builds the world, steps it for the scenario's duration (from a checkpoint with
/// options.resume) and writes the outputs, checkpoints every output.checkpoint_every steps. Files
/// of an earlier run in the same directory that this run would not overwrite (frames, state_*.csv)
/// are deleted first. Throws InputError when the directory cannot be written, and passes on the
/// World's std::runtime_error (e.g. a non-finite state) after writing what it has, with the
/// error recorded as "status" in summary.json.
RunResult run_scenario(const Scenario& scenario, const RunOptions& options);

}  // namespace etdem
