#include "etdem/io/energy_csv.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "etdem/io/checkpoint.hpp"
#include "etdem/io/scenario_error.hpp"

namespace etdem {

namespace {

/// energy.csv's columns after time: the stored ones, `total`, the dissipated ones, `residual`.
struct CsvColumns {
  std::vector<const LedgerColumn*> stored, dissipated;
};
const CsvColumns& csv_columns() {
  static const CsvColumns columns = [] {
    CsvColumns c;
    for (const LedgerColumn& l : kLedgerColumns) {
      if (l.kind == LedgerColumn::kStored) c.stored.push_back(&l);
      if (l.kind == LedgerColumn::kDissipated) c.dissipated.push_back(&l);
    }
    return c;
  }();
  return columns;
}

}  // namespace

std::string energy_csv_header() {
  std::string h = "time";
  for (const LedgerColumn* c : csv_columns().stored) h += std::string(",") + c->name;
  h += ",total";
  for (const LedgerColumn* c : csv_columns().dissipated) h += std::string(",") + c->name;
  return h + ",residual";
}

double relative_residual(const EnergyLedger& l) {
  const double scale = std::max({std::abs(l.initial), std::abs(l.total()), l.dissipated()});
  return scale > 0.0 ? std::abs(l.residual()) / scale : 0.0;
}

EnergyCsvWriter::EnergyCsvWriter(const std::string& path) : path_(path) {
  file_ = std::fopen(path.c_str(), "w");
  if (!file_) throw InputError(path + ": cannot open for writing");
  fmt::format_to(std::back_inserter(buffer_), "{}\n", energy_csv_header());
}

std::uint32_t check_energy_csv_prefix(const std::string& path, std::uint64_t keep_bytes,
                                      std::uint32_t keep_crc) {
  const std::string another =
      "; resume into the directory of the run that wrote the checkpoint (-o DIR)";
  std::error_code ec;
  const std::uintmax_t size = std::filesystem::file_size(path, ec);
  if (ec)
    throw InputError(
        fmt::format("{}: --resume: missing: the directory holds no run{}", path, another));
  if (size < keep_bytes)
    throw InputError(fmt::format(
        "{}: --resume: holds {} bytes, the checkpoint's run had written {}: another run{}", path,
        size, keep_bytes, another));
  std::uint32_t crc = 0;
  std::ifstream in(path, std::ios::binary);
  std::string chunk(1 << 20, '\0');
  for (std::uint64_t left = keep_bytes; left > 0;) {
    const auto n = static_cast<std::streamsize>(std::min<std::uint64_t>(left, chunk.size()));
    if (!in.read(chunk.data(), n)) throw InputError(path + ": cannot be read");
    crc = crc32_of(chunk.data(), static_cast<std::size_t>(n), crc);
    left -= static_cast<std::uint64_t>(n);
  }
  if (crc != keep_crc)
    throw InputError(fmt::format(
        "{}: --resume: its first {} bytes are not the ones the checkpoint's run wrote: another "
        "run{}",
        path, keep_bytes, another));
  return crc;
}

EnergyCsvWriter::EnergyCsvWriter(const std::string& path, std::uint64_t keep_bytes,
                                 std::uint32_t keep_crc)
    : path_(path) {
  crc_ = check_energy_csv_prefix(path, keep_bytes, keep_crc);
  std::error_code ec;
  std::filesystem::resize_file(path, keep_bytes, ec);
  if (ec)
    throw InputError(path + ": cannot be shortened to the checkpoint's rows: " + ec.message());
  file_ = std::fopen(path.c_str(), "a");
  if (!file_) throw InputError(path + ": cannot open for writing");
  written_ = keep_bytes;
}

EnergyCsvWriter::~EnergyCsvWriter() {
  flush();
  if (file_) std::fclose(file_);
}

void EnergyCsvWriter::write(double t, const EnergyLedger& l) {
  auto out = std::back_inserter(buffer_);
  fmt::format_to(out, "{:.17g}", t);
  for (const LedgerColumn* c : csv_columns().stored) fmt::format_to(out, ",{:.17g}", l.*c->member);
  fmt::format_to(out, ",{:.17g}", l.total());
  for (const LedgerColumn* c : csv_columns().dissipated)
    fmt::format_to(out, ",{:.17g}", l.*c->member);
  fmt::format_to(out, ",{:.17g}\n", l.residual());
  if (buffer_.size() > (1u << 20)) flush();
}

void EnergyCsvWriter::flush() {
  if (!file_ || buffer_.size() == 0) return;
  const std::size_t n = std::fwrite(buffer_.data(), 1, buffer_.size(), file_);
  const bool short_write = n != buffer_.size();
  crc_ = crc32_of(buffer_.data(), n, crc_);
  written_ += n;
  buffer_.clear();
  std::fflush(file_);
  if (short_write) throw InputError(path_ + ": write failed (disk full?)");
}

std::vector<EnergyRow> read_energy_csv(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw InputError(path + ": cannot open (is this a run directory?)");
  std::string line;
  const std::string header = energy_csv_header();
  if (!std::getline(in, line) || line != header)
    throw InputError(path + ":1: unexpected header (expected " + header + ")");
  const CsvColumns& columns = csv_columns();
  const std::size_t count = 3 + columns.stored.size() + columns.dissipated.size();
  std::vector<EnergyRow> rows;
  int ln = 1;
  while (std::getline(in, line)) {
    ++ln;
    if (line.empty()) continue;
    std::vector<double> v(count);
    std::istringstream ss(line);
    std::string cell;
    std::size_t k = 0;
    while (k < count && std::getline(ss, cell, ',')) {
      char* end = nullptr;
      v[k] = std::strtod(cell.c_str(), &end);
      if (end == cell.c_str()) break;
      ++k;
    }
    if (k != count)
      throw InputError(path + ":" + std::to_string(ln) + ": expected " + std::to_string(count) +
                       " numbers");
    EnergyRow r;
    r.time = v[0];
    std::size_t at = 1;
    for (const LedgerColumn* c : columns.stored) r.ledger.*c->member = v[at++];
    const double total = v[at++];
    for (const LedgerColumn* c : columns.dissipated) r.ledger.*c->member = v[at++];
    // initial = total + dissipated + residual, exactly as written.
    r.ledger.initial = total + r.ledger.dissipated() + v[at];
    rows.push_back(r);
  }
  if (rows.empty()) throw InputError(path + ": no rows");
  return rows;
}

}  // namespace etdem
