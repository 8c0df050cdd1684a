// An island's parts (distributed/island_parts.hpp): written, read back and merged.
#include "etdem/distributed/island_parts.hpp"

#include <algorithm>
#include <tuple>

#include <fmt/format.h>

namespace etdem::distributed {
namespace {

/// A part grain's fields in record order, but its asleep byte (FieldBlock, either way).
template <class B, class G>
void part_grain_fields(B& k, G& g) {
  static_assert(sizeof g.owner == sizeof(std::int32_t));
  auto vec = [&](auto& v) { k.field(v.data(), 3 * sizeof(double)); };
  k.field(&g.gid, sizeof g.gid), k.field(&g.owner, sizeof g.owner);
  vec(g.v), vec(g.w), vec(g.x), k.field(&g.inv_mass, sizeof(double));
  k.field(g.inv_inertia.data(), 9 * sizeof(double));
}

/// A slim grain's fields in record order: its id and its owner.
template <class B, class G>
void slim_grain_fields(B& k, G& g) {
  k.field(&g.gid, sizeof g.gid), k.field(&g.owner, sizeof g.owner);
}

/// The k-th grain of `run`, as put_part_grains wrote it (a slim one: its id and owner only).
PartGrain run_grain(const GrainRun& run, std::size_t k) {
  PartGrain g;
  FieldBlock<const char*> f{run.bytes.data() + k * run.stride};
  if (!run.whole()) {
    slim_grain_fields(f, g);
    return g;
  }
  part_grain_fields(f, g);
  std::int8_t asleep = 0;
  f.field(&asleep, sizeof asleep);
  g.asleep = asleep != 0;
  return g;
}

}  // namespace

void put_part_header(ByteWriter& o, const PartHeader& h) {
  o.put(static_cast<std::int32_t>(h.contacts));
  o.put(static_cast<std::int32_t>(h.kept));
  o.put(static_cast<std::int8_t>(h.asleep ? 1 : 0));
  o.put(static_cast<std::int8_t>(h.awake ? 1 : 0));
  o.put(static_cast<std::int8_t>(h.kind));
  o.put(static_cast<std::int32_t>(h.kept_collisions));
  o.put(static_cast<std::int32_t>(h.kept_groups));
}

void set_part_kind(std::string& part, PartContactsKind kind) {
  if (part.size() <= kPartKindAt)
    throw std::logic_error(fmt::format("an island part of {} bytes has no header", part.size()));
  part[kPartKindAt] = static_cast<char>(kind);
}

PartHeader read_part_header(ByteReader& in) {
  PartHeader h;
  h.contacts = in.get<std::int32_t>();
  h.kept = in.get<std::int32_t>();
  h.asleep = in.get<std::int8_t>() != 0;
  h.awake = in.get<std::int8_t>() != 0;
  const auto kind = in.get<std::int8_t>();
  if (kind < 0 || kind > static_cast<std::int8_t>(PartContactsKind::kLocal))
    throw ByteStreamError("an island part's contacts of kind " + std::to_string(kind));
  h.kind = static_cast<PartContactsKind>(kind);
  h.kept_collisions = in.get<std::int32_t>();
  h.kept_groups = in.get<std::int32_t>();
  if (h.kept_collisions < h.kept_groups || h.kept_collisions > h.kept || h.kept > h.contacts ||
      h.kept_groups < 0)
    throw ByteStreamError(
        fmt::format("an island part of {} contacts keeping {}, of them {} collisions in {} groups",
                    h.contacts, h.kept, h.kept_collisions, h.kept_groups));
  return h;
}

void add_part_header(PartHeader& sum, const PartHeader& h) {
  sum.contacts += h.contacts;
  sum.kept += h.kept;
  sum.kept_collisions += h.kept_collisions;
  sum.kept_groups += h.kept_groups;
  sum.asleep = sum.asleep || h.asleep;
  sum.awake = sum.awake || h.awake;
}

PartHeader island_header(const GatheredIsland& g) {
  PartHeader sum;
  for (const std::string& part : g.parts) {
    ByteReader in(part);
    add_part_header(sum, read_part_header(in));
  }
  return sum;
}

std::size_t put_part_grains(ByteWriter& out, const Bodies& bodies, std::span<const int> grains,
                            const std::vector<std::int64_t>& gid, const std::vector<int>& owner,
                            std::span<const char> read_elsewhere) {
  auto whole = [&](int i) {
    return read_elsewhere.empty() || read_elsewhere[static_cast<std::size_t>(i)] != 0;
  };
  std::size_t count = 0;
  for (int i : grains) count += whole(i) ? 1 : 0;
  const std::size_t slim = grains.size() - count;
  out.reserve(out.bytes().size() + part_grains_bytes(count, slim));
  out.put(static_cast<std::int32_t>(count));
  char record[kPartGrainBytes];
  for (int i : grains) {
    if (!whole(i)) continue;
    const PartGrain g{gid[i],
                      owner[i],
                      bodies.velocity[i],
                      bodies.angular_velocity[i],
                      bodies.position[i],
                      bodies.inv_mass[i],
                      bodies.inv_inertia_world[i],
                      bodies.is_asleep(i)};
    FieldBlock<char*> k{record};
    part_grain_fields(k, g);
    const auto asleep = static_cast<std::int8_t>(g.asleep ? 1 : 0);
    k.field(&asleep, sizeof asleep);
    out.put_bytes(record, kPartGrainBytes);
  }
  out.put(static_cast<std::int32_t>(slim));
  for (int i : grains) {
    if (whole(i)) continue;
    PartGrain g;
    g.gid = gid[i], g.owner = owner[i];
    FieldBlock<char*> k{record};
    slim_grain_fields(k, g);
    out.put_bytes(record, kSlimGrainBytes);
  }
  return slim;
}

void read_part_grains(ByteReader& in, GrainRun* runs) {
  for (const std::size_t stride : {kPartGrainBytes, kSlimGrainBytes}) {
    const auto count = in.get<std::int32_t>();
    if (count < 0 || static_cast<std::size_t>(count) > in.left() / stride)
      throw ByteStreamError(fmt::format("an island part of {} grains", count));
    *runs++ = GrainRun{in.take(static_cast<std::size_t>(count) * stride), stride};
  }
}

void merge_part_grains(std::span<const GrainRun> runs, IslandGrains& h,
                       std::vector<std::size_t>& next, std::int64_t root, int me) {
  std::size_t total = 0;
  for (const GrainRun& run : runs) total += run.size();
  IslandArrays& a = h.state;
  a.resize(total);
  h.gid.resize(total);
  h.owner.resize(total);
  h.asleep.resize(total);
  h.own.clear();
  h.slim.clear();
  std::size_t count = 0;
  next.assign(runs.size(), 0);
  auto take = [&](std::size_t at, const GrainRun& run, std::size_t k) {
    const PartGrain g = run_grain(run, k);
    h.gid[at] = g.gid, h.owner[at] = g.owner, h.asleep[at] = g.asleep ? 1 : 0;
    if (!run.whole()) return;
    a.x[at] = g.x, a.v[at] = g.v, a.w[at] = g.w;
    a.inv_mass[at] = g.inv_mass, a.inv_inertia[at] = g.inv_inertia;
  };
  // Each run's next grain in a heap ordered by (id, slim after whole, run): the least id first,
  // of its copies a whole one before a slim one and the first run's before a later run's. A
  // grain costs log(runs), so an island whose parts come from every rank costs each rank what
  // its grains do, not that times the ranks.
  struct Head {
    std::int64_t gid;
    bool slim;
    std::size_t run;
  };
  auto before = [](const Head& x, const Head& y) {
    return std::tie(x.gid, x.slim, x.run) < std::tie(y.gid, y.slim, y.run);
  };
  std::vector<Head> heads;  // a binary heap, the least at the front
  heads.reserve(runs.size());
  auto sift_down = [&](std::size_t i) {
    for (;;) {
      std::size_t least = i;
      for (const std::size_t c : {2 * i + 1, 2 * i + 2})
        if (c < heads.size() && before(heads[c], heads[least])) least = c;
      if (least == i) return;
      std::swap(heads[i], heads[least]);
      i = least;
    }
  };
  for (std::size_t s = 0; s < runs.size(); ++s)
    if (runs[s].size() > 0) heads.push_back({runs[s].gid(0), !runs[s].whole(), s});
  for (std::size_t i = heads.size() / 2; i-- > 0;) sift_down(i);
  while (!heads.empty()) {
    Head& head = heads.front();
    const std::int64_t least = head.gid;
    const GrainRun& run = runs[head.run];
    const std::size_t k = next[head.run]++;
    if (next[head.run] < run.size()) {  // the run's next grain takes its place
      head.gid = run.gid(next[head.run]);
      if (!(least < head.gid))
        throw std::logic_error(fmt::format(
            "island {}: a part's grains do not ascend by id at grain {}", root, head.gid));
    } else {
      head = heads.back();
      heads.pop_back();
    }
    sift_down(0);
    if (count > 0 && h.gid[count - 1] == least) continue;  // (a whole copy came first)
    take(count, run, k);
    if (!run.whole()) h.slim.push_back(static_cast<int>(count));
    if (h.owner[count] == me) h.own.push_back(static_cast<int>(count));
    ++count;
  }
  a.resize(count);
  h.gid.resize(count);
  h.owner.resize(count);
  h.asleep.resize(count);
}

void take_result(World& w, int l, const GrainResult& r, std::vector<Motion>& motion) {
  Motion& mo = motion[l];
  w.bodies.velocity[l] = r.v;
  w.bodies.angular_velocity[l] = r.w;
  mo.impact_time = r.toi;
  mo.impact_velocity = r.v0;
  mo.free = false;
  if (!(mo.impact_time > 0.0)) mo.impact_time = 0.0, mo.impact_velocity = Vec3::Zero();
  if (r.woke) w.wake_body(l);
}

}  // namespace etdem::distributed
