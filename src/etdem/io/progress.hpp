// A one-line progress report on stderr, refreshed in place with '\r' at most 4 times a second:
// step, simulated time, steps per second and the estimated time left. Silent when stderr is not
// a terminal (logs and test output stay clean).
#pragma once

#include <chrono>

namespace etdem {

class Progress {
 public:
  /// `enabled` is and-ed with isatty(stderr).
  Progress(long total_steps, bool enabled);
  ~Progress();
  void update(long step, double time);
  /// Clears the line (idempotent).
  void finish();

 private:
  using Clock = std::chrono::steady_clock;
  long total_;
  bool enabled_;
  bool shown_ = false;
  Clock::time_point start_, last_;
};

}  // namespace etdem
