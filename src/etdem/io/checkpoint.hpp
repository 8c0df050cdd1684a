// Checkpoint files (docs/scenario.md "Checkpoints", docs/design.md "Checkpoints"): everything
// the next step of a run needs, so that a resumed run ends in the same bytes as one that never
// stopped.
//
//   "ETDEMCKP"            8 bytes, magic
//   format                u32, kCheckpointFormat
//   etdem version         string (u64 length + bytes)
//   scenario hash         u64, Scenario::content_hash (content after --set overrides)
//   step                  u64, steps done
//   sections              u32 count, then per section: name (string), length (u64), bytes
//   crc32                 u32, zlib's CRC-32 of every byte before it
//
// The world's sections come from world/world_checkpoint.cpp (one table), the run's own (its
// output files: energy.csv written so far, the frames listed) from io/run.cpp. Files are
// written to NAME.tmp, flushed to the disk (fsync) and renamed, so a crash leaves either the
// old set of checkpoints or the new one, never half a file.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace etdem {

class World;

/// Raised whenever a section's layout changes or one is added or removed.
inline constexpr std::uint32_t kCheckpointFormat = 3;

struct CheckpointSection {
  std::string name;
  std::string bytes;
};

struct Checkpoint {
  std::string path;  // for messages
  std::uint64_t scenario_hash = 0;
  long step = 0;
  std::vector<CheckpointSection> sections;

  /// The section named `name`; throws InputError naming the file when there is none.
  const CheckpointSection& section(const std::string& name) const;
  bool has(const std::string& name) const;
};

/// The world's sections (world/world_checkpoint.hpp), in table order.
std::vector<CheckpointSection> world_checkpoint_sections(const World& world);

/// Writes `sections` to `path` atomically (temporary file, fsync, rename). Throws InputError
/// naming the file when it cannot.
void write_checkpoint(const std::string& path, std::uint64_t scenario_hash, long step,
                      const std::vector<CheckpointSection>& sections);

/// Reads and checks a checkpoint: magic, format, etdem version, checksum, and that it was
/// written for the scenario whose content hash is `scenario_hash` (`scenario_file` names it in
/// the message). Throws InputError "PATH: reason" for anything else.
Checkpoint read_checkpoint(const std::string& path, std::uint64_t scenario_hash,
                           const std::string& scenario_file);

/// Restores every world section into `world` (built from the checkpoint's scenario and
/// initialised). Throws InputError naming the file and the section.
void restore_world(const Checkpoint& checkpoint, World& world);

/// DIR/checkpoints/checkpoint_SSSSSS.bin (at least six digits).
std::string checkpoint_path(const std::string& run_directory, long step);

/// Deletes all but the `keep` latest checkpoint_*.bin in `checkpoint_directory` (and stray .tmp
/// files of an interrupted write).
void prune_checkpoints(const std::string& checkpoint_directory, long keep);

/// zlib's CRC-32 of `bytes`, continuing `crc`.
std::uint32_t crc32_of(const char* bytes, std::size_t n, std::uint32_t crc = 0);

}  // namespace etdem
