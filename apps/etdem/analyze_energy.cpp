// `etdem analyze energy DIR`: the energy ledger at the end of a run's energy.csv and the largest
// relative residual over its rows; the ledger printed as `etdem run` prints it.
#include <string>

#include <fmt/format.h>

#include "commands.hpp"
#include "etdem/io/energy_csv.hpp"
#include "etdem/world/energy_ledger.hpp"

namespace etdem::cli {

void print_ledger(const EnergyLedger& l) {
  fmt::print(
      "energy [J]: initial {:.6g}, final total {:.6g} (kinetic {:.6g} + {:.6g} rotational, "
      "potential {:.6g}, elastic {:.6g})\n",
      l.initial, l.total(), l.kinetic_translational, l.kinetic_rotational, l.potential, l.elastic);
  std::string dissipated;
  for (const LedgerColumn& c : kLedgerColumns)
    if (c.kind == LedgerColumn::kDissipated)
      dissipated += fmt::format("{}{} {:.6g}", dissipated.empty() ? "" : ", ", c.name, l.*c.member);
  fmt::print("dissipated [J]: {}; residual {:.3g} (relative {:.3g})\n", dissipated, l.residual(),
             relative_residual(l));
}

int analyze_energy(const std::string& dir) {
  const auto rows = read_energy_csv(dir + "/energy.csv");
  double worst = 0.0, worst_time = 0.0;
  for (const EnergyRow& r : rows) {
    const double rel = relative_residual(r.ledger);
    if (rel > worst) worst = rel, worst_time = r.time;
  }
  fmt::print("energy.csv: {} rows, t = {:.6g} .. {:.6g} s\n", rows.size(), rows.front().time,
             rows.back().time);
  print_ledger(rows.back().ledger);
  fmt::print("max relative residual: {:.3g} at t = {:.6g} s\n", worst, worst_time);
  return kExitOk;
}

}  // namespace etdem::cli
