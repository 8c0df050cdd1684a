#include "etdem/world/world_checkpoint.hpp"

#include <cmath>
#include <stdexcept>

#include <fmt/format.h>

#include "etdem/collision/contact_record.hpp"
#include "etdem/solvers/solver_stats_record.hpp"
#include "etdem/world/world.hpp"

namespace etdem {

namespace {

void mismatch(const char* what, long file, long world) {
  if (file != world)
    throw std::invalid_argument(
        fmt::format("{}: {} in the checkpoint, {} in the scenario", what, file, world));
}

}  // namespace

/// Reads and writes the world's private state for the section table below.
struct WorldCheckpoint {
  static void save_clock(const World& w, ByteWriter& out) {
    out.put(w.time_);
    out.put(w.steps_);
  }
  static void load_clock(World& w, ByteReader& in) {
    in.get(w.time_);
    in.get(w.steps_);
  }

  // Every body's state and what makes it the same body (shape, material, mass): a checkpoint of
  // another scenario with as many bodies is refused here.
  static void save_bodies(const World& w, ByteWriter& out) {
    const Bodies& b = w.bodies;
    out.put(static_cast<long>(b.count()));
    for (int i = 0; i < b.count(); ++i) {
      out.put(b.shape[i]), out.put(b.material[i]), out.put(b.mass[i]);
      out.put(b.position[i]), out.put(b.orientation[i]), out.put(b.velocity[i]);
      out.put(b.angular_velocity[i]), out.put(b.flags[i]);
    }
  }
  static void load_bodies(World& w, ByteReader& in) {
    Bodies& b = w.bodies;
    mismatch("bodies", in.get<long>(), b.count());
    for (int i = 0; i < b.count(); ++i) {
      const int shape = in.get<int>(), material = in.get<int>();
      const double mass = in.get<double>();
      if (shape != b.shape[i] || material != b.material[i] || mass != b.mass[i])
        throw std::invalid_argument(fmt::format(
            "body {} ('{}') has shape {}, material {}, mass {} kg in the checkpoint and {}, {}, "
            "{} kg in the scenario",
            i, b.name[i], shape, material, mass, b.shape[i], b.material[i], b.mass[i]));
      in.get(b.position[i]), in.get(b.orientation[i]), in.get(b.velocity[i]);
      in.get(b.angular_velocity[i]), in.get(b.flags[i]);
    }
    b.update_world_inertia();
  }

  static void save_events(const World& w, ByteWriter& out) {
    out.put(static_cast<long>(w.events.size()));
    for (const Event& e : w.events) out.put(static_cast<std::uint8_t>(e.done));
  }
  static void load_events(World& w, ByteReader& in) {
    mismatch("events", in.get<long>(), static_cast<long>(w.events.size()));
    for (Event& e : w.events) e.done = in.get<std::uint8_t>() != 0;
  }

  static void save_ledger(const World& w, ByteWriter& out) {
    for (const LedgerColumn& c : kLedgerColumns) out.put(w.ledger_.*c.member);
  }
  static void load_ledger(World& w, ByteReader& in) {
    for (const LedgerColumn& c : kLedgerColumns) in.get(w.ledger_.*c.member);
  }

  // The summary's running tallies, the last step's statistics and the phase profile.
  static void save_totals(const World& w, ByteWriter& out) {
    const RunTotals& t = w.totals_;
    out.put(t.steps), out.put(t.contacts), out.put(t.candidates), out.put(t.islands);
    out.put(t.largest_island), out.put(t.collisions);
    put_stats(out, t.solver), put_stats(out, t.resting);
    out.put(t.max_penetration), out.put(t.wall_corrections), out.put(t.wall_rounds);
    out.put(t.wall_bound_reached);
    out.put(t.split_steps), out.put(t.substeps), out.put(t.substep_bound_reached);
    out.put(t.redone_steps);
    out.put(t.asleep_steps), out.put(t.fell_asleep), out.put(t.woken);
    out.put(t.sleep_wake_bound_reached), out.put(t.sleep_energy);
    const StepStats& s = w.last_;
    out.put(s.contacts), out.put(s.candidates), out.put(s.islands), out.put(s.largest_island);
    put_stats(out, s.solver), put_stats(out, s.resting);
    out.put(s.collisions), out.put(s.max_penetration), out.put(s.wall_corrections);
    out.put(s.wall_rounds), out.put(s.wall_bound_reached);
    out.put(s.substeps), out.put(s.redone), out.put(s.substep_bound_reached);
    out.put(s.asleep_steps), out.put(s.fell_asleep), out.put(s.woken);
    out.put(s.sleep_wake_bound_reached);
    for (const StepProfile* p : {&w.profile_, &w.last_profile_}) {
      for (int k = 0; k < StepProfile::kPhases; ++k) out.put(p->seconds[k]), out.put(p->calls[k]);
      out.put(p->steps);
    }
  }
  static void load_totals(World& w, ByteReader& in) {
    RunTotals& t = w.totals_;
    in.get(t.steps), in.get(t.contacts), in.get(t.candidates), in.get(t.islands);
    in.get(t.largest_island), in.get(t.collisions);
    get_stats(in, t.solver), get_stats(in, t.resting);
    in.get(t.max_penetration), in.get(t.wall_corrections), in.get(t.wall_rounds);
    in.get(t.wall_bound_reached);
    in.get(t.split_steps), in.get(t.substeps), in.get(t.substep_bound_reached);
    in.get(t.redone_steps);
    in.get(t.asleep_steps), in.get(t.fell_asleep), in.get(t.woken);
    in.get(t.sleep_wake_bound_reached), in.get(t.sleep_energy);
    StepStats& s = w.last_;
    in.get(s.contacts), in.get(s.candidates), in.get(s.islands), in.get(s.largest_island);
    get_stats(in, s.solver), get_stats(in, s.resting);
    in.get(s.collisions), in.get(s.max_penetration), in.get(s.wall_corrections);
    in.get(s.wall_rounds), in.get(s.wall_bound_reached);
    in.get(s.substeps), in.get(s.redone), in.get(s.substep_bound_reached);
    in.get(s.asleep_steps), in.get(s.fell_asleep), in.get(s.woken);
    in.get(s.sleep_wake_bound_reached);
    for (StepProfile* p : {&w.profile_, &w.last_profile_}) {
      for (int k = 0; k < StepProfile::kPhases; ++k) in.get(p->seconds[k]), in.get(p->calls[k]);
      in.get(p->steps);
    }
  }

