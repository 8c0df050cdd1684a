// The etdem command line (docs/scenario.md):
//   etdem run SCENARIO.toml [-o DIR] [--threads N] [--set key=value ...] [--resume CHECKPOINT]
//   etdem check SCENARIO.toml [--set key=value ...]
//   etdem analyze repose DIR [--series]
//   etdem analyze energy DIR
//   etdem analyze mound DIR [--fraction F] [--bin M] [--base Z]
//   etdem analyze runout DIR --direction X,Y [--origin X,Y] [--fraction F] [--cell M]
//   etdem plot energy|repose|mound|runout DIR [-o FILE.png] [the analysis' options]
//   etdem schema [--markdown | --update FILE.md]
//   etdem validate [--long] [--json] [--only CASE]
//   etdem view DIR [--png OUTDIR | --png-last FILE] [--size W H] [--speed-range MIN MAX]
// This file parses the command line and calls the command (commands.hpp, one file each).
// Exit codes: 0 success, 2 bad input (scenario, override, command line, unreadable run
// directory, a checkpoint that does not fit), 1 failure while running (e.g. a non-finite state;
// for view: ParaView or a display missing), 130 / 143 / 138 run stopped by SIGINT / SIGTERM /
// SIGUSR1 after writing a checkpoint (128 + the signal, as shells report it).
#include <charconv>
#include <cstdio>
#include <string>
#include <system_error>
#include <vector>

#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include "commands.hpp"
#include "etdem/core/version.hpp"
#include "etdem/io/scenario_error.hpp"
#include "etdem/io/toml_reader.hpp"
#include "view.hpp"

using etdem::InputError;
using etdem::cli::kExitBadInput;
using etdem::cli::kExitFailure;

