// What a checkpoint holds of the world: every piece of state one step hands to the next, as
// named sections (docs/design.md "Checkpoints"). The file around them (header, checksum, the
// run's output sections) is io/checkpoint.hpp's.
//
// Adding state that lives from one step to the next (a net's links, a persistent broad-phase
// list, a sleeping island) means adding its section to the table in world_checkpoint.cpp: a
// name, a save and a load function, nothing else. The test that resumes runs at several steps
// (tests/io/test_checkpoint.cpp) fails when state is forgotten; a change of a section's layout
// raises kCheckpointFormat (io/checkpoint.hpp).
#pragma once

#include <span>

#include "etdem/core/byte_stream.hpp"

namespace etdem {

class World;

struct WorldSection {
  const char* name;  // unique, [a-z_]; the file's section tag
  void (*save)(const World& world, ByteWriter& out);
  /// Restores the section into a world built from the same scenario and initialised; throws
  /// ByteStreamError for bytes that end early, std::invalid_argument for state that does not
  /// fit the world (another body count, another shape).
  void (*load)(World& world, ByteReader& in);
};

/// The world's sections in the order they are written and read.
std::span<const WorldSection> world_sections();

}  // namespace etdem