  // Last step's contacts with their impulses: the warm start of the resting pass.
  static void save_warm_start(const World& w, ByteWriter& out) {
    out.put(static_cast<std::uint64_t>(w.previous_.size()));
    for (const Contact& c : w.previous_) put_contact(out, c);
    out.put(w.previous_order_);  // derivable from the contacts: the load rebuilds it
    out.put(w.previous_h_);      // the sub-step those impulses were found over
  }
  static void load_warm_start(World& w, ByteReader& in) {
    w.previous_.resize(in.count(kContactBytes));
    for (Contact& c : w.previous_) {
      get_contact(in, c);
      if (c.a < 0 || c.a >= w.bodies.count() || c.b < 0 || c.b >= w.bodies.count())
        throw std::invalid_argument(
            fmt::format("warm_start: a contact joins bodies {} and {}", c.a, c.b));
    }
    // The stored order is the stable one by (a, b) (World::order_previous), which the contacts
    // determine: it is read past and rebuilt with its keys, which the format does not hold.
    std::vector<int> stored_order;
    in.get(stored_order, sizeof(int));
    mismatch("warm_start order", std::ssize(stored_order), std::ssize(w.previous_));
    w.order_previous();
    in.get(w.previous_h_);
    if (!(w.previous_h_ >= 0.0) || !std::isfinite(w.previous_h_))
      throw std::invalid_argument(fmt::format("warm_start: sub-step length {}", w.previous_h_));
  }

  // Nets: the links' elastic energy the ledger compares the next step with, what each link
  // carries from step to step (broken flags) and what the outputs show of the last step
  // (tensions, strains, clamp forces).
  static void save_nets(const World& w, ByteWriter& out) {
    out.put(w.net_elastic_);
    out.put(static_cast<long>(w.nets.size()));
    for (const Net& n : w.nets) {
      out.put(static_cast<long>(n.links.size()));
      for (const NetLink& l : n.links)
        out.put(static_cast<std::uint8_t>(l.broken)), out.put(l.tension), out.put(l.strain);
      out.put(n.clamp_force), out.put(n.max_strain), out.put(n.broken_links);
    }
  }
  static void load_nets(World& w, ByteReader& in) {
    in.get(w.net_elastic_);
    mismatch("nets", in.get<long>(), static_cast<long>(w.nets.size()));
    for (Net& n : w.nets) {
      mismatch("links", in.get<long>(), static_cast<long>(n.links.size()));
      for (NetLink& l : n.links) {
        l.broken = in.get<std::uint8_t>() != 0;
        in.get(l.tension), in.get(l.strain);
      }
      in.get(n.clamp_force), in.get(n.max_strain), in.get(n.broken_links);
    }
  }

  // Sleep: how long each body has been slow, and the load each sleeper fell asleep under (the
  // asleep flags are the bodies').
  static void save_sleep(const World& w, ByteWriter& out) {
    out.put(w.rest_time_), out.put(w.sleep_force_), out.put(w.sleep_torque_);
  }
  static void load_sleep(World& w, ByteReader& in) {
    in.get(w.rest_time_, sizeof(double));
    mismatch("sleep rest times", static_cast<long>(w.rest_time_.size()), w.bodies.count());
    for (double t : w.rest_time_)
      if (!(t >= 0.0) || !std::isfinite(t))
        throw std::invalid_argument(fmt::format("sleep: rest time {}", t));
    for (std::vector<Vec3>* loads : {&w.sleep_force_, &w.sleep_torque_}) {
      in.get(*loads, 3 * sizeof(double));
      mismatch("sleep loads", static_cast<long>(loads->size()), w.bodies.count());
      for (const Vec3& f : *loads)
        if (!f.allFinite()) throw std::invalid_argument("sleep: a load is not finite");
    }
  }

  static std::span<const WorldSection> sections() {
    // THE list of world state a checkpoint carries, in file order (docs/design.md "Checkpoints").
    static const WorldSection table[] = {
        {"clock", save_clock, load_clock},    {"bodies", save_bodies, load_bodies},
        {"events", save_events, load_events}, {"ledger", save_ledger, load_ledger},
        {"totals", save_totals, load_totals}, {"warm_start", save_warm_start, load_warm_start},
        {"nets", save_nets, load_nets},       {"sleep", save_sleep, load_sleep},
    };
    return table;
  }
};

std::span<const WorldSection> world_sections() {
  return WorldCheckpoint::sections();
}

}  // namespace etdem
