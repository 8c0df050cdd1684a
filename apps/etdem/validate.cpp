// `etdem validate`: the papers' quick cases (validation/cases.hpp) run through the library and
// printed as a table, or as JSON with --json. Exit 0 when every number is within its tolerance.
#include <chrono>
#include <cmath>
#include <cstdio>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "commands.hpp"
#include "etdem/io/scenario_error.hpp"
#include "etdem/validation/cases.hpp"
#include "validate_long.hpp"

namespace etdem::cli {

int validate(const ValidateOptions& options) {
  using validation::Check;
  std::vector<validation::Case> all = validation::cases();
  for (validation::Case& c : long_cases(options.jobs)) all.push_back(std::move(c));
  bool known = options.only.empty();
  for (const validation::Case& c : all) known = known || c.id == options.only;
  if (!known) throw InputError(fmt::format("etdem validate: --only: no case '{}'", options.only));
  nlohmann::json cases = nlohmann::json::array();
  long checks = 0, failed = 0, reported_rows = 0;
  const auto t0 = std::chrono::steady_clock::now();
  if (!options.json)
    fmt::print("{:<13} {:<66} {:>13} {:>13} {:>10} {}\n", "case", "quantity", "paper", "etdem",
               "tolerance", "result");
  for (const validation::Case& c : all) {
    // A long case runs with --long, or when --only names it.
    if (c.long_case && !options.long_cases && options.only.empty()) continue;
    if (!options.only.empty() && c.id != options.only) continue;
    const auto c0 = std::chrono::steady_clock::now();
    const std::vector<Check> results = c.run();
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - c0).count();
    nlohmann::json jc = {{"id", c.id}, {"title", c.title}, {"seconds", seconds}};
    nlohmann::json jchecks = nlohmann::json::array();
    bool case_pass = true;
    for (const Check& k : results) {
      const bool pass = k.pass(options.tolerance_scale);
      const bool reported = k.kind == Check::Kind::Reported;
      checks += !reported;
      reported_rows += reported;
      failed += !pass;
      case_pass = case_pass && pass;
      const char* relation = k.kind == Check::Kind::Near    ? "near"
                             : k.kind == Check::Kind::Below ? "at most"
                             : reported                     ? "reported"
                                                            : "at least";
      const double tol = k.kind == Check::Kind::Near ? k.tolerance * options.tolerance_scale : 0.0;
      jchecks.push_back({{"quantity", k.quantity},
                         {"paper", k.paper},
                         {"ours", std::isfinite(k.ours) ? nlohmann::json(k.ours) : nullptr},
                         {"relation", relation},
                         {"tolerance", tol},
                         {"pass", reported ? nlohmann::json(nullptr) : nlohmann::json(pass)},
                         {"note", k.note}});
      if (!options.json) {
        const std::string tolerance = k.kind == Check::Kind::Near    ? fmt::format("{:.3g}", tol)
                                      : k.kind == Check::Kind::Below ? "<= paper"
                                      : reported                     ? "none"
                                                                     : ">= paper";
        fmt::print("{:<13} {:<66} {:>13.6g} {:>13.6g} {:>10} {}\n", c.id, k.quantity, k.paper,
                   k.ours, tolerance,
                   reported ? "open"
                   : pass   ? "pass"
                            : "FAIL");
      }
    }
    std::fflush(stdout);  // a case's rows as soon as it ends (long cases take minutes)
    jc["pass"] = case_pass;
    jc["checks"] = jchecks;
    cases.push_back(jc);
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (options.json) {
    nlohmann::json j = {{"pass", failed == 0}, {"checks", checks},
                        {"failed", failed},    {"reported", reported_rows},
                        {"seconds", seconds},  {"long", options.long_cases},
                        {"cases", cases}};
    fmt::print("{}\n", j.dump(2));
  } else {
    fmt::print(
        "{} of {} checks pass ({} failed{}) in {:.1f} s\n", checks - failed, checks, failed,
        reported_rows > 0 ? fmt::format("; {} reported without a verdict", reported_rows) : "",
        seconds);
  }
  return failed == 0 ? kExitOk : kExitFailure;
}

}  // namespace etdem::cli
