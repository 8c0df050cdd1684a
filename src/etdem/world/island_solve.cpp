#include "etdem/world/island_solve.hpp"

#include <algorithm>
#include <array>
#include <stdexcept>
#include <string>

#include "etdem/core/byte_stream.hpp"
#include "etdem/core/parallel.hpp"
#include "etdem/solvers/impulse.hpp"
#include "etdem/solvers/resting.hpp"
#include "etdem/solvers/resting_team.hpp"

namespace etdem {
namespace {

Vec3 island_momentum(const IslandBodies& view) {  // [kg m/s]
  Vec3 p = Vec3::Zero();
  for (int s = 0; s < view.count; ++s) p += view.v[s] / view.inv_mass[s];
  return p;
}

/// Books the gravity kick a held island's contacts cancelled as integration, not dissipation.
void book_resting_kick(const IslandSolveSettings& set, const Vec3& momentum_change,
                       SolverStats& st) {
  // An island the step met already in contact (no body with a time of impact inside the step)
  // is held by contact forces acting through the step alongside gravity. Their work is
  // P.(u_start + u_after)/2 from the velocity before the gravity kick, as the resting pass
  // books it per contact (solvers/resting.cpp); summed over the island's contacts the shift
  // from the kicked velocity is (g dt / 2).(sum of the impulses on the island) = (g dt / 2).dP,
  // internal impulses cancelling. The solver booked it as dissipation (a grain at rest showed
  // m |g dt|^2 / 2 of restitution every step); it is the time discretisation's: taken from
  // restitution first, then friction, never below zero, and booked as integration.
  const double shift = 0.5 * set.step.h * set.step.gravity.dot(momentum_change);
  st.integration -= shift;
  st.dissipated_restitution += shift;
  st.net_dissipation();
  st.negative_dissipation_to_integration();
}

/// A body moving with its old velocity until its time of impact and with the new one after must
/// not end deeper in a neighbour than the solve left the pair, which assumed the new velocities
/// over the whole step (gap + u_n dt) or touching. Where the two pieces would (a neighbour
/// stopped at the start of the step while this body was still carried by its old velocity into
/// it), both bodies of that contact move with their new velocities for the whole step instead.
/// Repeated until no contact asks it: each round reads the last round's times, so the contact
/// order does not matter, and clears at least one, so the rounds end within the bodies' count.
/// Only a contact with a timed body can ask, and a time once cleared stays so: the rounds keep
/// the contacts that still have one (`pool`, found from each contact's bodies `pair`). A
/// contact's answer reads only its bodies' times, so after the first round only the contacts of
/// a body the last round cleared can answer otherwise: the others are not asked again.
///
/// A team's share of the holding (hold_impact_times): the pool kept to the contacts this member
/// asks, those whose first moving body it settles (it holds every contact of that body), and the
/// final velocities those contacts' other bodies have on their settlers brought here, each
/// settler sending its bodies to the askers of their pooled contacts (a member holds the final
/// velocity of the bodies it reads and settles only).
void ask_on_settlers(RestingTeam& team, std::span<const std::array<int, 2>> pair,
                     const IslandBodies& view, ImpactHold& hold) {
  const int me = team.member();
  auto asker = [&](int s) {
    const std::array<int, 2>& ab = pair[static_cast<std::size_t>(s)];
    return team.body_member(ab[0] >= 0 ? ab[0] : ab[1]);
  };
  begin_messages(hold.out, team.members());
  hold.sent.assign(static_cast<std::size_t>(view.count), 0);
  for (const int s : hold.pool) {
    const int m = asker(s);
    if (m == me) continue;
    for (const int body : pair[static_cast<std::size_t>(s)]) {
      if (body < 0 || team.body_member(body) != me) continue;
      std::uint64_t& sent = hold.sent[static_cast<std::size_t>(body)];
      if ((sent >> m & 1U) != 0) continue;
      sent |= std::uint64_t{1} << m;
      ByteWriter& o = hold.out[static_cast<std::size_t>(m)];
      o.put(static_cast<std::int32_t>(body));
      o.put(view.v[body]);
      o.put(view.w[body]);
    }
  }
  for (const std::string& got : team.exchange(take_messages(hold.out, me))) {
    ByteReader in(got);
    while (!in.done()) {
      const int body = in.get<std::int32_t>();
      if (body < 0 || body >= view.count) throw std::logic_error("a final velocity of no body");
      in.get(view.v[body]);
      in.get(view.w[body]);
    }
  }
  std::erase_if(hold.pool, [&](int s) { return asker(s) != me; });
}

/// An island's contacts in the serial order (IslandSolve::solve): serial contact s is
/// contacts[(*at)[s]], or contacts[s] without `at`.
struct SerialContacts {
  std::span<Contact> contacts;
  std::optional<std::span<const int>> at;
  std::size_t size() const { return at ? at->size() : contacts.size(); }
  /// Serial contact s's index in `contacts`.
  std::size_t index(std::size_t s) const { return at ? static_cast<std::size_t>((*at)[s]) : s; }
  Contact& operator[](std::size_t s) const { return contacts[index(s)]; }
};

/// A team (resting_team.hpp) whose members hold some of the island's contacts each: a contact
/// is asked by one member (ask_on_settlers), and the bodies each round clears are the union of
/// the members'.
void hold_impact_times(const SerialContacts& serial, std::span<const std::array<int, 2>> pair,
                       std::span<const int> source, const IslandBodies& view,
                       const IslandState& state, double h, const Vec3& g, ImpactHold& hold,
                       RestingTeam* team) {
  const double slack = g.norm() * h * h;  // the gravity pieces' order [m]
  auto timed = [&](int body) { return body >= 0 && state.toi[body] > 0.0; };
  auto moved_off = [&](int body) -> Vec3 {  // the two pieces' displacement minus h v
    if (!timed(body)) return Vec3::Zero();
    const Vec3& v = view.v[body];
    return two_piece_displacement(h, state.toi[body], state.v0[body], v, g) - h * v;
  };
  auto has_timed = [&](int s) {
    const std::array<int, 2>& ab = pair[static_cast<std::size_t>(s)];
    return timed(ab[0]) || timed(ab[1]);
  };
  hold.pool.clear();
  parallel_select(
      source.size(), [&](std::size_t k) { return has_timed(source[k]); },
      [&](std::size_t k) { return source[k]; }, hold.pool);
  if (team) ask_on_settlers(*team, pair, view, hold);
  hold.ask.assign(hold.pool.begin(), hold.pool.end());
  hold.cleared.assign(static_cast<std::size_t>(view.count), 0);
  for (int bound = view.count; bound > 0 && (team || !hold.ask.empty()); --bound) {
    // Which contacts ask it (each on its own: on every thread when many), then their bodies.
    hold.asks.resize(hold.ask.size());
    parallel_for(hold.ask.size(), [&](std::size_t k) {
      const Contact& c = serial[static_cast<std::size_t>(hold.ask[k])];
      const double promised = c.gap + h * c.normal.dot(impulse::relative_velocity(c, view));
      const double end = promised + c.normal.dot(moved_off(c.a) - moved_off(c.b));
      hold.asks[k] = end < std::min(promised, 0.0) - slack ? 1 : 0;
    });
    // (Every answer was read from the round's times above; now the times are cleared.)
    hold.bodies.clear();
    for (std::size_t k = 0; k < hold.ask.size(); ++k) {
      if (!hold.asks[k]) continue;
      for (const int body : pair[static_cast<std::size_t>(hold.ask[k])])
        if (timed(body)) {
          state.toi[body] = 0.0;
          hold.cleared[static_cast<std::size_t>(body)] = 1;
          hold.bodies.push_back(body);
        }
    }
    if (team) {  // the other members' cleared bodies, cleared here too
      ByteWriter out;
      for (const int body : hold.bodies) out.put(static_cast<std::int32_t>(body));
      for (const std::string& got : team->exchange_with_all(out.take())) {
        ByteReader in(got);
        while (!in.done()) {
          const int body = in.get<std::int32_t>();
          if (body < 0 || body >= view.count) throw std::logic_error("an impact time of no body");
          if (!timed(body)) continue;
          state.toi[body] = 0.0;
          hold.cleared[static_cast<std::size_t>(body)] = 1;
          hold.bodies.push_back(body);
        }
      }
    }
    if (hold.bodies.empty()) return;
    // The contacts that still have a timed body; those of a body just cleared are asked again.
    hold.ask.clear();
    std::erase_if(hold.pool, [&](int s) {
      if (!has_timed(s)) return true;
      const std::array<int, 2>& ab = pair[static_cast<std::size_t>(s)];
      if ((ab[0] >= 0 && hold.cleared[static_cast<std::size_t>(ab[0])]) ||
          (ab[1] >= 0 && hold.cleared[static_cast<std::size_t>(ab[1])]))
        hold.ask.push_back(s);
      return false;
    });
    for (const int body : hold.bodies) hold.cleared[static_cast<std::size_t>(body)] = 0;
  }
}

/// Each body's time of impact from the member that settles it (which holds every contact of
/// the body), to every member: the times of the others' bodies here are replaced.
void share_impact_times(RestingTeam& team, double* toi, int bodies) {
  ByteWriter out;
  for (int body = 0; body < bodies; ++body)
    if (team.body_member(body) == team.member() && toi[body] > 0.0) {
      out.put(static_cast<std::int32_t>(body));
      out.put(toi[body]);
    }
  const std::vector<std::string> got = team.exchange_with_all(out.take());
  for (int body = 0; body < bodies; ++body)
    if (team.body_member(body) != team.member()) toi[body] = 0.0;
  for (const std::string& bytes_of : got) {
    ByteReader in(bytes_of);
    while (!in.done()) {
      const int body = in.get<std::int32_t>();
      if (body < 0 || body >= bodies) throw std::logic_error("an impact time of no body");
      in.get(toi[body]);
    }
  }
}

}  // namespace

void IslandSolve::prepare(int threads) {
  if (static_cast<int>(scratch_.size()) < threads) scratch_.resize(threads);
  for (Scratch& s : scratch_) s.groups.prepare(threads);
}

IslandSolution IslandSolve::solve(const IslandSolveSettings& set, Solver& solver,
                                  RestingPass* resting, IslandState state,
                                  std::span<Contact> contacts,
                                  std::optional<std::span<const int>> at, int thread,
                                  RestingTeam* team) {
  IslandSolution out;
  IslandBodies& view = state.bodies;
  // A team's member may hold only some of the island's contacts (those it reads): a body's time
  // of impact is its settler's, who holds all of the body's contacts.
  const bool shared = team && team->members() > 1;
  const double h = set.step.h, v_rest = set.resting_velocity;
  // Solve order. With the hybrid resting treatment, the island's collisions (faster approach
  // than v_rest) come first and go to the collision solver; the resting pass then sees the
  // whole island. Otherwise every contact goes to the collision solver, slow ones with e = 0
  // (so a pile does not bounce on the g dt it gains every step; v_rest = 0 turns this off).
  // Each group keeps the serial order.
  Scratch& sc = scratch_[thread];
  // (No contact: the passes below, the resting pass's included, read an empty list, whose
  // empty order does not stand for every contact of `contacts`.)
  const SerialContacts serial{at && at->empty() ? std::span<Contact>() : contacts, at};
  const std::size_t n = serial.size();
  // Each contact's normal velocity before the solve, once (the classification and the times of
  // impact below read it), with its bodies and gap beside it: the later passes over every
  // contact read these 16 bytes, not the whole contact.
  sc.un.resize(n);
  sc.slow.resize(n);
  sc.pair.resize(n);
  sc.gap.resize(n);
  parallel_for(n, [&](std::size_t s) {
    const Contact& c = serial[s];
    sc.un[s] = c.normal.dot(impulse::relative_velocity(c, view));
    sc.slow[s] = resting_contact(sc.un[s], c.gap, h, v_rest);
    sc.pair[s] = {c.a, c.b};
    sc.gap[s] = c.gap;
  });
  auto slow = [&](std::size_t s) { return sc.slow[s] != 0; };
  // Each contact's place in the solve order (on every thread when many, in the serial order
  // within each group), then the copies.
  sc.source.clear();
  parallel_select(
      n, [&](std::size_t s) { return !resting || !slow(s); }, sc.source);
  const auto seen = static_cast<int>(sc.source.size());
  if (resting) parallel_select(n, slow, sc.source);
  const std::size_t slot = sc.source.size();
  // A team's other members may hold collisions this member does not (whole groups of bodies
  // only they read): the island's count is the sum, and every member enters the collision
  // phase, whose exchanges are the team's, when the island has any.
  const RestingTeam::Kept kept = shared ? team->kept_collisions() : RestingTeam::Kept{};
  out.collisions = seen + static_cast<int>(kept.collisions);
  // With the resting pass only the collisions are copied, for the collision solver; the pass
  // reads the island's contacts where they lie, in the solve order
  // (RestingPass::resolve_in_order builds its rows from them and reads no restitution).
  const std::size_t copied = resting ? static_cast<std::size_t>(seen) : slot;
  sc.contacts.resize(copied);
  parallel_for(copied, [&](std::size_t k) {
    const std::size_t s = static_cast<std::size_t>(sc.source[k]);
    sc.contacts[k] = serial[s];
    if (slow(s)) sc.contacts[k].restitution = 0.0;
  });
  const std::span<Contact> all(sc.contacts.data(), copied);
  for (int s = 0; s < view.count; ++s) state.toi[s] = 0.0;
  if (out.collisions > 0) {
    const std::span<Contact> collisions = all.first(static_cast<std::size_t>(seen));
    // Time of impact of each body: the earliest time one of its approaching contacts closes
    // (gap / -u_n), 0 for a body with a contact already touching, approaching or not. The body
    // moves with its old velocity until then and with the new one after
    // (World::displacement). Every contact of the island counts, resting ones too: the old
    // velocity must not carry a body into a neighbour that only the resting pass was holding
    // off. A touching contact that separates at the start can take an impulse once a
    // neighbour's collision stops the other body, and that impulse acts from the start.
    for (int s = 0; s < view.count; ++s) state.toi[s] = h;
    for (std::size_t k = 0; k < slot; ++k) {
      const std::size_t s = static_cast<std::size_t>(sc.source[k]);
      const double un = sc.un[s], gap = sc.gap[s];
      if (gap > 0.0 && !(un < 0.0)) continue;
      const double t = gap > 0.0 ? std::min(h, gap / -un) : 0.0;
      for (const int body : sc.pair[s])
        if (body >= 0) state.toi[body] = std::min(state.toi[body], t);
    }
    for (int s = 0; s < view.count; ++s)
      if (state.toi[s] >= h) state.toi[s] = 0.0;  // no impact
    if (shared) share_impact_times(*team, state.toi, view.count);
    // Gravity acts on either side of the impact: the solver sees the velocity at the impact,
    // v - g (dt - t_c), and the rest of the step's kick is given back after it. (With the
    // whole kick before the impact an elastic ball left 2 g (dt - t_c) too fast: 0.12 % per
    // bounce at 1/600 s.) The kinetic energy these two moves change is the discretisation's,
    // booked as integration. (A team's member books the bodies it settles: it alone holds the
    // state of each one whose contacts no other member reads.)
    ExactSum kick;
    auto shift_velocity = [&](int s, double tau) {
      const double before = view.v[s].squaredNorm();
      view.v[s] += tau * set.step.gravity;
      if (!shared || team->body_member(s) == team->member())
        kick += 0.5 * (view.v[s].squaredNorm() - before) / view.inv_mass[s];
    };
    for (int s = 0; s < view.count; ++s)
      if (state.toi[s] > 0.0) {
        shift_velocity(s, -(h - state.toi[s]));
        state.v0[s] = view.v[s];
      }
    // Without the resting pass the collision solver also holds resting grains (slow
    // contacts with e = 0); see book_resting_kick for the momentum it gives them.
    const bool held =
        !resting && v_rest > 0.0 &&
        std::none_of(state.toi, state.toi + view.count, [](double t) { return t > 0.0; });
    const Vec3 momentum_before = held ? island_momentum(view) : Vec3::Zero();
    // The collisions fall apart into groups that share no body: each is its own problem
    // (world/collision_groups.hpp).
    out.stats = sc.groups.resolve(solver, collisions, view, thread, team);
    out.groups = sc.groups.groups();
    out.groups_shared = sc.groups.shared() ? out.groups : 0;
    out.stats.net_dissipation();
    if (held) book_resting_kick(set, island_momentum(view) - momentum_before, out.stats);
    for (int s = 0; s < view.count; ++s)
      if (state.toi[s] > 0.0) shift_velocity(s, h - state.toi[s]);
    out.kick = kick;
  }
  if (resting) {
    // The collisions as the collision solver left them, back where they lie; then the pass.
    parallel_for(copied, [&](std::size_t k) { serial[sc.source[k]] = sc.contacts[k]; });
    std::span<const int> order(sc.source.data(), slot);
    if (at) {  // (the pass reads its rows' contacts by their index in `contacts`)
      sc.in_contacts.resize(slot);
      parallel_for(slot, [&](std::size_t k) {
        sc.in_contacts[k] = static_cast<int>(serial.index(sc.source[k]));
      });
      order = std::span<const int>(sc.in_contacts.data(), slot);
    }
    out.resting_stats = resting->resolve_in_order(serial.contacts, order, view, thread);
  } else {
    // Impulses back to the serial order.
    parallel_for(slot, [&](std::size_t k) {
      Contact& c = serial[sc.source[k]];
      c.normal_impulse = sc.contacts[k].normal_impulse;
      c.tangent_impulse = sc.contacts[k].tangent_impulse;
      c.rolling_impulse = sc.contacts[k].rolling_impulse;
    });
  }
  if (out.collisions > 0)
    hold_impact_times(serial, sc.pair, std::span<const int>(sc.source.data(), slot), view, state, h,
                      set.step.gravity, sc.hold, shared ? team : nullptr);
  return out;
}

}  // namespace etdem
