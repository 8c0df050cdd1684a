// net_NAME.csv: what a barrier is designed for, per written step of a run with [[net]]s
// (docs/scenario.md, "net_NAME.csv").
#pragma once

#include <cstdio>
#include <string>
#include <vector>

namespace etdem {

class World;

/// One file per net, a row per call of write().
class NetCsvWriter {
 public:
  /// Opens DIR/net_NAME.csv for every net of the world (none: writes nothing). With
  /// resume_time >= 0 (a resumed run) the files are continued: rows after that time go.
  NetCsvWriter(const std::string& directory, const World& world, double resume_time = -1.0);
  ~NetCsvWriter();
  NetCsvWriter(const NetCsvWriter&) = delete;
  NetCsvWriter& operator=(const NetCsvWriter&) = delete;
  void write(const World& world);
  void flush();

 private:
  std::vector<std::FILE*> files_;
  std::vector<char> node_;  // per body: a node of some net
};

}  // namespace etdem
