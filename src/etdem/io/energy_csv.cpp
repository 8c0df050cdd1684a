#include "etdem/io/energy_csv.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "etdem/io/checkpoint.hpp"
#include "etdem/io/scenario_error.hpp"

namespace etdem {

const char* const kEnergyCsvHeader =
    "time,kinetic_translational,kinetic_rotational,potential,elastic,total,restitution,friction,"
    "damping,net_damping,correction,truncation,integration,residual";

double relative_residual(const EnergyLedger& l) {
  const double scale = std::max({std::abs(l.initial), std::abs(l.total()), l.dissipated()});
  return scale > 0.0 ? std::abs(l.residual()) / scale : 0.0;
}

EnergyCsvWriter::EnergyCsvWriter(const std::string& path) : path_(path) {
  file_ = std::fopen(path.c_str(), "w");
  if (!file_) throw InputError(path + ": cannot open for writing");
  fmt::format_to(std::back_inserter(buffer_), "{}\n", kEnergyCsvHeader);
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
  fmt::format_to(std::back_inserter(buffer_),
                 "{:.17g},{:.17g},{:.17g},{:.17g},{:.17g},{:.17g},{:.17g},{:.17g},{:.17g},{:.17g},"
                 "{:.17g},{:.17g},{:.17g},{:.17g}\n",
                 t, l.kinetic_translational, l.kinetic_rotational, l.potential, l.elastic,
                 l.total(), l.restitution, l.friction, l.damping, l.net_damping, l.correction,
                 l.truncation, l.integration, l.residual());
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
  if (!std::getline(in, line) || line != kEnergyCsvHeader)
    throw InputError(path + ":1: unexpected header (expected " + kEnergyCsvHeader + ")");
  std::vector<EnergyRow> rows;
  int ln = 1;
  while (std::getline(in, line)) {
    ++ln;
    if (line.empty()) continue;
    double v[14];
    std::istringstream ss(line);
    std::string cell;
    int k = 0;
    while (k < 14 && std::getline(ss, cell, ',')) {
      char* end = nullptr;
      v[k] = std::strtod(cell.c_str(), &end);
      if (end == cell.c_str()) break;
      ++k;
    }
    if (k != 14) throw InputError(path + ":" + std::to_string(ln) + ": expected 14 numbers");
    EnergyRow r;
    r.time = v[0];
    r.ledger.kinetic_translational = v[1];
    r.ledger.kinetic_rotational = v[2];
    r.ledger.potential = v[3];
    r.ledger.elastic = v[4];
    r.ledger.restitution = v[6];
    r.ledger.friction = v[7];
    r.ledger.damping = v[8];
    r.ledger.net_damping = v[9];
    r.ledger.correction = v[10];
    r.ledger.truncation = v[11];
    r.ledger.integration = v[12];
    // initial = total + dissipated + residual, exactly as written.
    r.ledger.initial = v[5] + r.ledger.dissipated() + v[13];
    rows.push_back(r);
  }
  if (rows.empty()) throw InputError(path + ": no rows");
  return rows;
}

}  // namespace etdem
