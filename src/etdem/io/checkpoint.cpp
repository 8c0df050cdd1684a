#include "etdem/io/checkpoint.hpp"

#include <fcntl.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include <fmt/format.h>

#include "etdem/core/byte_stream.hpp"
#include "etdem/core/version.hpp"
#include "etdem/io/scenario_error.hpp"
#include "etdem/world/world_checkpoint.hpp"

namespace etdem {
namespace fs = std::filesystem;
namespace {

constexpr char kMagic[8] = {'E', 'T', 'D', 'E', 'M', 'C', 'K', 'P'};
constexpr std::uint64_t kMaxCheckpointBytes = std::uint64_t{1} << 36;  // 64 GiB

/// The step number of a file named checkpoint_SSSSSS.bin, -1 for any other name.
long checkpoint_step(const std::string& name) {
  if (!name.starts_with("checkpoint_") || !name.ends_with(".bin")) return -1;
  const std::string digits = name.substr(11, name.size() - 15);
  if (digits.empty() || digits.size() > 18 ||
      digits.find_first_not_of("0123456789") != std::string::npos)
    return -1;
  return std::stol(digits);
}

}  // namespace

std::uint32_t crc32_of(const char* bytes, std::size_t n, std::uint32_t crc) {
  uLong c = crc;
  while (n > 0) {  // zlib takes a uInt length
    const auto chunk = static_cast<uInt>(std::min<std::size_t>(n, 1u << 30));
    c = crc32(c, reinterpret_cast<const Bytef*>(bytes), chunk);
    bytes += chunk;
    n -= chunk;
  }
  return static_cast<std::uint32_t>(c);
}

const CheckpointSection& Checkpoint::section(const std::string& name) const {
  for (const CheckpointSection& s : sections)
    if (s.name == name) return s;
  throw InputError(fmt::format("{}: checkpoint has no section '{}'", path, name));
}

bool Checkpoint::has(const std::string& name) const {
  return std::any_of(sections.begin(), sections.end(),
                     [&](const CheckpointSection& s) { return s.name == name; });
}

std::vector<CheckpointSection> world_checkpoint_sections(const World& world) {
  std::vector<CheckpointSection> out;
  for (const WorldSection& s : world_sections()) {
    ByteWriter w;
    s.save(world, w);
    out.push_back({s.name, w.take()});
  }
  return out;
}

void write_checkpoint(const std::string& path, std::uint64_t scenario_hash, long step,
                      const std::vector<CheckpointSection>& sections) {
  ByteWriter w;
  for (char c : kMagic) w.put(c);
  w.put(kCheckpointFormat);
  w.put(version_string());
  w.put(scenario_hash);
  w.put(static_cast<std::uint64_t>(step));
  w.put(static_cast<std::uint32_t>(sections.size()));
  for (const CheckpointSection& s : sections) {
    w.put(s.name);
    w.put(s.bytes);
  }
  std::string bytes = w.take();
  const std::uint32_t crc = crc32_of(bytes.data(), bytes.size());
  bytes.append(reinterpret_cast<const char*>(&crc), sizeof crc);

  const std::string tmp = path + ".tmp";
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) throw InputError(fmt::format("{}: cannot be written", tmp));
  std::size_t done = 0;
  bool ok = true;
  while (done < bytes.size()) {
    const ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n <= 0) {
      ok = false;
      break;
    }
    done += static_cast<std::size_t>(n);
  }
  ok = ok && ::fsync(fd) == 0;
  ok = ::close(fd) == 0 && ok;
  if (!ok || std::rename(tmp.c_str(), path.c_str()) != 0) {
    std::error_code ec;
    fs::remove(tmp, ec);
    throw InputError(fmt::format("{}: cannot be written (disk full?)", path));
  }
  // The rename itself reaches the disk with the directory.
  const std::string dir = fs::path(path).parent_path().string();
  const int dfd = ::open(dir.empty() ? "." : dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dfd >= 0) {
    ::fsync(dfd);
    ::close(dfd);
  }
}

