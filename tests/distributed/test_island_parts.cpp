// An island's parts as the ranks of a split run send them (distributed/island_parts.hpp): a
// part's header reads back as written and its kind changes in place; grains written whole read
// back bit for bit, slim ones as their id and owner alone (the merge leaves their state as it
// was); the parts of one island merge ascending by global id, a grain
// several ranks sent taken once (the first whole copy, else the first slim one; from two parts
// or from forty-eight), with the merging rank's own grains and the
// grains that came slim only listed; a part whose grains do not ascend is refused.
#include <gtest/gtest.h>

#include <array>
#include <cstring>

#include "etdem/distributed/island_parts.hpp"
#include "random_bodies.hpp"

namespace etdem::distributed {
namespace {

using test::random_bodies;

/// The same bits (a copy read back must not round).
template <class T>
bool same_bits(const T& a, const T& b) {
  return std::memcmp(&a, &b, sizeof(T)) == 0;
}

/// A part's two runs of grains read back from `bytes` (which they view).
std::array<GrainRun, 2> runs_of(const std::string& bytes) {
  ByteReader in(bytes);
  std::array<GrainRun, 2> runs;
  read_part_grains(in, runs.data());
  return runs;
}

TEST(IslandParts, AHeaderReadsBackAsWrittenAndItsKindChangesInPlace) {
  ByteWriter out;
  put_part_header(out, PartHeader{1234, 56, true, false, PartContactsKind::kSome, 9, 4});
  out.put(std::int32_t{7});
  std::string bytes = out.take();
  EXPECT_EQ(bytes.size(), kPartHeaderBytes + sizeof(std::int32_t));
  set_part_kind(bytes, PartContactsKind::kLocal);
  ByteReader in(bytes);
  const PartHeader h = read_part_header(in);
  EXPECT_EQ(h.contacts, 1234);
  EXPECT_EQ(h.kept, 56);
  EXPECT_TRUE(h.asleep);
  EXPECT_FALSE(h.awake);
  EXPECT_EQ(h.kind, PartContactsKind::kLocal);
  EXPECT_EQ(h.kept_collisions, 9);
  EXPECT_EQ(h.kept_groups, 4);
  EXPECT_EQ(in.get<std::int32_t>(), 7);  // what follows the header is untouched
  // An unknown kind is refused; a part too short for a header takes no kind.
  bytes[kPartKindAt] = 9;
  ByteReader bad(bytes);
  EXPECT_THROW(read_part_header(bad), ByteStreamError);
  std::string shorter(kPartKindAt, '\0');
  EXPECT_THROW(set_part_kind(shorter, PartContactsKind::kWhole), std::logic_error);
  // Counts that cannot be (more kept collisions than kept contacts, more groups than
  // collisions) are refused.
  for (const PartHeader& wrong : {PartHeader{10, 4, false, true, PartContactsKind::kSome, 5, 1},
                                  PartHeader{10, 4, false, true, PartContactsKind::kSome, 2, 3}}) {
    ByteWriter o;
    put_part_header(o, wrong);
    const std::string text = o.take();
    ByteReader r(text);
    EXPECT_THROW(read_part_header(r), ByteStreamError);
  }
}

TEST(IslandParts, AnIslandsHeadersSumOverItsParts) {
  GatheredIsland g{5, {0, 2}, {}};
  for (const PartHeader& h : {PartHeader{10, 4, true, false, PartContactsKind::kWhole, 3, 2},
                              PartHeader{7, 0, false, true, PartContactsKind::kSome}}) {
    ByteWriter out;
    put_part_header(out, h);
    g.parts.push_back(out.take());
  }
  const PartHeader sum = island_header(g);
  EXPECT_EQ(sum.contacts, 17);
  EXPECT_EQ(sum.kept, 4);
  EXPECT_EQ(sum.kept_collisions, 3);
  EXPECT_EQ(sum.kept_groups, 2);
  EXPECT_TRUE(sum.asleep);
  EXPECT_TRUE(sum.awake);
}

TEST(IslandParts, GrainsReadBackWholeBitForBitAndSlimByTheirIdAndOwner) {
  constexpr int kGrains = 40;
  const Bodies b = random_bodies(kGrains, 3);
  std::vector<std::int64_t> gid(kGrains);
  std::vector<int> owner(kGrains), grains(kGrains);
  std::vector<char> read_elsewhere(kGrains);
  for (int i = 0; i < kGrains; ++i) {
    gid[i] = 10 + 3 * i;  // ascending with the local ids
    owner[i] = i % 2;
    grains[i] = i;
    read_elsewhere[i] = i % 4 != 1 ? 1 : 0;  // a quarter read by the sender alone: slim
  }
  ByteWriter out;
  EXPECT_EQ(put_part_grains(out, b, grains, gid, owner, read_elsewhere), 10u);
  const std::string bytes = out.take();
  EXPECT_EQ(bytes.size(), part_grains_bytes(30, 10));
  ByteReader in(bytes);
  GrainRun runs[2];
  read_part_grains(in, runs);
  EXPECT_TRUE(in.done());
  EXPECT_EQ(runs[0].size(), 30u);
  EXPECT_EQ(runs[1].size(), 10u);
  IslandGrains h;
  // The merge's arrays as a former island left them: a slim grain's state keeps these bits.
  const Vec3 stale(-7.0, 8.0, -9.0);
  h.state.resize(kGrains);
  for (int k = 0; k < kGrains; ++k) h.state.x[k] = h.state.v[k] = stale;
  std::vector<std::size_t> next;
  merge_part_grains(runs, h, next, gid[0], 1);
  ASSERT_EQ(h.gid.size(), static_cast<std::size_t>(kGrains));
  const IslandArrays& a = h.state;
  std::vector<int> slim, own;
  for (int k = 0; k < kGrains; ++k) {
    SCOPED_TRACE(k);
    EXPECT_EQ(h.gid[k], gid[k]);
    EXPECT_EQ(h.owner[k], owner[k]);
    if (owner[k] == 1) own.push_back(k);
    if (!read_elsewhere[k]) {  // slim: who it is and who owns it only
      slim.push_back(k);
      EXPECT_TRUE(same_bits(a.x[k], stale));
      EXPECT_TRUE(same_bits(a.v[k], stale));
      continue;
    }
    EXPECT_TRUE(same_bits(a.x[k], b.position[k]));
    EXPECT_EQ(h.asleep[k] != 0, b.is_asleep(k));
    EXPECT_TRUE(same_bits(a.v[k], b.velocity[k]));
    EXPECT_TRUE(same_bits(a.w[k], b.angular_velocity[k]));
    EXPECT_TRUE(same_bits(a.inv_mass[k], b.inv_mass[k]));
    EXPECT_TRUE(same_bits(a.inv_inertia[k], b.inv_inertia_world[k]));
  }
  EXPECT_EQ(h.slim, slim);
  EXPECT_EQ(h.own, own);
}

TEST(IslandParts, PartsOfOneIslandMergeAscendingEachGrainOnceFromItsFirstWholeCopy) {
  // Three ranks' parts of one island: rank 0 holds global ids 0-29 (the even ones whole, the odd
  // ones slim), rank 1 ids 20-49 and rank 2 ids 25-34, both whole. Ranks 1 and 2 write other
  // velocities, so the copy taken shows: the first whole one.
  constexpr int kIds = 50;
  const Bodies b0 = random_bodies(kIds, 1), b1 = random_bodies(kIds, 2),
               b2 = random_bodies(kIds, 4);
  std::vector<std::int64_t> gid(kIds);
  std::vector<int> owner(kIds);
  for (int i = 0; i < kIds; ++i) gid[i] = i, owner[i] = i < 25 ? 0 : 1;
  auto part = [&](const Bodies& b, int first, int end, bool odd_slim) {
    std::vector<int> grains;
    std::vector<char> whole(kIds, 1);
    for (int i = first; i < end; ++i) {
      grains.push_back(i);
      if (odd_slim && i % 2 == 1) whole[i] = 0;
    }
    ByteWriter out;
    put_part_grains(out, b, grains, gid, owner, whole);
    return out.take();
  };
  const std::string texts[3] = {part(b0, 0, 30, true), part(b1, 20, 50, false),
                                part(b2, 25, 35, false)};
  std::vector<GrainRun> runs(6);
  for (int s = 0; s < 3; ++s) {
    ByteReader in(texts[s]);
    read_part_grains(in, &runs[2 * s]);
  }
  IslandGrains h;
  std::vector<std::size_t> next;
  merge_part_grains(runs, h, next, 0, 0);
  ASSERT_EQ(h.gid.size(), static_cast<std::size_t>(kIds));
  std::vector<int> slim, own;
  for (int k = 0; k < kIds; ++k) {
    SCOPED_TRACE(k);
    EXPECT_EQ(h.gid[k], k);
    // The first whole copy: rank 0's for its even ids, rank 1's from id 20 on, else the odd
    // ids below 20 came slim only (their velocities are not read).
    const Bodies* from = k < 30 && k % 2 == 0 ? &b0 : k >= 20 ? &b1 : nullptr;
    if (!from) {
      slim.push_back(k);
    } else {
      EXPECT_TRUE(same_bits(h.state.v[k], from->velocity[k]));
      EXPECT_TRUE(same_bits(h.state.x[k], from->position[k]));
    }
    if (owner[k] == 0) own.push_back(k);
  }
  EXPECT_EQ(h.slim, slim);
  EXPECT_EQ(h.own, own);
}

TEST(IslandParts, TheGrainsOfManyPartsMergeAsTheFirstWholeCopyOfEach) {
  // 48 parts (as from 24 ranks), each a random half of 200 grains, some of them slim: every id
  // once, ascending, from the first part that sent it whole, else from the first that sent it
  // slim.
  constexpr int kGrains = 200, kParts = 48;
  const Bodies b = random_bodies(kGrains, 11);
  std::vector<std::int64_t> gid(kGrains);
  std::vector<int> owner(kGrains);
  for (int i = 0; i < kGrains; ++i) gid[i] = 5 + 2 * i, owner[i] = i % 24;
  std::uint64_t seed = 12345;
  auto coin = [&seed](int in) {  // (a fixed sequence: the test reads the same parts every run)
    seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
    return static_cast<int>((seed >> 33) % static_cast<std::uint64_t>(in)) == 0;
  };
  std::vector<std::string> bytes;
  std::vector<std::vector<char>> sent(kParts, std::vector<char>(kGrains, 0));  // 1 whole, 2 slim
  for (int p = 0; p < kParts; ++p) {
    std::vector<int> grains;
    std::vector<char> whole(kGrains, 0);
    for (int i = 0; i < kGrains; ++i) {
      if (!coin(2)) continue;
      grains.push_back(i);
      whole[static_cast<std::size_t>(i)] = coin(3) ? 0 : 1;
      sent[p][static_cast<std::size_t>(i)] = whole[static_cast<std::size_t>(i)] ? 1 : 2;
    }
    ByteWriter out;
    put_part_grains(out, b, grains, gid, owner, whole);
    bytes.push_back(out.take());
  }
  std::vector<GrainRun> runs;
  for (const std::string& part : bytes) {
    const std::array<GrainRun, 2> two = runs_of(part);
    runs.insert(runs.end(), two.begin(), two.end());
  }
  IslandGrains h;
  std::vector<std::size_t> next;
  merge_part_grains(runs, h, next, gid[0], 3);
  std::vector<int> slim, own;
  std::size_t k = 0;
  for (int i = 0; i < kGrains; ++i) {
    int whole_from = -1, slim_from = -1;
    for (int p = kParts - 1; p >= 0; --p) {
      if (sent[p][static_cast<std::size_t>(i)] == 1) whole_from = p;
      if (sent[p][static_cast<std::size_t>(i)] == 2) slim_from = p;
    }
    if (whole_from < 0 && slim_from < 0) continue;  // sent by no part: not in the island
    ASSERT_LT(k, h.gid.size());
    EXPECT_EQ(h.gid[k], gid[static_cast<std::size_t>(i)]);
    EXPECT_EQ(h.owner[k], owner[static_cast<std::size_t>(i)]);
    if (whole_from >= 0) {
      EXPECT_TRUE(same_bits(h.state.x[k], b.position[i]));
      EXPECT_TRUE(same_bits(h.state.v[k], b.velocity[i]));
    } else {
      slim.push_back(static_cast<int>(k));
    }
    if (owner[static_cast<std::size_t>(i)] == 3) own.push_back(static_cast<int>(k));
    ++k;
  }
  EXPECT_EQ(h.gid.size(), k);
  EXPECT_EQ(h.slim, slim);
  EXPECT_EQ(h.own, own);
}

TEST(IslandParts, APartWhoseGrainsDoNotAscendIsRefused) {
  const Bodies b = random_bodies(3, 5);
  const std::vector<std::int64_t> gid{4, 5, 6};
  const std::vector<int> owner{0, 0, 0}, descending{2, 1, 0};
  ByteWriter out;
  put_part_grains(out, b, descending, gid, owner);
  const std::string bytes = out.take();
  const std::array<GrainRun, 2> runs = runs_of(bytes);
  IslandGrains h;
  std::vector<std::size_t> next;
  EXPECT_THROW(merge_part_grains(runs, h, next, 4, 0), std::logic_error);
  // A count larger than the bytes left is refused as it is read.
  ByteWriter lying;
  lying.put(std::int32_t{1000});
  const std::string short_text = lying.take();
  ByteReader short_in(short_text);
  GrainRun refused[2];
  EXPECT_THROW(read_part_grains(short_in, refused), ByteStreamError);
}

}  // namespace
}  // namespace etdem::distributed
