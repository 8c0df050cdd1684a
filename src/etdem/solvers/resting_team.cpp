// The team's parts of the resting pass (resting_team.hpp): who sweeps which block and settles
// which body, what the members tell each other of their rows, the velocities passed on after
// each colour and settled body, and the syncs that end a stage with every member holding the
// state of the bodies it reads.
#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <utility>

#include "etdem/core/byte_stream.hpp"
#include "etdem/solvers/resting_work.hpp"

namespace etdem {
namespace {

std::size_t at(int i) {
  return static_cast<std::size_t>(i);
}

/// In the colours a member tells it moves a body in (share_setup): the member settles a body
/// that rests on it (a bit above every colour).
constexpr std::uint32_t kShockRead = std::uint32_t{1} << 31;
static_assert(BlockOrder::kGraphColours < 31 && BlockOrder::kBlockColours < 31);

/// The team's exchange of this member's phase messages (begin_messages); read(in) is called until
/// each other member's message is read whole.
template <class Read>
void exchange_and_read(RestingShare& s, Read&& read) {
  const std::vector<std::string> got = s.team->exchange(take_messages(s));
  for (int m = 0; m < s.members; ++m) {
    if (m == s.me) continue;
    ByteReader in(got[at(m)]);
    while (!in.done()) read(in);
  }
}

}  // namespace

void begin_messages(std::vector<ByteWriter>& out, int members) {
  out.resize(at(members));
  for (ByteWriter& o : out) o.clear();
}

std::vector<std::string> take_messages(std::vector<ByteWriter>& out, int me) {
  std::vector<std::string> to(out.size());
  for (std::size_t m = 0; m < out.size(); ++m) {
    std::string bytes = out[m].take_copy();
    if (m != at(me)) to[m] = std::move(bytes);
  }
  return to;
}

std::vector<ByteWriter>& begin_messages(RestingShare& s) {
  begin_messages(s.out, s.members);
  return s.out;
}

std::vector<std::string> take_messages(RestingShare& s) {
  return take_messages(s.out, s.me);
}

void share_assign(RestingWork& w, RestingTeam* team, double cell) {
  // The team says which member sweeps each block (by its centre) and settles each body.
  RestingShare& s = w.share;
  BlockOrder& o = w.order;  // (its blocks are regrouped below)
  s.team = team;
  s.me = team->member();
  s.members = team->members();
  s.phase = 0;
  s.shared_from = 0;
  s.updates = 0;
  s.stir = false;
  const int blocks = o.colour_start[at(o.colours())];
  s.block_member.resize(at(blocks));
  for (int k = 0; k < blocks; ++k) {
    s.block_member[at(k)] = team->block_member(block_centre(o.block_cell(k), cell));
  }
  // Each colour's blocks by member: a member's rows lie together in memory.
  o.group_blocks(s.block_member);
  s.row_member.assign(o.contact_order.size(), -1);
  s.my_blocks.assign(at(o.colours()), {});
  for (int colour = 0; colour < o.colours(); ++colour)
    for (int k = o.colour_start[at(colour)]; k < o.colour_start[at(colour) + 1]; ++k) {
      const int m = s.block_member[at(k)];
      for (int i = o.block_start[at(k)]; i < o.block_start[at(k) + 1]; ++i) s.row_member[at(i)] = m;
      if (m == s.me) s.my_blocks[at(colour)].push_back(k);
    }
  const int nb = w.bodies.count;
  s.body_member.resize(at(nb));
  for (int b = 0; b < nb; ++b) s.body_member[at(b)] = team->body_member(o.body_order[at(b)]);
}

void share_setup(RestingWork& w) {
  // A member holds the rows it reads (its blocks', the leftovers and the support rows of the
  // bodies it settles), not every row: each member tells the others in which colours its rows
  // move which body, and every member then knows who reads each body and who moves it when.
  RestingShare& s = w.share;
  const BlockOrder& o = *w.blocks;
  const RestingRows& r = w.rows;
  const int nb = w.bodies.count;
  const int colours = o.colours();
  std::vector<std::uint32_t>& moves = s.moves;  // per body: the colours this member moves it in
  moves.assign(at(nb), 0);
  for (int colour = 0; colour < colours; ++colour)
    for (const int k : s.my_blocks[at(colour)])
      for (int i = o.block_start[at(k)]; i < o.block_start[at(k) + 1]; ++i)
        for (const int body : {r.a[at(i)], r.b[at(i)]})
          if (body >= 0) moves[at(body)] |= std::uint32_t{1} << colour;
  s.last_moves.clear();
  for (int body = 0; body < nb; ++body)
    if (moves[at(body)] != 0)
      s.last_moves.emplace_back(body, 31 - std::countl_zero(moves[at(body)]));
  // The other members' bodies this member's settled bodies rest on: the shock pass reads them
  // (one that keeps its velocity through the pass, from the sync before it). Told with the
  // moves, marked by kShockRead.
  std::vector<char>& rests_on = s.rests_on;
  rests_on.assign(at(nb), 0);
  if (!r.lower_body.empty())
    for (std::size_t i = 0; i < r.size(); ++i) {
      const int low = r.lower_body[i], up = r.upper_body[i];
      if (low >= 0 && up >= 0 && s.body_member[at(up)] == s.me && s.body_member[at(low)] != s.me)
        rests_on[at(low)] = 1;
    }
  ByteWriter out;
  for (int body = 0; body < nb; ++body) {
    const std::uint32_t told = moves[at(body)] | (rests_on[at(body)] ? kShockRead : 0U);
    if (told == 0) continue;
    out.put(body_name(w, body));
    out.put(told);
  }
  const std::vector<std::string> got = s.team->exchange_with_all(out.take());
  // Who reads each body: the members whose rows move it; a leftover's bodies every member (the
  // leftovers are swept on every member alike).
  const std::uint64_t all =
      s.members >= 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << s.members) - 1;
  const std::uint64_t mine = std::uint64_t{1} << s.me;
  s.readers.assign(at(nb), 0);
  for (int body = 0; body < nb; ++body)
    if (moves[at(body)] != 0) s.readers[at(body)] = mine;
  for (std::size_t i = static_cast<std::size_t>(o.leftover_start); i < r.size(); ++i)
    for (const int body : {r.a[i], r.b[i]})
      if (body >= 0) s.readers[at(body)] = all;
  auto each_move = [&](auto&& f) {  // f(member, body, colours) for every other member's moves
    for (int m = 0; m < s.members; ++m) {
      if (m == s.me) continue;
      ByteReader in(got[at(m)]);
      while (!in.done()) {
        // (A body this member does not hold it reads nowhere: what others do with it is theirs.)
        const int body = named_body(w, in.get<std::int32_t>());
        const auto colours_of = in.get<std::uint32_t>();
        if (body >= 0) f(m, body, colours_of);
      }
    }
  };
  s.shock_readers.assign(at(nb), 0);
  each_move([&](int m, int body, std::uint32_t told) {
    if ((told & ~kShockRead) != 0) s.readers[at(body)] |= std::uint64_t{1} << m;
    if ((told & kShockRead) != 0) s.shock_readers[at(body)] |= std::uint64_t{1} << m;
  });
  // The colours' point-to-point phases: after colour c a member posts to the readers (other
  // than itself) of the bodies its rows of c move; it takes from each member whose rows of c
  // move a body it reads. Its blocks of colour c + 1 that read such a body wait for those
  // messages; the others (early) go first.
  s.colour_to.assign(at(colours), 0);
  s.colour_from.assign(at(colours), 0);
  s.early.assign(at(colours), 0);
  std::vector<std::uint32_t>& moved_by_other = s.moved_by_other;  // colours, of bodies read here
  moved_by_other.assign(at(nb), 0);
  each_move([&](int m, int body, std::uint32_t told) {
    const std::uint32_t colours_of = told & ~kShockRead;
    if ((s.readers[at(body)] & mine) == 0) return;
    moved_by_other[at(body)] |= colours_of;
    for (std::uint32_t c = colours_of; c != 0; c &= c - 1)
      s.colour_from[at(std::countr_zero(c))] |= std::uint64_t{1} << m;
  });
  s.boundary.assign(at(colours), {});
  for (int body = 0; body < nb; ++body) {
    const std::uint64_t to = s.readers[at(body)] & ~mine;
    if (to == 0) continue;
    for (std::uint32_t c = moves[at(body)]; c != 0; c &= c - 1) {
      const int colour = std::countr_zero(c);
      s.colour_to[at(colour)] |= to;
      s.boundary[at(colour)].push_back(body);
    }
  }
  // Each colour's blocks of this member in four runs: those that read nothing another member
  // moved in a pending colour (one whose messages are not yet taken) and move a body another
  // member reads (swept first), then, once the pending colours' messages are in, those that
  // read such a body and move one another member reads; the colour's message is posted there,
  // and the blocks whose bodies no other member reads follow (those that waited, then the
  // rest). Blocks of one colour share no body, so the order within a colour does not change a
  // bit, and the message is whole when it is posted: the other members read it while this
  // member sweeps its inner blocks. A colour none of whose blocks waits takes no message: the
  // pending ones wait for the first block that reads what they carry.
  s.posted.assign(at(colours), 0);
  s.takes.assign(at(colours), 0);
  std::uint32_t pending = 0;  // colours whose messages are not yet taken
  for (int colour = 0; colour < colours; ++colour) {
    std::vector<int>& blocks = s.my_blocks[at(colour)];
    if (colour > 0 && s.colour_from[at(colour - 1)] != 0)
      pending |= std::uint32_t{1} << (colour - 1);
    const auto any_body = [&](int k, auto&& test) {
      for (int i = o.block_start[at(k)]; i < o.block_start[at(k) + 1]; ++i)
        for (const int body : {r.a[at(i)], r.b[at(i)]})
          if (body >= 0 && test(body)) return true;
      return false;
    };
    const auto waits = [&](int k) {
      return any_body(k, [&](int body) { return (moved_by_other[at(body)] & pending) != 0; });
    };
    const auto sends = [&](int k) {
      return any_body(k, [&](int body) { return (s.readers[at(body)] & ~mine) != 0; });
    };
    // 0: early and sending, 1: waiting and sending, 2: waiting, 3: the rest; stable within each.
    std::array<std::vector<int>, 4>& runs = s.block_runs;
    for (std::vector<int>& run : runs) run.clear();
    for (const int k : blocks)
      runs[sends(k) ? (waits(k) ? 1 : 0) : (waits(k) ? 2 : 3)].push_back(k);
    blocks.clear();
    for (const std::vector<int>& run : runs) blocks.insert(blocks.end(), run.begin(), run.end());
    const auto end_of = [&](std::size_t last) {
      int end = 0;
      for (std::size_t q = 0; q <= last; ++q) end += static_cast<int>(runs[q].size());
      return end;
    };
    s.early[at(colour)] = end_of(0);
    s.posted[at(colour)] = end_of(1);
    if (!runs[1].empty() || !runs[2].empty()) {  // a block waits: the pending messages taken
      s.takes[at(colour)] = 1;
      pending = 0;
    }
  }
  s.stamp.assign(at(nb), -1);
  s.known.assign(at(nb), -1);
  // Whom a sync sends each body this member moves: every member that reads it in a sweep (its
  // rows move it), settles it (and so takes its result) or settles a body resting on it (as
  // each member told).
  s.sync_to.resize(at(nb));
  const bool every = s.team->syncs_every_body();
  for (int body = 0; body < nb; ++body) {
    const std::uint64_t to = every ? all
                                   : s.readers[at(body)] |
                                         std::uint64_t{1} << s.body_member[at(body)] |
                                         s.shock_readers[at(body)];
    s.sync_to[at(body)] = to & ~mine;
  }
}

