// A scoped timer that adds its wall time to one entry of a profile.
#pragma once

#include <chrono>

namespace etdem {

/// Adds the wall time from its start to its stop (or its end) to entry `index` of a profile
/// (any type with `seconds` and `calls` arrays: StepProfile's phases, StageProfile's stages),
/// and counts one call; with no profile (null) it reads no clock. A profile with transfer
/// totals (StageProfile on a rank of a split run) also gets the entry's share of them.
template <class Profile>
class ProfileTimer {
 public:
  ProfileTimer(Profile* profile, int index) : p_(profile), index_(index) {
    if (!p_) return;
    if constexpr (kTransfers)
      if (p_->transfers.seconds) seconds0_ = *p_->transfers.seconds, bytes0_ = *p_->transfers.bytes;
    t0_ = Clock::now();
  }
  ~ProfileTimer() { stop(); }
  ProfileTimer(const ProfileTimer&) = delete;
  ProfileTimer& operator=(const ProfileTimer&) = delete;
  void stop() {
    if (!p_) return;
    p_->seconds[index_] += std::chrono::duration<double>(Clock::now() - t0_).count();
    ++p_->calls[index_];
    if constexpr (kTransfers)
      if (p_->transfers.seconds) {
        p_->transferring[index_] += *p_->transfers.seconds - seconds0_;
        p_->sent[index_] += *p_->transfers.bytes - bytes0_;
      }
    p_ = nullptr;
  }

 private:
  using Clock = std::chrono::steady_clock;
  /// A profile that also counts its entries' time and bytes in a transport (StageProfile).
  static constexpr bool kTransfers = requires(Profile & p) { p.transfers.seconds; };
  Profile* p_;
  int index_;
  Clock::time_point t0_{};
  double seconds0_ = 0.0;
  long bytes0_ = 0;
};

}  // namespace etdem
