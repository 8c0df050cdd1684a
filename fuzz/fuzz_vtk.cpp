// libFuzzer target: etdem::fuzz::vtk (fuzz_targets.hpp).
#include "fuzz_targets.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  etdem::fuzz::vtk(data, size);
  return 0;
}
