// A scoped timer that adds its wall time to one entry of a profile.
#pragma once

#include <chrono>

namespace etdem {

/// Adds the wall time from its start to its stop (or its end) to entry `index` of a profile
/// (any type with `seconds` and `calls` arrays: StepProfile's phases, StageProfile's stages),
/// and counts one call; with no profile (null) it reads no clock.
template <class Profile>
class ProfileTimer {
 public:
  ProfileTimer(Profile* profile, int index) : p_(profile), index_(index) {
    if (p_) t0_ = Clock::now();
  }
  ~ProfileTimer() { stop(); }
  ProfileTimer(const ProfileTimer&) = delete;
  ProfileTimer& operator=(const ProfileTimer&) = delete;
  void stop() {
    if (!p_) return;
    p_->seconds[index_] += std::chrono::duration<double>(Clock::now() - t0_).count();
    ++p_->calls[index_];
    p_ = nullptr;
  }

 private:
  using Clock = std::chrono::steady_clock;
  Profile* p_;
  int index_;
  Clock::time_point t0_{};
};

}  // namespace etdem
