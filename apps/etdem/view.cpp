#include "view.hpp"

#include <sys/wait.h>
#include <unistd.h>

#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <optional>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "etdem/io/scenario_error.hpp"

namespace etdem {
namespace {

namespace fs = std::filesystem;

/// `name` found on PATH, or nothing.
std::optional<std::string> on_path(const std::string& name) {
  const char* path = std::getenv("PATH");
  if (!path) return std::nullopt;
  std::string dirs = path;
  std::size_t begin = 0;
  while (begin <= dirs.size()) {
    const std::size_t end = std::min(dirs.find(':', begin), dirs.size());
    const fs::path candidate = fs::path(dirs.substr(begin, end - begin)) / name;
    if (end > begin && access(candidate.c_str(), X_OK) == 0 && fs::is_regular_file(candidate))
      return candidate.string();
    begin = end + 1;
  }
  return std::nullopt;
}

/// tools/paraview_view.py: next to the executable (build/PRESET/share/etdem, copied by the
/// build), else in the source tree the executable was built from.
std::optional<std::string> find_script() {
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  std::vector<fs::path> candidates;
  if (!ec) candidates.push_back(exe.parent_path().parent_path() / "share/etdem/paraview_view.py");
  candidates.push_back(fs::path(ETDEM_SOURCE_DIR) / "tools/paraview_view.py");
  for (const fs::path& p : candidates)
    if (fs::is_regular_file(p, ec)) return p.string();
  return std::nullopt;
}

/// Whether the pictures asked for exist and are not empty: the --png-last file, or at least one
/// frame_*.png in the --png directory.
bool wrote_pictures(const ViewOptions& o) {
  std::error_code ec;
  if (!o.png_last.empty())
    return fs::is_regular_file(o.png_last, ec) && fs::file_size(o.png_last, ec) > 0;
  for (const fs::directory_entry& e : fs::directory_iterator(o.png, ec)) {
    const std::string name = e.path().filename().string();
    if (name.starts_with("frame_") && e.path().extension() == ".png" &&
        e.is_regular_file(ec) && e.file_size(ec) > 0)
      return true;
  }
  return false;
}

/// Runs argv[0] with the arguments, waits for it and returns its exit code (1 when it could not
/// run or was killed).
int run_program(const std::vector<std::string>& args) {
  std::string line;
  for (const std::string& a : args)
    line +=
        (line.empty() ? "" : " ") + (a.find(' ') == std::string::npos ? a : fmt::format("'{}'", a));
  fmt::print("etdem view: {}\n", line);
  std::fflush(stdout);
  const pid_t pid = fork();
  if (pid < 0) return 1;
  if (pid == 0) {
    std::vector<char*> argv;
    for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    execv(argv[0], argv.data());
    _exit(127);
  }
  int status = 0;
  if (waitpid(pid, &status, 0) < 0) return 1;
  return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}

int missing(const std::string& what) {
  fmt::print(stderr, "etdem view: {}\n", what);
  return 1;
}

}  // namespace

int view_run(const ViewOptions& o) {
  const fs::path dir = fs::absolute(o.directory);
  if (!fs::is_directory(dir)) throw InputError(o.directory + ": no such run directory");
  if (!fs::is_regular_file(dir / "particles.pvd"))
    throw InputError(
        fmt::format("{}: no particles.pvd: the run wrote no frames (run it with output.every > 0)",
                    o.directory));
  // ParaView picks the writer by the file's ending: any other ending writes nothing.
  if (!o.png_last.empty()) {
    std::string ext = fs::path(o.png_last).extension().string();
    for (char& ch : ext) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    if (ext != ".png")
      throw InputError(fmt::format("--png-last: {}: the picture's name must end in .png",
                                   o.png_last));
  }
  const auto script = find_script();
  if (!script) return missing("tools/paraview_view.py not found next to the executable");
  const auto pvpython = on_path("pvpython");
  if (!pvpython)
    return missing(
        "pvpython (ParaView's Python) is not installed: install the Debian packages paraview "
        "and python3-paraview (scripts/install-deps.sh --with-paraview), or open particles.pvd "
        "in ParaView yourself");
  const bool png = !o.png.empty() || !o.png_last.empty();
  const bool display = std::getenv("DISPLAY") && *std::getenv("DISPLAY");
  std::vector<std::string> args;
  if (!display) {
    // ParaView's renderer needs an X display; a virtual one serves for pictures.
    if (!png)
      return missing(
          "no display (DISPLAY is unset) for the ParaView window: write pictures with --png "
          "OUTDIR or --png-last FILE");
    const auto xvfb = on_path("xvfb-run");
    if (!xvfb)
      return missing(
          "no display (DISPLAY is unset) and no xvfb-run to render without one: "
          "install the Debian package xvfb, or set DISPLAY");
    args = {*xvfb, "-a", "-s", "-screen 0 1920x1080x24"};
  }
  args.push_back(*pvpython);
  if (png) args.push_back("--force-offscreen-rendering");  // no window pops up for pictures
  args.insert(args.end(), {*script, dir.string()});
  if (!o.png.empty()) args.insert(args.end(), {"--png", fs::absolute(o.png).string()});
  if (!o.png_last.empty())
    args.insert(args.end(), {"--png-last", fs::absolute(o.png_last).string()});
  if (o.size.size() == 2)
    args.insert(args.end(), {"--size", std::to_string(o.size[0]), std::to_string(o.size[1])});
  if (o.speed_range.size() == 2)
    args.insert(args.end(), {"--speed-range", fmt::format("{}", o.speed_range[0]),
                             fmt::format("{}", o.speed_range[1])});
  const std::string state = (dir / "view.pvsm").string();
  if (!png) args.insert(args.end(), {"--state", state});
  const int rc = run_program(args);
  if (png) {
    // A view that wrote no picture has failed, whatever ParaView's exit code said.
    if (rc != 0) return 1;
    if (!wrote_pictures(o)) {
      fmt::print(stderr, "etdem view: ParaView wrote no picture ({})\n",
                 o.png_last.empty() ? fs::absolute(o.png).string() + "/frame_*.png"
                                    : fs::absolute(o.png_last).string());
      return 1;
    }
    return 0;
  }
  if (rc != 0) return 1;
  // The window: ParaView itself, on the state just written.
  const auto paraview = on_path("paraview");
  if (!paraview)
    return missing(
        fmt::format("the ParaView window (paraview) is not installed; the state is in {}", state));
  return run_program({*paraview, "--state=" + state}) == 0 ? 0 : 1;
}

}  // namespace etdem