void share_heights(RestingWork& w) {
  RestingShare& s = w.share;
  const RestingRows& r = w.rows;
  const int nb = w.bodies.count;
  // This member's bodies that rest on something, in height order (ties by index): the order
  // it settles them in.
  w.by_height.clear();
  for (int body = 0; body < nb; ++body)
    if (s.body_member[at(body)] == s.me &&
        w.support_start[at(body) + 1] > w.support_start[at(body)])
      w.by_height.push_back({w.height[at(body)], body});
  std::sort(w.by_height.begin(), w.by_height.end());
  // To each member settling a body that rests on one of this member's (s.shock_readers, told
  // in share_setup), each such body with its height if it rests on something (it is settled)
  // or none (it keeps its velocity through the pass).
  std::vector<ByteWriter>& out = begin_messages(s);
  s.shock_to = 0;
  for (int body = 0; body < nb; ++body) {
    if (s.body_member[at(body)] != s.me || s.shock_readers[at(body)] == 0) continue;
    const bool settled = w.support_start[at(body) + 1] > w.support_start[at(body)];
    for (std::uint64_t left = s.shock_readers[at(body)]; left != 0; left &= left - 1) {
      ByteWriter& o = out[at(std::countr_zero(left))];
      o.put(body_name(w, body));
      o.put(static_cast<std::uint8_t>(settled ? 1 : 0));
      o.put(w.height[at(body)]);
    }
    s.shock_to |= s.shock_readers[at(body)];
  }
  const std::vector<std::string> got = s.team->exchange(take_messages(s));
  // The heights of the others' bodies this member's bodies rest on; each member that named some
  // posts its settled bodies here during the pass (settle_team), the last message ending in a
  // mark.
  s.heard.assign(at(nb), 0);
  s.shock_from = 0;
  for (int m = 0; m < s.members; ++m) {
    if (m == s.me || got[at(m)].empty()) continue;
    s.shock_from |= std::uint64_t{1} << m;
    ByteReader in(got[at(m)]);
    while (!in.done()) {
      const int body = held_body(w, in.get<std::int32_t>());
      if (s.body_member[at(body)] != m)
        throw std::logic_error("a team member's height of a body it does not settle");
      const bool settled = in.get<std::uint8_t>() != 0;
      in.get(w.height[at(body)]);
      s.heard[at(body)] = settled ? kHeardSettled : kHeardHeld;
    }
  }
  for (const auto& [height, body] : w.by_height)
    for (int j = w.support_start[at(body)]; j < w.support_start[at(body) + 1]; ++j) {
      const int low = r.lower_body[at(w.support[at(j)])];
      if (low >= 0 && s.body_member[at(low)] != s.me && s.heard[at(low)] == 0)
        throw std::logic_error("a body rests on another member's body that member did not name");
    }
}

