// The step's bookkeeping: settings changed between steps are applied (never silently ignored),
// and every phase of the step is timed and counted, per step and over the run.
#include <gtest/gtest.h>

#include "test_world_fixture.hpp"

namespace etdem::test {
namespace {

TEST(WorldStep, SettingsChangedBetweenStepsAreApplied) {
  TestWorld t(0.5, 0.3);
  t.world.settings.gravity = Vec3(0, 0, -9.81);
  t.add_floor();
  t.add_sphere(0.01, Vec3(0, 0, 0.0105));
  t.world.initialize();
  t.steps(3);
  EXPECT_STREQ(t.world.solver().name(), "etm");
  t.world.settings.solver = "sqm";
  t.world.settings.dt = 0.5e-3;
  const double before = t.world.time();
  t.world.step();
  EXPECT_STREQ(t.world.solver().name(), "sqm");
  EXPECT_DOUBLE_EQ(t.world.time() - before, 0.5e-3);
  // The resting pass was rebuilt with the new step: a sphere resting on the floor stays there
  // (its speculative target -g/dt uses the dt it runs with).
  t.steps(200);
  EXPECT_NEAR(t.world.bodies.position[1].z(), 0.01, 1e-4);
  // An unknown name is refused at the next step, not ignored.
  t.world.settings.solver = "no-such-solver";
  EXPECT_THROW(t.world.step(), std::invalid_argument);
}

TEST(WorldStep, EveryPhaseIsTimedAndCounted) {
  TestWorld t(0.5, 0.3);
  t.world.settings.gravity = Vec3(0, 0, -9.81);
  t.add_floor();
  t.add_sphere(0.01, Vec3(0, 0, 0.05));
  t.world.initialize();
  t.steps(10);
  const StepProfile& run = t.world.profile();
  const StepProfile& last = t.world.last_profile();
  EXPECT_EQ(run.steps, 10);
  EXPECT_EQ(last.steps, 1);
  for (int k = 0; k < StepProfile::kPhases; ++k) {
    // The checks: the pair count, the spin and missed pairs after the solve, NaN.
    const long per_step = k == StepProfile::Checks ? 3 : 1;
    EXPECT_EQ(run.calls[k], 10 * per_step) << StepProfile::kNames[k];
    EXPECT_EQ(last.calls[k], per_step) << StepProfile::kNames[k];
    EXPECT_GE(run.seconds[k], last.seconds[k]);
  }
  EXPECT_GT(run.total(), 0.0);
}

}  // namespace
}  // namespace etdem::test
