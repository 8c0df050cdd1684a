// net_NAME.csv: what a barrier is designed for, per written step of a run with [[net]]s
// (docs/scenario.md, "net_NAME.csv").
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

namespace etdem {

class World;

/// One file per net, a row per call of write().
class NetCsvWriter {
 public:
  /// Opens DIR/net_NAME.csv for every net of the world (none: writes nothing). A resumed run
  /// passes the files' lengths its checkpoint recorded (bytes()): each file is cut back to them
  /// and continued, as energy.csv is; a file shorter than that is an InputError.
  NetCsvWriter(const std::string& directory, const World& world,
               const std::vector<std::uint64_t>* resume_bytes = nullptr);
  ~NetCsvWriter();
  NetCsvWriter(const NetCsvWriter&) = delete;
  NetCsvWriter& operator=(const NetCsvWriter&) = delete;
  void write(const World& world);
  void flush();
  /// Bytes of each file so far (for a checkpoint).
  const std::vector<std::uint64_t>& bytes() const { return bytes_; }

 private:
  std::vector<std::FILE*> files_;
  std::vector<std::uint64_t> bytes_;  // per file: written so far
  std::vector<char> node_;            // per body: a node of some net
};

}  // namespace etdem