namespace {

/// The bodies of `moved` this member moved in the phase (stamp), one message per reader.
std::vector<std::string> phase_messages(RestingWork& w, std::span<const int> moved,
                                        const std::vector<std::uint64_t>& readers) {
  RestingShare& s = w.share;
  const std::uint64_t mine = std::uint64_t{1} << s.me;
  std::vector<ByteWriter>& out = begin_messages(s);
  for (const int body : moved) {
    if (s.stamp[at(body)] != s.phase) continue;
    for (std::uint64_t to = readers[at(body)] & ~mine; to != 0; to &= to - 1) {
      ByteWriter& o = out[at(std::countr_zero(to))];
      o.put(body_name(w, body));
      o.put(w.bodies.v[body]);
      o.put(w.bodies.w[body]);
      if (s.stir) o.put(w.stirred[at(body)]);
    }
  }
  return take_messages(s);
}

/// The bodies other members sent for phase `phase`, taken into this member's state.
void take_phase(RestingWork& w, const std::vector<std::string>& got, int phase) {
  RestingShare& s = w.share;
  for (const std::string& bytes : got) {
    ByteReader in(bytes);
    while (!in.done()) {
      const int body = held_body(w, in.get<std::int32_t>());
      in.get(w.bodies.v[body]);
      in.get(w.bodies.w[body]);
      if (s.stir) in.get(w.stirred[at(body)]);
      s.known[at(body)] = phase;
    }
  }
}

}  // namespace

