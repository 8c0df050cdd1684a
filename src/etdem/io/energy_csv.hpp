// energy.csv: one row per written step with the time and every term of the energy ledger
// (world/energy_ledger.hpp). `total` is the mechanical energy still in the system; the
// dissipation columns are cumulative, so total + dissipated + residual = the initial energy on
// every row. Full precision (%.17g) so the identity can be checked from the file.
#pragma once

#include <cstdio>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "etdem/world/energy_ledger.hpp"

namespace etdem {

/// The header line, without the newline.
extern const char* const kEnergyCsvHeader;

/// Relative size of a ledger's residual: |residual| / max(|initial|, |total|, dissipated). The
/// potential energy's zero is arbitrary, so no scale is perfect; this one is never smaller than
/// the energy the run actually moved around.
double relative_residual(const EnergyLedger& ledger);

class EnergyCsvWriter {
 public:
  /// Opens (truncates) the file and writes the header; throws InputError when it cannot.
  explicit EnergyCsvWriter(const std::string& path);
  ~EnergyCsvWriter();
  EnergyCsvWriter(const EnergyCsvWriter&) = delete;
  EnergyCsvWriter& operator=(const EnergyCsvWriter&) = delete;

  /// Appends a row (buffered; written out in blocks of ~1 MB and by flush()).
  void write(double time, const EnergyLedger& ledger);
  void flush();

 private:
  std::string path_;
  std::FILE* file_ = nullptr;
  fmt::memory_buffer buffer_;
};

/// One row of energy.csv read back.
struct EnergyRow {
  double time = 0.0;
  EnergyLedger ledger;  // `initial` = total + dissipated + residual of the row
};

/// Reads energy.csv; throws InputError naming the file and line on anything malformed.
std::vector<EnergyRow> read_energy_csv(const std::string& path);

}  // namespace etdem