Checkpoint read_checkpoint(const std::string& path, std::uint64_t scenario_hash,
                           const std::string& scenario_file) {
  std::error_code ec;
  if (!fs::is_regular_file(path, ec))
    throw InputError(fmt::format("{}: --resume: no such checkpoint file", path));
  const std::uintmax_t size = fs::file_size(path, ec);
  if (ec || size > kMaxCheckpointBytes)
    throw InputError(fmt::format("{}: --resume: cannot be read", path));
  std::ifstream in(path, std::ios::binary);
  std::string bytes(size, '\0');
  if (!in.read(bytes.data(), static_cast<std::streamsize>(size)))
    throw InputError(fmt::format("{}: --resume: cannot be read", path));
  auto bad = [&](const std::string& why) {
    return InputError(fmt::format("{}: --resume: {}", path, why));
  };
  if (size < sizeof kMagic + 4 || !std::equal(kMagic, kMagic + 8, bytes.data()))
    throw bad("not an etdem checkpoint");
  std::uint32_t crc = 0;
  std::memcpy(&crc, bytes.data() + size - 4, 4);
  if (crc32_of(bytes.data(), size - 4) != crc)
    throw bad("checksum mismatch (the file is truncated or corrupted)");
  Checkpoint ck;
  ck.path = path;
  try {
    ByteReader r(std::string_view(bytes).substr(0, size - 4));
    for (int k = 0; k < 8; ++k) (void)r.get<char>();
    const auto format = r.get<std::uint32_t>();
    if (format != kCheckpointFormat)
      throw bad(fmt::format("checkpoint format {}, this etdem reads format {}", format,
                            kCheckpointFormat));
    std::string version;
    r.get(version);
    if (version != version_string())
      throw bad(fmt::format("written by etdem {}, this is etdem {}", version, version_string()));
    const auto hash = r.get<std::uint64_t>();
    if (hash != scenario_hash)
      throw bad(fmt::format(
          "written for another scenario (content hash {:016x}; {} with these --set values has "
          "{:016x})",
          hash, scenario_file, scenario_hash));
    ck.scenario_hash = hash;
    ck.step = static_cast<long>(r.get<std::uint64_t>());
    const auto n = r.get<std::uint32_t>();
    for (std::uint32_t k = 0; k < n; ++k) {
      CheckpointSection s;
      r.get(s.name);
      r.get(s.bytes);
      ck.sections.push_back(std::move(s));
    }
    if (!r.done()) throw bad("bytes after the last section");
  } catch (const ByteStreamError& e) {
    throw bad(fmt::format("truncated or corrupted ({})", e.what()));
  }
  return ck;
}

void restore_world(const Checkpoint& ck, World& world) {
  for (const WorldSection& s : world_sections()) {
    ByteReader r(ck.section(s.name).bytes);
    try {
      s.load(world, r);
      if (!r.done()) throw ByteStreamError("longer than this etdem writes it");
    } catch (const ByteStreamError& e) {
      throw InputError(fmt::format("{}: --resume: section '{}': {}", ck.path, s.name, e.what()));
    } catch (const std::invalid_argument& e) {
      throw InputError(fmt::format("{}: --resume: section '{}': {}", ck.path, s.name, e.what()));
    }
  }
}

std::string checkpoint_path(const std::string& run_directory, long step) {
  return (fs::path(run_directory) / "checkpoints" / fmt::format("checkpoint_{:06d}.bin", step))
      .string();
}

void prune_checkpoints(const std::string& dir, long keep) {
  std::vector<std::pair<long, fs::path>> found;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    const std::string name = e.path().filename().string();
    if (name.starts_with("checkpoint_") && name.ends_with(".bin.tmp")) {
      fs::remove(e.path(), ec);
      continue;
    }
    if (const long step = checkpoint_step(name); step >= 0) found.emplace_back(step, e.path());
  }
  std::sort(found.begin(), found.end());
  for (std::size_t k = 0; k + static_cast<std::size_t>(std::max(keep, 1L)) < found.size(); ++k)
    fs::remove(found[k].second, ec);
}

}  // namespace etdem