void share_post(RestingWork& w, std::span<const int> moved,
                const std::vector<std::uint64_t>& readers, std::uint64_t to) {
  RestingShare& s = w.share;
  s.team->post(phase_messages(w, moved, readers), to);
  ++s.phase;
}

void share_collect(RestingWork& w, std::uint64_t from, int phase) {
  take_phase(w, w.share.team->collect(from), phase);
}

namespace {

/// The maxima a sweep shares, and the team's taken back into it.
std::array<double, 3> sweep_maxima(const RestingSweep& total) {
  return {total.change, total.impulse, total.change_squared};
}
void take_maxima(const std::array<double, 3>& m, RestingSweep& total) {
  total.change = m[0];
  total.impulse = m[1];
  total.change_squared = m[2];
}

}  // namespace

void share_maxima(RestingWork& w, RestingSweep& total) {
  std::array<double, 3> m = sweep_maxima(total);
  w.share.team->max(m);
  take_maxima(m, total);
}

void share_sync(RestingWork& w) {
  RestingShare& s = w.share;
  const int nb = w.bodies.count;
  // The bodies this member moved since the last sync, with the phase of their value, each to
  // the members that need it (sync_to).
  std::vector<ByteWriter>& out = begin_messages(s);
  for (int b = 0; b < nb; ++b) {
    if (s.stamp[at(b)] < s.shared_from) continue;
    for (std::uint64_t to = s.sync_to[at(b)]; to != 0; to &= to - 1) {
      ByteWriter& o = out[at(std::countr_zero(to))];
      o.put(body_name(w, b));
      o.put(static_cast<std::int32_t>(s.stamp[at(b)]));
      o.put(w.bodies.v[b]);
      o.put(w.bodies.w[b]);
      if (s.stir) o.put(w.stirred[at(b)]);
    }
  }
  exchange_and_read(s, [&](ByteReader& in) {
    const int b = held_body(w, in.get<std::int32_t>());
    const int phase = in.get<std::int32_t>();
    const bool newer = phase > s.known[at(b)];
    Vec3 v, om;
    in.get(v);
    in.get(om);
    double stir = 0.0;
    if (s.stir) in.get(stir);
    if (!newer) return;
    w.bodies.v[b] = v;
    w.bodies.w[b] = om;
    if (s.stir) w.stirred[at(b)] = stir;
    s.known[at(b)] = phase;
  });
  s.shared_from = s.phase;
}

