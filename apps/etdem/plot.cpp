// `etdem plot energy|repose|mound|runout DIR`: the analysis a plot needs (repose.json,
// mound.json, runout.json) runs here; the drawing is tools/plot/etdem_plot.py, run with Debian's
// python3 and matplotlib. The script is found at <directory of the binary>/../share/etdem/
// (the build copies it there, as an install would) unless $ETDEM_PLOT_SCRIPT names it; the
// interpreter is the one configured at build time (/usr/bin/python3) unless $ETDEM_PYTHON names
// another.
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "commands.hpp"
#include "etdem/io/energy_csv.hpp"
#include "etdem/io/scenario_error.hpp"
#include "etdem/io/toml_reader.hpp"

extern char** environ;

namespace etdem::cli {
namespace {

namespace fs = std::filesystem;

/// Exit codes of etdem_plot.py.
constexpr int kScriptBadInput = 2, kScriptNoMatplotlib = 3;

std::string env_or(const char* name, const std::string& fallback) {
  const char* v = std::getenv(name);
  return v && *v ? std::string(v) : fallback;
}

std::string script_path() {
  const std::string given = env_or("ETDEM_PLOT_SCRIPT", "");
  if (!given.empty()) return given;
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (ec) throw std::runtime_error("plot: cannot locate the etdem binary (/proc/self/exe)");
  return (exe.parent_path().parent_path() / "share" / "etdem" / "etdem_plot.py").string();
}

/// Runs python SCRIPT ARGS... and returns its exit code (-1 when it could not be started).
int run_script(const std::string& python, const std::vector<std::string>& args) {
  std::vector<char*> argv;
  argv.push_back(const_cast<char*>(python.c_str()));
  for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  std::fflush(stdout);
  pid_t pid = 0;
  const int err = posix_spawnp(&pid, python.c_str(), nullptr, nullptr, argv.data(), environ);
  if (err != 0) {
    errno = err;
    return -1;
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0)
    if (errno != EINTR) return -1;
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  return 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
}

}  // namespace

int plot(const PlotOptions& o) {
  const std::string kinds[] = {"energy", "repose", "mound", "runout"};
  if (std::find(std::begin(kinds), std::end(kinds), o.kind) == std::end(kinds))
    throw InputError(input_message(o.dir, 0, "plot",
                                   "unknown plot (known: energy, repose, "
                                   "mound, runout)",
                                   o.kind));
  if (!o.runout.direction.empty() && o.kind != "runout")
    throw InputError(
        input_message(o.dir, 0, "--direction", "only `plot runout` takes it", o.runout.direction));
  // The analysis first: its input errors are the analyse commands' (exit 2), and the script
  // only draws files that exist.
  if (o.kind == "energy")
    (void)read_energy_csv(o.dir + "/energy.csv");
  else if (o.kind == "repose")
    analyze_repose(o.dir);
  else if (o.kind == "mound")
    analyze_mound(o.dir, o.mound);
  else
    analyze_runout(o.dir, o.runout);
  const std::string out = o.output.empty() ? o.dir + "/" + o.kind + ".png" : o.output;
  const std::string python = env_or("ETDEM_PYTHON", ETDEM_PYTHON_EXECUTABLE);
  const std::string script = script_path();
  if (!fs::is_regular_file(script))
    throw std::runtime_error(fmt::format(
        "plot: the plotting script {} is missing (it ships as tools/plot/etdem_plot.py; set "
        "ETDEM_PLOT_SCRIPT to its path)",
        script));
  const int code = run_script(python, {script, o.kind, o.dir, out});
  if (code == -1)
    throw std::runtime_error(fmt::format(
        "plot: cannot run {} ({}); install Debian's python3 and python3-matplotlib, or set "
        "ETDEM_PYTHON to an interpreter that has matplotlib",
        python, std::strerror(errno)));
  if (code == kScriptNoMatplotlib)
    throw std::runtime_error(fmt::format(
        "plot: matplotlib is not installed for {} (apt-get install python3-matplotlib, or set "
        "ETDEM_PYTHON to an interpreter that has it)",
        python));
  if (code == kScriptBadInput) return kExitBadInput;  // the script printed the one-line reason
  if (code != 0)
    throw std::runtime_error(
        fmt::format("plot: {} {} failed (exit code {})", python, script, code));
  if (!fs::is_regular_file(out) || fs::file_size(out) == 0)
    throw std::runtime_error(fmt::format("plot: {} was not written", out));
  fmt::print("plot written to {}\n", out);
  return kExitOk;
}

}  // namespace etdem::cli
