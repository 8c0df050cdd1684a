#include "etdem/io/settings_schema.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <utility>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "etdem/io/scenario_error.hpp"
#include "etdem/world/solver_registry.hpp"

namespace etdem {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

using namespace setting;

using Sim = Setting<Scenario>;

std::vector<Sim> simulation_keys() {
  std::vector<Sim> v;
  v.push_back(required(field<Scenario>(
      "dt", "s", above(0), "time step", [](Scenario & s) -> auto& { return s.settings.dt; })));
  v.push_back(required(field<Scenario>(
      "duration", "s", above(0),
      "simulated time; steps = duration / dt rounded up (not when within 1e-9 of a whole number)",
      [](Scenario & s) -> auto& { return s.duration; }, "at most 1e12 steps")));
  v.push_back(field<Scenario>(
      "gravity", "m/s²", any(), "gravitational acceleration",
      [](Scenario & s) -> auto& { return s.settings.gravity; }));
  v.push_back(one_of<Scenario>(
      "solver", solver_names(), "collision solver (the solver table below, docs/solvers.md)",
      [](Scenario & s) -> auto& { return s.settings.solver; }));
  v.push_back(one_of<Scenario>(
      "resting", resting_names(),
      "how slow (resting) contacts are resolved: `pgs` = hybrid inelastic contact pass after the "
      "collision solver (solvers/resting.hpp), `etm` = inside the collision solver with e = 0, "
      "`wall-correction` = as `etm`, then grains penetrating walls at their predicted positions "
      "get their velocities corrected (2024 §4.1, world/wall_correction.cpp)",
      [](Scenario & s) -> auto& { return s.settings.resting; }));
  v.push_back(field<Scenario>(
      "wall_iterations", "", closed(1, 1000),
      "resting = `wall-correction`: rounds of predict, detect and correct per step; a step that "
      "needs them all is counted (summary.json resting.wall_bound_reached)",
      [](Scenario & s) -> auto& { return s.settings.wall_iterations; }));
  v.push_back(field<Scenario>(
      "resting_velocity", "m/s", any(),
      "contacts approaching slower than this are resting (e = 0); < 0 = automatic, 2 |g| dt",
      [](Scenario & s) -> auto& { return s.settings.resting_velocity; }));
  v.push_back(field<Scenario>(
      "projection", "1", half_open(0, 1),
      "position projection factor k_p (jolt appendix B.18); 0 disables; stable below 0.5 (B.22)",
      [](Scenario & s) -> auto& { return s.settings.projection; }));
  v.push_back(field<Scenario>(
      "contact_skin", "1", closed(0, 1),
      "contacts are reported up to this fraction of the smaller bounding radius apart (beyond "
      "what the step can close), so the resting pass can stop a grain pushed towards a near "
      "neighbour (speculative contact); a pair the solve closes unreported makes the step split "
      "(`substep_missed`), so a smaller skin costs steps taken again, not safety. Level-set "
      "grains pay for every node within reach: their examples use 0.02 (docs/design.md \"The "
      "contact skin of level-set grains\")",
      [](Scenario & s) -> auto& { return s.settings.contact_skin; }));
  v.push_back(field<Scenario>(
      "substep_sweep", "1", closed(0, 1),
      "a step is split into sub-steps when a grain other than a sphere would turn so fast that "
      "its bounding radius sweeps more than this fraction of its thinnest extent (|ω| dt R > f t): "
      "n = ceil(|ω| dt R / (f t)) sub-steps of dt / n, counted in summary.json `substeps`; 0 "
      "never splits",
      [](Scenario & s) -> auto& { return s.settings.substep_sweep; }));
  v.push_back(field<Scenario>(
      "substep_missed", "", any(),
      "a step is taken again split when the velocities its solve left would close a pair the "
      "narrow phase did not report (a grain an impact stopped, run into by the grain behind "
      "it): n = ceil(c dt / g) sub-steps for a point at gap g closing at c",
      [](Scenario & s) -> auto& { return s.settings.substep_missed; }));
  v.push_back(field<Scenario>(
      "max_substeps", "", closed(1, 1000),
      "upper bound of that split; a step that would need more is counted "
      "(summary.json `substeps.bound_reached`)",
      [](Scenario & s) -> auto& { return s.settings.max_substeps; }));
  v.push_back(field<Scenario>(
      "sleep_velocity", "m/s", at_least(0),
      "a region (or island, `sleep_unit`) whose every grain moved slower than this (a sphere's "
      "centre, any other grain's fastest surface point |v| + |ω| R) for `sleep_time` sleeps: its "
      "velocities are set to zero (booked as damping) and it skips the kick, the solve and the "
      "motion until it wakes (summary.json `sleep`); 0 never sleeps",
      [](Scenario & s) -> auto& { return s.settings.sleep_velocity; }));
  v.push_back(field<Scenario>(
      "sleep_time", "s", at_least(0), "how long a region must stay slower than `sleep_velocity`",
      [](Scenario & s) -> auto& { return s.settings.sleep_time; }));
  v.push_back(named<Scenario>(
      "sleep_unit",
      std::vector<std::pair<std::string, SleepUnit>>{{"region", SleepUnit::kRegion},
                                                     {"island", SleepUnit::kIsland}},
      "what falls asleep and wakes as one: `region` = the grains in a cube of four largest "
      "bounding radii (a sleeping region next to moving grains holds them as a support; it wakes "
      "when a grain closes on it faster than `sleep_velocity` or its load changes), `island` = a "
      "whole island, woken when a moving grain joins it",
      [](Scenario & s) -> auto& { return s.settings.sleep_unit; }));
  v.push_back(field<Scenario>(
      "sleep_wake_load", "", at_least(0),
      "a sleeping grain next to moving ones wakes its region when the resting contacts' force on "
      "it changed by more than this many times its weight since it fell asleep (a load added, a "
      "support taken away)",
      [](Scenario & s) -> auto& { return s.settings.sleep_wake_load; }));
  v.push_back(field<Scenario>(
      "sleep_wake_rounds", "", closed(0, 100),
      "how many times a step's solve is taken again with the regions its loads woke free; "
      "regions still loaded after that wake for the next step (summary.json "
      "`sleep.wake_bound_reached`); 0 = always the next step",
      [](Scenario & s) -> auto& { return s.settings.sleep_wake_rounds; }));
  v.push_back(field<Scenario>(
      "penetration_slop", "m", at_least(0), "penetration left uncorrected by the projection",
      [](Scenario & s) -> auto& { return s.settings.penetration_slop; }));
  v.push_back(field<Scenario>(
      "damping", "1/s", at_least(0), "global damping ξ (2024 Eqs. 47-49)",
      [](Scenario & s) -> auto& { return s.settings.damping; }, "damping·dt <= 1"));
  v.push_back(field<Scenario>(
      "threads", "", closed(0, 4096), "OpenMP threads, 0 = OpenMP's default; `--threads` overrides",
      [](Scenario & s) -> auto& { return s.settings.threads; }));
  v.push_back(field<Scenario>(
      "rebalance_every", "", closed(0, 1e9),
      "a run split over MPI ranks checks every this many steps whether the rank with the most "
      "work (its grains, each 1 + the contacts it detects) has more than `rebalance_imbalance` "
      "times the mean, and if so draws its rank boxes again from the grains' centres weighted by "
      "their work (summary.json `ranks.rebalances`, `ranks.imbalance`); 0 never; the results do "
      "not depend on it",
      [](Scenario & s) -> auto& { return s.settings.rebalance_every; }));
  v.push_back(field<Scenario>(
      "rebalance_imbalance", "1", at_least(1),
      "the largest rank's work over the mean above which a split run rebalances",
      [](Scenario & s) -> auto& { return s.settings.rebalance_imbalance; }));
  v.push_back(field<Scenario>(
      "rebalance_busy_imbalance", "1", at_least(0),
      "at the same checks, a split run whose ranks solved piles together since the last check "
      "(`share_islands`) decides by the busy time instead of the work: it rebalances when the "
      "busiest rank's busy time since then (its step phases' wall time less its time in "
      "collectives) exceeds this times the mean, each grain then weighted by its work times the "
      "seconds its rank took per unit of work (summary.json `ranks.rebalances_by_time`); 0 never "
      "(the work deciding at every check; up to 1: at every check); the boxes then depend on the "
      "machine's timing, the results do not",
      [](Scenario & s) -> auto& { return s.settings.rebalance_busy_imbalance; }));
  v.push_back(named<Scenario>(
      "share_islands",
      std::vector<std::pair<std::string, WorldSettings::IslandSharing>>{
          {"auto", WorldSettings::IslandSharing::kAuto},
          {"on", WorldSettings::IslandSharing::kOn},
          {"off", WorldSettings::IslandSharing::kOff}},
      "whether a run split over MPI ranks solves a pile's island (one swept by blocks, "
      "`pgs.block_contacts`) with every rank together, each sweeping the rows of its own box "
      "and holding the contacts it reads, instead of on one rank that receives the whole "
      "island: `auto` = on 2 to 4 ranks, `on` = on any number, `off` = never (summary.json "
      "`ranks.islands_shared`, of which `ranks.islands_shared_direct` came to every rank "
      "straight from every rank, `ranks.contacts_kept_local` of their contacts kept by the "
      "rank that detected them (`ranks.collisions_kept_local` of them collisions, in "
      "collision groups no other rank reads), `ranks.grains_sent_slim` of their grains sent to "
      "the other ranks as their id and owner (that rank alone reads the rest, or every "
      "other rank holds it), "
      "`ranks.islands_sent_whole` sent again whole, and "
      "`ranks.collision_groups_shared` for their collision groups, split over the ranks); the "
      "results do not depend on it",
      [](Scenario & s) -> auto& { return s.settings.share_islands; }));
  v.push_back(field<Scenario>(
      "conserve_angular_momentum", "", any(),
      "torque-free rotation keeps L = I ω (exact for any inertia)",
      [](Scenario & s) -> auto& { return s.settings.conserve_angular_momentum; }));
  return v;
}

std::vector<Sim> pgs_keys() {
  auto pgs = [](Scenario& s) -> RestingSettings& { return s.settings.resting_pass; };
  std::vector<Sim> v;
  v.push_back(field<Scenario>(
      "iterations", "", closed(1, 1e6),
      "Gauss-Seidel sweeps per island and step (upper bound; reaching it is counted in "
      "summary.json `resting.sweep_bound_reached`)",
      [pgs](Scenario & s) -> auto& { return pgs(s).iterations; }));
  v.push_back(field<Scenario>(
      "tolerance", "1", at_least(0),
      "early exit when no impulse changed more than this fraction of the largest normal impulse",
      [pgs](Scenario & s) -> auto& { return pgs(s).tolerance; }));
  v.push_back(field<Scenario>(
      "warm_start", "1", closed(0, 1),
      "fraction of last step's impulses of the same contacts applied before the first sweep",
      [pgs](Scenario & s) -> auto& { return pgs(s).warm_start; }));
  v.push_back(field<Scenario>(
      "shock_propagation", "", any(),
      "final bottom-up pass with the lower body of each contact held fixed (Guendelman et al. "
      "2003), only with gravity",
      [pgs](Scenario & s) -> auto& { return pgs(s).shock_propagation; }));
  v.push_back(field<Scenario>(
      "shock_depth", "1", closed(0, 1),
      "the shock pass stops a body's approach into a support only beyond this depth of the "
      "contact, as a fraction of its shorter lever (centre to contact point); 0 = any approach",
      [pgs](Scenario & s) -> auto& { return pgs(s).shock_depth; }));
  v.push_back(field<Scenario>(
      "approach_tolerance", "1", closed(0, 1),
      "after the shock pass a contact still closing is swept again (and counted in "
      "`approaching_left`) only when within the step it would close by more than this fraction "
      "of its shorter lever (centre to contact point); 0 = any closing beyond round-off",
      [pgs](Scenario & s) -> auto& { return pgs(s).approach_tolerance; }));
  v.push_back(field<Scenario>(
      "block_contacts", "", closed(0, 1e12),
      "islands with at least this many contacts are swept by spatial blocks of two grain "
      "diameters, coloured 8 ways, a colour's blocks in parallel: the same results on any "
      "number of threads; smaller islands keep contact order. 0 = never",
      [pgs](Scenario & s) -> auto& { return pgs(s).block_contacts; }));
  v.push_back(named<Scenario>(
      "colouring",
      std::vector<std::pair<std::string, BlockOrder::Colouring>>{
          {"blocks", BlockOrder::Colouring::kBlocks}, {"graph", BlockOrder::Colouring::kGraph}},
      "how an island swept in parallel is split into colours whose contacts share no grain: "
      "`blocks` = spatial blocks coloured 8 ways by parity, `graph` = contacts coloured greedily "
      "in the blocks' order (at most 24 colours, the rest swept after them); either gives the same "
      "results on any number of threads",
      [pgs](Scenario & s) -> auto& { return pgs(s).colouring; }));
  return v;
}

// ---- reading -----------------------------------------------------------------------------

std::string quoted_list(const std::vector<std::string>& names) {
  std::vector<std::string> q;
  for (const std::string& n : names) q.push_back(fmt::format("\"{}\"", n));
  return fmt::format("{}", fmt::join(q, ", "));
}

template <class T>
void read_table(const TomlReader& r, const SettingTable<T>& table, T& target) {
  for (const Setting<T>& s : table.settings) {
    if (!s.required && !r.has(s.key)) continue;
    SettingValue v;
    switch (s.kind) {
      case SettingKind::Number: {
        const double x = r.number(s.key);
        if (!s.range.contains(x))
          r.fail(s.key,
                 fmt::format("must be {}{}", s.range.lo > -kInf && s.range.hi < kInf ? "in " : "",
                             s.range.text()));
        v = x;
        break;
      }
      case SettingKind::Integer: {
        const long x = r.integer(s.key);
        if (!s.range.contains(static_cast<double>(x)))
          r.fail(s.key,
                 fmt::format("must be {}{}", s.range.lo > -kInf && s.range.hi < kInf ? "in " : "",
                             s.range.text()));
        v = x;
        break;
      }
      case SettingKind::Boolean:
        v = r.boolean(s.key, false);
        break;
      case SettingKind::String: {
        // A setting with choices names them when its value is not a string at all (one that
        // was a boolean once, set as `true`); a missing one is reported as missing.
        std::string x;
        try {
          x = r.string(s.key);
        } catch (const ScenarioError&) {
          if (s.choices.empty() || !r.has(s.key)) throw;
          r.fail(s.key, fmt::format("must be one of {}", quoted_list(s.choices)));
        }
        if (!s.choices.empty() &&
            std::find(s.choices.begin(), s.choices.end(), x) == s.choices.end())
          r.fail(s.key, fmt::format("must be one of {}", quoted_list(s.choices)));
        v = std::move(x);
        break;
      }
      case SettingKind::Vec3:
        v = r.vec3(s.key);
        break;
    }
    s.set(target, v);
  }
}

// ---- markdown ----------------------------------------------------------------------------

std::string value_text(const SettingValue& v) {
  if (const double* d = std::get_if<double>(&v)) return setting_number_text(*d);
  if (const long* l = std::get_if<long>(&v)) return fmt::format("{}", *l);
  if (const bool* b = std::get_if<bool>(&v)) return *b ? "true" : "false";
  if (const std::string* s = std::get_if<std::string>(&v)) return fmt::format("\"{}\"", *s);
  const Vec3& x = std::get<Vec3>(v);
  return fmt::format("[{}, {}, {}]", setting_number_text(x.x()), setting_number_text(x.y()),
                     setting_number_text(x.z()));
}

const char* kind_text(SettingKind k) {
  switch (k) {
    case SettingKind::Number:
      return "number";
    case SettingKind::Integer:
      return "integer";
    case SettingKind::Boolean:
      return "boolean";
    case SettingKind::String:
      return "string";
    case SettingKind::Vec3:
      return "[3 numbers]";
  }
  return "";
}

/// A table cell: a literal | would end the cell.
std::string cell(std::string_view text) {
  std::string out;
  for (char c : text) {
    if (c == '|') out += '\\';
    out += c;
  }
  return out;
}

template <class T>
std::string table_markdown(const SettingTable<T>& table) {
  const T defaults{};
  std::string out =
      "| key | type | default | unit | valid | meaning |\n|---|---|---|---|---|---|\n";
  for (const Setting<T>& s : table.settings) {
    std::string valid;
    if (!s.choices.empty()) {
      std::vector<std::string> c;
      for (const std::string& x : s.choices) c.push_back(fmt::format("`{}`", x));
      valid = fmt::format("{}", fmt::join(c, ", "));
    } else if (s.range.bounded()) {
      valid = s.range.text();
    } else if (s.kind == SettingKind::Number || s.kind == SettingKind::Vec3) {
      valid = "finite";
    }
    if (!s.note.empty()) valid += (valid.empty() ? "" : ", ") + std::string(s.note);
    const std::string def =
        s.required ? "required" : fmt::format("`{}`", value_text(s.get(defaults)));
    out += fmt::format("| `{}` | {} | {} | {} | {} | {} |\n", s.key, kind_text(s.kind), cell(def),
                       s.unit, cell(valid), cell(s.doc));
  }
  return out;
}

std::string solvers_markdown() {
  std::string out =
      "| solver | parameters | shapes | friction | contact stiffness | method |\n"
      "|---|---|---|---|---|---|\n";
  for (const SolverInfo& s : solver_registry())
    out += fmt::format("| `{}` | `[simulation.{}]` | {} | {} | {} | {} |\n", s.name,
                       s.settings_table, supported_shapes_text(s), s.friction ? "yes" : "no",
                       s.stiffness ? "yes" : "no", cell(s.summary));
  return out;
}

}  // namespace