void share_impulses(RestingWork& w, std::span<const int> order) {
  // Each row named to its keeper by the contact's place among the keeper's contacts (the
  // members may hold different contacts of the island, in different rows).
  RestingShare& s = w.share;
  RestingRows& r = w.rows;
  const BlockOrder& o = *w.blocks;
  const std::span<const int> keepers = s.team->keepers();
  const std::span<const int> places = s.team->keeper_places();
  std::vector<ByteWriter>& out = begin_messages(s);
  for (const std::vector<int>& blocks : s.my_blocks)
    for (const int k : blocks)
      for (int i = o.block_start[at(k)]; i < o.block_start[at(k) + 1]; ++i) {
        const int contact = contact_index(order, w, at(i));
        const int keeper = keepers[at(contact)];
        if (keeper == s.me) continue;
        ByteWriter& o_m = out[at(keeper)];
        o_m.put(static_cast<std::int32_t>(places[at(contact)]));
        o_m.put(r.pn[at(i)]);
        o_m.put(r.pt[at(i)].x());
        o_m.put(r.pt[at(i)].y());
        if (r.any_rolling) {
          o_m.put(r.pr[at(i)].x());
          o_m.put(r.pr[at(i)].y());
        }
      }
  const std::vector<std::string> got = s.team->exchange(take_messages(s));
  // Each contact's row here (a contact is named by its index among the island's: the rows'
  // contacts may lie anywhere in a longer list, RestingPass::resolve_in_order).
  std::vector<int>& row_of = s.scratch;
  row_of.assign(r.size(), -1);
  for (std::size_t i = 0; i < r.size(); ++i) {
    const std::size_t contact = at(contact_index(order, w, i));
    if (contact >= row_of.size()) row_of.resize(contact + 1, -1);
    row_of[contact] = static_cast<int>(i);
  }
  for (const std::string& bytes : got) {
    ByteReader in(bytes);
    while (!in.done()) {
      const int contact = s.team->kept_contact(in.get<std::int32_t>());
      if (contact < 0 || at(contact) >= row_of.size() || row_of[at(contact)] < 0)
        throw std::logic_error("a team member's impulses for a contact not kept here");
      const std::size_t i = at(row_of[at(contact)]);
      in.get(r.pn[i]);
      r.pt[i].x() = in.get<double>();
      r.pt[i].y() = in.get<double>();
      if (r.any_rolling) {
        r.pr[i].x() = in.get<double>();
        r.pr[i].y() = in.get<double>();
      }
    }
  }
}

