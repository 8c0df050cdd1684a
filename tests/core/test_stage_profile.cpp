// The stage profile and its timer (core/stage_profile.hpp, core/profile_timer.hpp): what a timer
// adds to a profile, and when.
#include <gtest/gtest.h>

#include <chrono>
#include <cstring>
#include <set>
#include <string>
#include <thread>

#include "etdem/core/stage_profile.hpp"

namespace etdem::test {
namespace {

TEST(StageProfile, EveryStageHasOneNameOfItsOwn) {
  std::set<std::string> names;
  for (const char* name : StageProfile::kNames) {
    ASSERT_NE(name, nullptr);
    EXPECT_GT(std::strlen(name), 0u);
    names.insert(name);
  }
  EXPECT_EQ(names.size(), static_cast<std::size_t>(StageProfile::kStages));
  EXPECT_STREQ(StageProfile::kNames[StageProfile::WorldRebuild], "world_rebuild");
}

TEST(StageTimer, AddsItsWallTimeOnceToItsStageAlone) {
  StageProfile p;
  {
    StageTimer t(&p, StageProfile::RestingSweeps);
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
    t.stop();
    const double after_stop = p.seconds[StageProfile::RestingSweeps];
    EXPECT_GE(after_stop, 0.002);  // a steady clock: at least the time slept
    EXPECT_EQ(p.calls[StageProfile::RestingSweeps], 1);
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
    t.stop();  // stopped already: adds nothing, nor does its end
    EXPECT_EQ(p.seconds[StageProfile::RestingSweeps], after_stop);
  }
  EXPECT_EQ(p.calls[StageProfile::RestingSweeps], 1);
  { const StageTimer t(&p, StageProfile::RestingSweeps); }  // stopped by its end
  EXPECT_EQ(p.calls[StageProfile::RestingSweeps], 2);
  for (int k = 0; k < StageProfile::kStages; ++k) {
    if (k == StageProfile::RestingSweeps) continue;
    EXPECT_EQ(p.seconds[k], 0.0) << StageProfile::kNames[k];
    EXPECT_EQ(p.calls[k], 0) << StageProfile::kNames[k];
  }
  // Without a profile nothing is timed (and nothing is written anywhere).
  StageTimer none(nullptr, StageProfile::RestingSweeps);
  none.stop();
  EXPECT_EQ(p.calls[StageProfile::RestingSweeps], 2);
}

}  // namespace
}  // namespace etdem::test