const std::vector<SettingTable<Scenario>>& simulation_schema() {
  static const std::vector<SettingTable<Scenario>> tables = [] {
    std::vector<SettingTable<Scenario>> t;
    t.push_back({"simulation", "the time step, duration, gravity, solver and contact treatment",
                 simulation_keys()});
    t.push_back({"simulation.pgs", "parameters of the resting-contact pass", pgs_keys()});
    for (const SolverInfo& s : solver_registry())
      t.push_back({fmt::format("simulation.{}", s.settings_table),
                   fmt::format("parameters of the {} solver", s.name),
                   setting::within(s.settings, &Scenario::settings)});
    return t;
  }();
  return tables;
}

const SettingTable<Scenario>* find_simulation_table(std::string_view name) {
  for (const SettingTable<Scenario>& t : simulation_schema())
    if (t.name == name) return &t;
  return nullptr;
}

const SettingTable<Material>& material_schema() {
  static const SettingTable<Material> table = [] {
    SettingTable<Material> t{"material", "a material, named for bodies and walls", {}};
    t.settings.push_back(required(field<Material>(
        "name", "", any(), "the name bodies, fills and walls refer to",
        [](Material & m) -> auto& { return m.name; }, "non-empty, unique")));
    t.settings.push_back(field<Material>(
        "density", "kg/m³", above(0), "mass density",
        [](Material & m) -> auto& { return m.density; }));
    t.settings.push_back(field<Material>(
        "restitution", "1", closed(0, 1),
        "energetic coefficient of restitution e (Stronge); a pair takes the smaller",
        [](Material & m) -> auto& { return m.restitution; }));
    t.settings.push_back(field<Material>(
        "friction", "1", at_least(0), "Coulomb coefficient μ; a pair takes the geometric mean",
        [](Material & m) -> auto& { return m.friction; }));
    t.settings.push_back(field<Material>(
        "stiffness", "", above(0),
        "contact stiffness K of the LZB solver (only ratios matter; a pair takes the two in "
        "series)",
        [](Material & m) -> auto& { return m.stiffness; }));
    t.settings.push_back(field<Material>(
        "rolling_friction", "1", at_least(0),
        "rolling resistance μ_r: the resting pass bounds the torque opposing a contact's relative "
        "rolling by μ_r R_eff F_n (R_eff = R_A R_B / (R_A + R_B), walls flat; needs "
        "simulation.resting = \"pgs\"); a pair takes the geometric mean; 0 = none",
        [](Material & m) -> auto& { return m.rolling_friction; }));
    return t;
  }();
  return table;
}