void share_stirred(RestingWork& w, RestingSweep* maxima) {
  RestingShare& s = w.share;
  // The list of every body stirred here or elsewhere, each once: grow reads it in any order.
  // (A body's stir crosses its limit once between two growths, so no thread listed it twice:
  // only the other threads' and members' bodies are looked up.)
  std::vector<int>& list = w.stirred_of_thread[0];
  std::vector<char>& listed = s.listed;
  if (listed.size() < static_cast<std::size_t>(w.bodies.count))
    listed.resize(static_cast<std::size_t>(w.bodies.count), 0);
  auto add = [&](int body) {
    char& mark = listed[at(body)];
    if (mark == 0) list.push_back(body);
    mark = 1;
  };
  for (const int body : list) listed[at(body)] = 1;
  for (std::size_t th = 1; th < w.stirred_of_thread.size(); ++th) {
    for (const int body : w.stirred_of_thread[th]) add(body);
    w.stirred_of_thread[th].clear();
  }
  // A body the leftovers stirred was found on every member alike; the others on the member
  // whose row crossed the limit, which tells the members whose rows move the body too.
  // With the maxima: every message starts with the member's three, every member gets one, and
  // each takes the largest over the members in their order (the transport's maxima, exact).
  const std::uint64_t mine = std::uint64_t{1} << s.me;
  std::vector<ByteWriter>& out = begin_messages(s);
  std::array<double, 3> m{};
  if (maxima) {
    m = sweep_maxima(*maxima);
    for (int k = 0; k < s.members; ++k)
      if (k != s.me)
        for (const double x : m) out[at(k)].put(x);
  }
  for (const int body : list)
    for (std::uint64_t to = s.readers[at(body)] & ~mine; to != 0; to &= to - 1)
      out[at(std::countr_zero(to))].put(body_name(w, body));
  const std::vector<std::string> got = s.team->exchange(take_messages(s));
  for (int k = 0; k < s.members; ++k) {
    if (k == s.me) continue;
    ByteReader in(got[at(k)]);
    if (maxima)
      for (double& x : m) x = std::max(x, in.get<double>());
    while (!in.done()) add(held_body(w, in.get<std::int32_t>()));
  }
  if (maxima) take_maxima(m, *maxima);
  for (const int body : list) listed[at(body)] = 0;
}

void share_stir_limits(RestingWork& w) {
  RestingShare& s = w.share;
  std::vector<ByteWriter>& out = begin_messages(s);
  for (int body = 0; body < w.bodies.count; ++body) {
    const double limit = w.stir_limit[at(body)];
    if (!(limit < std::numeric_limits<double>::infinity())) continue;
    for (std::uint64_t to = s.sync_to[at(body)]; to != 0; to &= to - 1) {
      ByteWriter& o = out[at(std::countr_zero(to))];
      o.put(body_name(w, body));
      o.put(limit);
    }
  }
  exchange_and_read(s, [&](ByteReader& in) {
    const int body = held_body(w, in.get<std::int32_t>());
    double& limit = w.stir_limit[at(body)];
    limit = std::min(limit, in.get<double>());
  });
}

void share_sums(RestingWork& w, std::span<ExactSum> sums, std::span<std::int64_t> counts) {
  // One reduction: each sum packed (its limbs and whether it met a non-finite term), then the
  // counts.
  constexpr std::size_t kPacked = ExactSum::kPacked;
  std::vector<std::int64_t> all(sums.size() * kPacked + counts.size());
  for (std::size_t k = 0; k < sums.size(); ++k) sums[k].pack(&all[k * kPacked]);
  std::copy(counts.begin(), counts.end(), all.end() - static_cast<long>(counts.size()));
  w.share.team->sum(all);
  for (std::size_t k = 0; k < sums.size(); ++k) sums[k] = ExactSum::unpack(&all[k * kPacked]);
  std::copy(all.end() - static_cast<long>(counts.size()), all.end(), counts.begin());
}

bool share_any(RestingWork& w, bool here) {
  std::int64_t any[1] = {here ? 1 : 0};
  w.share.team->sum(any);
  return any[0] != 0;
}

}  // namespace etdem
