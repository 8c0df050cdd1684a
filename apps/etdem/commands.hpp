// The commands of the etdem CLI that live outside main.cpp: the deposit analyses
// (analyze_deposit.cpp) and the plots (plot.cpp). Each returns the process exit code and throws
// InputError for bad input (main prints it, exit 2).
#pragma once

#include <optional>
#include <string>

namespace etdem::cli {

inline constexpr int kExitOk = 0, kExitFailure = 1, kExitBadInput = 2;

/// `etdem analyze repose DIR` (main.cpp): writes DIR/repose.json.
int analyze_repose(const std::string& dir);

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

}  // namespace etdem::cli
