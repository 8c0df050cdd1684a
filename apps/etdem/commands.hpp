// The commands of the etdem CLI, one file each (main.cpp parses the command line and calls
// them): run and check (run.cpp), the analyses (analyze_repose.cpp, analyze_energy.cpp,
// analyze_deposit.cpp), the plots (plot.cpp), the schema (schema.cpp), validate (validate.cpp);
// view is view.hpp. Each returns the process exit code and throws InputError for bad input (main
// prints it, exit 2).
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace etdem {
struct EnergyLedger;
}

namespace etdem::cli {

inline constexpr int kExitOk = 0, kExitFailure = 1, kExitBadInput = 2;

struct RunCommandOptions {
  std::string file;               // the scenario (TOML)
  std::vector<std::string> sets;  // --set key=value overrides
  std::string directory;          // -o: "" = output.directory or out/<stem>
  int threads = -1;               // --threads: < 0 = the scenario's simulation.threads
  bool profile = false;           // --profile: the time of each step phase at the end
  std::string resume;             // --resume CHECKPOINT ("" = a new run)
};

/// `etdem run SCENARIO.toml`: on one process, or split over the ranks when mpirun started it
/// (argc and argv go to MPI). Exit 128 + the signal when SIGINT, SIGTERM or SIGUSR1 stopped it
/// after writing a checkpoint.
int run(int& argc, char**& argv, const RunCommandOptions& options);

/// `etdem check SCENARIO.toml`: loads the scenario and builds its world (the initial-state
/// checks) without running it.
int check(const std::string& file, const std::vector<std::string>& sets);

/// The energy ledger as `etdem run` and `etdem analyze energy` print it (analyze_energy.cpp).
void print_ledger(const EnergyLedger& ledger);

/// `etdem analyze energy DIR`: the final ledger of DIR/energy.csv and its largest residual.
int analyze_energy(const std::string& dir);

/// `etdem analyze repose DIR` (analyze_repose.cpp): writes DIR/repose.json.
int analyze_repose(const std::string& dir);

/// `etdem analyze repose DIR --series`: the angle at every state_SSSSSS.csv snapshot, to
/// DIR/repose_series.csv.
int analyze_repose_series(const std::string& dir);

struct MoundOptions {
  double fraction = 0.95;      // of the deposit's weight inside the spread radius
  std::optional<double> bin;   // [m] profile annulus (default: the median grain diameter)
  std::optional<double> base;  // [m] floor height (default: the container floor, else the
                               // lowest surface node)
};

/// `etdem analyze mound DIR`: writes DIR/mound.json and DIR/mound_profile.csv.
int analyze_mound(const std::string& dir, const MoundOptions& options);

struct RunoutOptions {
  std::string direction;       // "X,Y" (required)
  std::string origin = "0,0";  // "X,Y" [m], the apex
  double fraction = 0.95;
  std::optional<double> cell;  // [m] deposit map cell (default: half the median grain radius)
};

/// `etdem analyze runout DIR --direction X,Y`: writes DIR/runout.json and DIR/runout_map.csv.
int analyze_runout(const std::string& dir, const RunoutOptions& options);

struct PlotOptions {
  std::string kind;  // energy | repose | mound | runout
  std::string dir;
  std::string output;  // "" = DIR/<kind>.png
  MoundOptions mound;
  RunoutOptions runout;
};

/// `etdem plot KIND DIR`: runs the analysis the plot needs, then tools/plot/etdem_plot.py
/// (found at <bin>/../share/etdem/, or $ETDEM_PLOT_SCRIPT) with Debian's python3
/// ($ETDEM_PYTHON to choose another).
int plot(const PlotOptions& options);

struct ValidateOptions {
  bool long_cases = false;       // --long: also the long cases
  bool json = false;             // --json: one JSON document instead of the table
  std::string only;              // --only CASE: that case alone (a long one too)
  int jobs = 2;                  // --jobs N: processes the long cases run at a time
  double tolerance_scale = 1.0;  // hidden --tolerance-scale: tests make a case fail with it
};

/// `etdem validate` (validate.cpp): exit 0 when every check passes, 1 otherwise.
int validate(const ValidateOptions& options);

/// `etdem schema`: the settings with their defaults and valid ranges; `markdown`: the generated
/// tables of docs/scenario.md; `update` (a file name, "" = none): rewrites them in that file.
int schema(bool markdown, const std::string& update);

}  // namespace etdem::cli
