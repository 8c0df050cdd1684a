// energy.csv: one row per written step with the time and every term of the energy ledger
// (world/energy_ledger.hpp). `total` is the mechanical energy still in the system; the
// dissipation columns are cumulative, so total + dissipated + residual = the initial energy on
// every row. Full precision (%.17g) so the identity can be checked from the file.
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "etdem/world/energy_ledger.hpp"

namespace etdem {

/// The header line, without the newline.
std::string energy_csv_header();

/// Relative size of a ledger's residual: |residual| / max(|initial|, |total|, dissipated). The
/// potential energy's zero is arbitrary, so no scale is perfect; this one is never smaller than
/// the energy the run actually moved around.
double relative_residual(const EnergyLedger& ledger);

class EnergyCsvWriter {
 public:
  /// Opens (truncates) the file and writes the header; throws InputError when it cannot.
  explicit EnergyCsvWriter(const std::string& path);
  /// Continues a file a checkpointed run wrote: keeps its first `keep_bytes` bytes (the rows up
  /// to the checkpoint) and appends after them. Throws InputError, before changing anything,
  /// when the file is missing, shorter, or its first bytes' CRC-32 is not `keep_crc` (the
  /// directory holds another run).
  EnergyCsvWriter(const std::string& path, std::uint64_t keep_bytes, std::uint32_t keep_crc);
  ~EnergyCsvWriter();
  EnergyCsvWriter(const EnergyCsvWriter&) = delete;
  EnergyCsvWriter& operator=(const EnergyCsvWriter&) = delete;

  /// Appends a row (buffered; written out in blocks of ~1 MB and by flush()).
  void write(double time, const EnergyLedger& ledger);
  void flush();
  /// Bytes of the file so far, header and buffered rows included.
  std::uint64_t bytes() const { return written_ + buffer_.size(); }
  /// CRC-32 of the bytes flushed so far (after flush(): of the whole file), which a checkpoint
  /// records to recognise the file when a run resumes.
  std::uint32_t crc() const { return crc_; }

 private:
  std::string path_;
  std::FILE* file_ = nullptr;
  fmt::memory_buffer buffer_;
  std::uint64_t written_ = 0;  // bytes flushed to the file
  std::uint32_t crc_ = 0;      // of those bytes
};

/// Checks that the file's first `keep_bytes` bytes have the CRC-32 `keep_crc` (a checkpoint's
/// record of the energy.csv its run had written); throws InputError "PATH: --resume: ..." when
/// the file is missing, shorter or different (another run). Returns the CRC.
std::uint32_t check_energy_csv_prefix(const std::string& path, std::uint64_t keep_bytes,
                                      std::uint32_t keep_crc);

/// One row of energy.csv read back.
struct EnergyRow {
  double time = 0.0;
  EnergyLedger ledger;  // `initial` = total + dissipated + residual of the row
};

/// Reads energy.csv; throws InputError naming the file and line on anything malformed.
std::vector<EnergyRow> read_energy_csv(const std::string& path);

}  // namespace etdem
