// libFuzzer target: etdem::fuzz::msh (fuzz_targets.hpp).
#include "fuzz_targets.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  etdem::fuzz::msh(data, size);
  return 0;
}
