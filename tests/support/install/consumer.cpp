// Loads a scenario with the installed library, steps it and prints what it did:
//   consumer SCENARIO.toml STEPS
#include <cstdio>
#include <cstdlib>
#include <exception>

#include "etdem/core/version.hpp"
#include "etdem/io/scenario.hpp"
#include "etdem/world/world.hpp"

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: consumer SCENARIO.toml STEPS\n");
    return 2;
  }
  try {
    const etdem::Scenario scenario = etdem::load_scenario(argv[1]);
    etdem::World world;
    etdem::build_world(scenario, world);
    world.initialize();
    const long steps = std::atol(argv[2]);
    for (long i = 0; i < steps; ++i) world.step();
    std::printf("etdem %s: %d bodies, %ld steps, t = %g s\n", etdem::version_string(),
                world.bodies.count(), world.step_count(), world.time());
  } catch (const std::exception& e) {
    std::fprintf(stderr, "consumer: %s\n", e.what());
    return 1;
  }
  return 0;
}