int main(int argc, char** argv) {
  CLI::App app{"etdem: impulse-based discrete element engine"};
  app.require_subcommand(1);
  app.set_version_flag("--version", fmt::format("etdem {}", etdem::version_string()),
                       "print the version and the commit it was built from, and exit");
  etdem::cli::RunCommandOptions run;  // run and check: the scenario and its overrides
  std::string analyze_dir;

  auto* run_cmd = app.add_subcommand("run", "run a scenario and write its outputs");
  run_cmd->add_option("scenario", run.file, "scenario file (TOML)")->required();
  run_cmd->add_option("-o,--output", run.directory,
                      "output directory (default: output.directory or out/<stem>)");
  run_cmd->add_option("--threads", run.threads, "OpenMP threads (0 = default)")
      ->check(CLI::Validator(
          [](std::string& text) {
            int n = -1;
            const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), n);
            if (text.empty() || ec != std::errc() || end != text.data() + text.size() || n < 0 ||
                n > 4096)
              return fmt::format("expected an integer in [0, 4096] (0 = default), got '{}'", text);
            return std::string();
          },
          "INT in [0, 4096]"));
  run_cmd->add_option("--set", run.sets, "override a scenario key, e.g. --set simulation.dt=0.001")
      ->allow_extra_args(false);
  run_cmd->add_flag("--profile", run.profile, "print the time of each step phase at the end");
  run_cmd->add_option("--resume", run.resume,
                      "continue from a checkpoint of this scenario (DIR/checkpoints/*.bin) into "
                      "the directory of the run that wrote it");

  auto* check_cmd = app.add_subcommand("check", "validate a scenario without running it");
  check_cmd->add_option("scenario", run.file, "scenario file (TOML)")->required();
  check_cmd->add_option("--set", run.sets, "override a scenario key")->allow_extra_args(false);

  auto* analyze_cmd = app.add_subcommand("analyze", "analyse the outputs of a run");
  analyze_cmd->require_subcommand(1);
  auto* repose_cmd = analyze_cmd->add_subcommand("repose", "angle of repose (ETM 2014 7.4)");
  repose_cmd->add_option("dir", analyze_dir, "run directory")->required();
  bool series = false;
  repose_cmd->add_flag("--series", series,
                       "the angle at every state_SSSSSS.csv snapshot, to repose_series.csv");
  auto* energy_cmd = analyze_cmd->add_subcommand("energy", "final energy ledger and residual");
  energy_cmd->add_option("dir", analyze_dir, "run directory")->required();

  etdem::cli::MoundOptions mound;
  etdem::cli::RunoutOptions runout;
  auto add_mound_options = [&](CLI::App* c) {
    c->add_option("--fraction", mound.fraction,
                  "share of the deposit's weight (runout: also of the fan's area), (0, 1]");
    c->add_option("--bin", mound.bin, "profile annulus [m] (default: median grain diameter)");
    c->add_option("--base", mound.base,
                  "floor height [m] (default: the container floor, else the lowest node)");
  };
  auto add_runout_options = [&](CLI::App* c, bool required) {
    auto* d = c->add_option("--direction", runout.direction, "runout direction X,Y");
    if (required) d->required();
    c->add_option("--origin", runout.origin, "apex X,Y [m] runout is measured from (0,0)");
    c->add_option("--cell", runout.cell, "deposit map cell [m] (default: half the median radius)");
  };
  auto* mound_cmd = analyze_cmd->add_subcommand(
      "mound", "mound height, spread, reach and radial profile (mound.json, mound_profile.csv)");
  mound_cmd->add_option("dir", analyze_dir, "run directory")->required();
  add_mound_options(mound_cmd);
  auto* runout_cmd = analyze_cmd->add_subcommand(
      "runout", "runout distance, deposit area, fan angle (runout.json, runout_map.csv)");
  runout_cmd->add_option("dir", analyze_dir, "run directory")->required();
  runout_cmd->add_option("--fraction", runout.fraction, "share of the weight and fan area, (0, 1]");
  add_runout_options(runout_cmd, true);

  etdem::cli::PlotOptions plot;
  auto* plot_cmd = app.add_subcommand(
      "plot", "PNG of a run with matplotlib: energy, repose, mound or runout (DIR/KIND.png)");
  plot_cmd->add_option("kind", plot.kind, "energy | repose | mound | runout")
      ->required()
      ->check(CLI::IsMember({"energy", "repose", "mound", "runout"}));
  plot_cmd->add_option("dir", plot.dir, "run directory")->required();
  plot_cmd->add_option("-o,--output", plot.output, "PNG file (default: DIR/KIND.png)");
  add_mound_options(plot_cmd);
  add_runout_options(plot_cmd, false);

  auto* schema_cmd =
      app.add_subcommand("schema", "list every setting with its default, unit and valid range");
  bool markdown = false;
  std::string update_doc;
  schema_cmd->add_flag("--markdown", markdown, "print the generated tables of docs/scenario.md");
  schema_cmd->add_option("--update", update_doc,
                         "rewrite the generated tables of a markdown file (docs/scenario.md)");

  auto* view_cmd = app.add_subcommand(
      "view", "open a run in ParaView (tools/paraview_view.py with pvpython), or render PNGs");
  etdem::ViewOptions view;
  view_cmd->add_option("dir", view.directory, "run directory")->required();
  auto* png = view_cmd->add_option("--png", view.png, "one PNG per frame: OUTDIR/frame_SSSSSS.png");
  view_cmd->add_option("--png-last", view.png_last, "the last frame as a PNG")->excludes(png);
  view_cmd->add_option("--size", view.size, "picture size in pixels")
      ->expected(2)
      ->check(CLI::Range(16, 8192));
  view_cmd
      ->add_option("--speed-range", view.speed_range,
                   "colour scale of the speed, m/s (default: 0 to the fastest grain)")
      ->expected(2)
      ->check(CLI::Range(0.0, 1e12));

  auto* validate_cmd = app.add_subcommand(
      "validate", "run the papers' validation cases and compare with their numbers");
  etdem::cli::ValidateOptions validate;
  validate_cmd->add_flag("--long", validate.long_cases, "also the long cases");
  validate_cmd->add_flag("--json", validate.json, "print JSON instead of the table");
  validate_cmd->add_option("--only", validate.only,
                           "run one case (V3, V4, V6, V8, V7 Table 2, V7 Bernoulli, V5, ...)");
  validate_cmd
      ->add_option("--jobs", validate.jobs, "processes the long cases (V5, V9) run at a time")
      ->check(CLI::Range(1, 64));
  // Hidden (no description): scales every tolerance, so a test can make a case fail.
  validate_cmd->add_option("--tolerance-scale", validate.tolerance_scale)->group("");

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e);  // --help
    // One line, naming the scenario file when it was given: "FILE: command line: reason".
    std::string what = e.what();
    for (char& c : what)
      if (static_cast<unsigned char>(c) < 0x20) c = ' ';
    fmt::print(stderr, "{}: command line: {} (see etdem --help)\n",
               run.file.empty() ? std::string("etdem") : run.file, what);
    return kExitBadInput;
  }
  try {
    if (run_cmd->parsed()) return etdem::cli::run(argc, argv, run);
    if (check_cmd->parsed()) return etdem::cli::check(run.file, run.sets);
    if (repose_cmd->parsed())
      return series ? etdem::cli::analyze_repose_series(analyze_dir)
                    : etdem::cli::analyze_repose(analyze_dir);
    if (energy_cmd->parsed()) return etdem::cli::analyze_energy(analyze_dir);
    if (mound_cmd->parsed()) return etdem::cli::analyze_mound(analyze_dir, mound);
    if (runout_cmd->parsed()) return etdem::cli::analyze_runout(analyze_dir, runout);
    if (plot_cmd->parsed()) {
      plot.mound = mound;
      plot.runout = runout;
      plot.runout.fraction = mound.fraction;
      if (plot.kind == "runout" && plot.runout.direction.empty())
        throw InputError(etdem::input_message(
            plot.dir, 0, "--direction", "required for plot runout: the runout direction X,Y", ""));
      return etdem::cli::plot(plot);
    }
    if (schema_cmd->parsed()) return etdem::cli::schema(markdown, update_doc);
    if (view_cmd->parsed()) return etdem::view_run(view);
    if (validate_cmd->parsed()) return etdem::cli::validate(validate);
  } catch (const InputError& e) {
    std::fflush(stdout);
    fmt::print(stderr, "{}\n", e.what());
    return kExitBadInput;
  } catch (const std::exception& e) {
    std::fflush(stdout);
    fmt::print(stderr, "etdem: error: {}\n", e.what());
    return kExitFailure;
  }
  return kExitBadInput;
}