const SettingTable<OutputSettings>& output_schema() {
  static const SettingTable<OutputSettings> table = [] {
    SettingTable<OutputSettings> t{"output", "what a run writes and how often", {}};
    t.settings.push_back(field<OutputSettings>(
        "directory", "", any(), "output directory; \"\" = `out/<scenario stem>`; `-o` overrides",
        [](OutputSettings & o) -> auto& { return o.directory; }));
    t.settings.push_back(field<OutputSettings>(
        "every", "", at_least(0), "VTK frame every N steps (and the last step); 0 = no frames",
        [](OutputSettings & o) -> auto& { return o.every; }));
    t.settings.push_back(field<OutputSettings>(
        "state_every", "", at_least(0),
        "`state_SSSSSS.csv` every N steps; the final `state.csv` is always written",
        [](OutputSettings & o) -> auto& { return o.state_every; }));
    t.settings.push_back(field<OutputSettings>(
        "energy_every", "", at_least(1), "`energy.csv` row every N steps (and the last step)",
        [](OutputSettings & o) -> auto& { return o.energy_every; }));
    t.settings.push_back(field<OutputSettings>(
        "vtk", "", any(), "false disables frames whatever `every` says",
        [](OutputSettings & o) -> auto& { return o.vtk; }));
    using Format = OutputSettings::VtkFormat;
    using Compression = OutputSettings::VtkCompression;
    t.settings.push_back(named<OutputSettings, Format>(
        "vtk_format", {{"binary", Format::Binary}, {"ascii", Format::Ascii}},
        "frame files as appended raw binary or as ASCII text (10 significant digits)",
        [](OutputSettings & o) -> auto& { return o.vtk_format; }));
    Setting<OutputSettings> compression = named<OutputSettings, Compression>(
        "vtk_compression", {{"none", Compression::None}, {"zlib", Compression::Zlib}},
        "zlib-compressed binary frames (smaller, slower to write)",
        [](OutputSettings & o) -> auto& { return o.vtk_compression; });
    compression.note = "zlib needs `vtk_format = \"binary\"`";
    t.settings.push_back(std::move(compression));
    t.settings.push_back(field<OutputSettings>(
        "checkpoint_every", "", at_least(0),
        "`checkpoints/checkpoint_SSSSSS.bin` every N steps, to resume with `etdem run --resume`; "
        "0 = none (an interrupted run still writes one)",
        [](OutputSettings & o) -> auto& { return o.checkpoint_every; }));
    t.settings.push_back(field<OutputSettings>(
        "checkpoint_keep", "", at_least(1), "the last K checkpoints are kept, older ones deleted",
        [](OutputSettings & o) -> auto& { return o.checkpoint_keep; }));
    return t;
  }();
  return table;
}

void read_settings(const TomlReader& r, const SettingTable<Scenario>& table, Scenario& target) {
  read_table(r, table, target);
}
void read_settings(const TomlReader& r, const SettingTable<Material>& table, Material& target) {
  read_table(r, table, target);
}
void read_settings(const TomlReader& r, const SettingTable<OutputSettings>& table,
                   OutputSettings& target) {
  read_table(r, table, target);
}

std::vector<std::string> schema_names() {
  std::vector<std::string> names;
  for (const SettingTable<Scenario>& t : simulation_schema()) names.push_back(t.name);
  names.push_back("solvers");
  names.push_back(material_schema().name);
  names.push_back(output_schema().name);
  return names;
}

std::string schema_markdown(std::string_view name) {
  if (name == "solvers") return solvers_markdown();
  if (name == material_schema().name) return table_markdown(material_schema());
  if (name == output_schema().name) return table_markdown(output_schema());
  if (const SettingTable<Scenario>* t = find_simulation_table(name)) return table_markdown(*t);
  throw std::invalid_argument(fmt::format("no settings table '{}'", name));
}

std::string update_schema_blocks(const std::string& doc) {
  static const std::string open_tag = "<!-- schema ", end_tag = "<!-- end schema -->";
  std::string out;
  std::size_t pos = 0;
  while (true) {
    const std::size_t b = doc.find(open_tag, pos);
    if (b == std::string::npos) break;
    const std::size_t name_end = doc.find(" -->", b);
    const std::size_t line_end = doc.find('\n', b);
    if (name_end == std::string::npos || line_end == std::string::npos || name_end > line_end)
      throw std::invalid_argument("a schema marker line must read <!-- schema NAME -->");
    const std::string name = doc.substr(b + open_tag.size(), name_end - b - open_tag.size());
    const std::size_t e = doc.find(end_tag, line_end);
    if (e == std::string::npos)
      throw std::invalid_argument(fmt::format("schema block '{}' is not closed", name));
    out += doc.substr(pos, line_end + 1 - pos);
    out += schema_markdown(name);
    pos = e;
  }
  out += doc.substr(pos);
  return out;
}

}  // namespace etdem
