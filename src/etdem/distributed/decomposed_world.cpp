#include "etdem/distributed/decomposed_world.hpp"

#include <algorithm>
#include <stdexcept>

#if defined(__GLIBC__)
#include <malloc.h>
#endif

#include "etdem/distributed/host_scratch.hpp"
#include "etdem/distributed/rank_records.hpp"

namespace etdem::distributed {
namespace {

/// A split run sends and receives messages of megabytes every sub-step (the islands' parts, the
/// grains). glibc serves blocks that large from pages of their own and returns them when they
/// are freed, so every sub-step's messages would fault their pages in afresh: they come from the
/// heap instead, which keeps what is freed for the next sub-step. (Process-wide and idempotent;
/// other C libraries are left as they are.)
void keep_large_blocks() {
#if defined(__GLIBC__)
  mallopt(M_MMAP_THRESHOLD, 256 << 20);
  mallopt(M_TRIM_THRESHOLD, 1 << 30);
#endif
}

}  // namespace

DecomposedWorld::DecomposedWorld(World& full, Transport& transport)
    : full_(full), t_(transport), host_(std::make_unique<HostScratch>()) {
  check_supported(full);
  if (t_.size() > 1) keep_large_blocks();
  using Sharing = WorldSettings::IslandSharing;
  const Sharing sharing = full.settings.share_islands;
  set_shared_islands(sharing == Sharing::kOn ||
                     (sharing == Sharing::kAuto && t_.size() <= kAutoShareRanks));
  const Bodies& b = full.bodies;
  std::vector<Vec3> centres;
  std::vector<int> grains;
  for (int i = 0; i < b.count(); ++i) {
    if (b.is_dynamic(i)) {
      grains.push_back(i);
      centres.push_back(b.position[i]);
      largest_radius_ = std::max(largest_radius_, full.shapes.bounding_radius[b.shape[i]]);
    } else {
      statics_.push_back(i);
    }
  }
  turning_ = full.has_turning_grains();
  decomposition_ = Decomposition::bisect(centres, {}, t_.size());
  // The warm start of a world restored from a checkpoint (empty at the start of a run).
  const World::CarriedContacts carried = full.carried_contacts();
  double speed = 0.0;
  const double kick = full.settings.gravity.norm() * full.settings.dt;
  for (std::size_t k = 0; k < grains.size(); ++k) {
    speed = std::max(speed, next_speed(b, full.shapes, grains[k], kick));
    if (decomposition_.owner_of(centres[k]) != t_.rank()) continue;
    const std::span<const Contact> own = carried.of(grains[k]);
    grains_.owned.push_back({grains[k],
                             centres[k],
                             grain_state(b, grains[k], full.sleep_state(grains[k])),
                             {own.begin(), own.end()},
                             {}});
  }
  local_of_.assign(b.count(), -1);
  local_.shapes = full.shapes;
  local_.materials = full.materials;
  local_.settings = full.settings;
  local_.set_domain(this);
  last_halo_ = halo_for(speed);
  exchange_grains(decomposition_, last_halo_, grains_, t_);
  rebuild_local(local_.settings.dt);
  local_.initialize();  // the solvers; the ledger, the clock and the totals are the world's
  local_.set_run_state(full.run_state());
  const double h = full.warm_start_substep();
  rebuild_local(h > 0.0 ? h : local_.settings.dt);  // again: initialize() dropped the warm start
}

DecomposedWorld::~DecomposedWorld() = default;

void DecomposedWorld::check_supported(const World& full) const {
  if (full.has_custom_solver())
    throw std::invalid_argument(
        "a run over several ranks does not carry a solver of the user's own yet; run it on one "
        "rank");
}

void DecomposedWorld::step() {
  local_.step();
  stats_.owned += owned_count();
  stats_.ghosts += ghost_count();
  // Checked at whole steps of the run (a resumed run keeps the count), on every rank alike.
  const int every = local_.settings.rebalance_every;
  if (every > 0 && local_.step_count() % every == 0) rebalance();
}

long DecomposedWorld::most(long n) {
  // The count over every rank at the start of a step came with the last step's maxima, unless
  // an event has disabled a grain since or the settings it was counted with changed (every
  // rank alike).
  const WorldSettings& set = local_.settings;
  const bool known = next_substeps_ >= 0.0 && !event_fired_ && set.dt == next_substeps_dt_ &&
                     set.substep_sweep == next_substeps_sweep_;
  const double all = known ? next_substeps_ : t_.max(static_cast<double>(n));
  next_substeps_ = -1.0;
  return static_cast<long>(all);
}

void DecomposedWorld::process_events(World& w) {
  // As World::process_events, on the copy every rank keeps of the walls.
  event_fired_ = false;
  for (Event& e : full_.events) {
    if (e.done || w.time() + 0.5 * w.settings.dt < e.time) continue;
    full_.bodies.flags[e.body] |= kBodyDisabled;
    e.done = true;
    if (local_of_[e.body] >= 0) w.bodies.flags[local_of_[e.body]] |= kBodyDisabled;
    w.wake_all();  // what rested on it may fall: every rank wakes what it holds
    event_fired_ = true;
  }
}

void DecomposedWorld::begin_substep(World&, bool may_redo) {
  hosted_.clear();
  // The nets' links change in the kick: a sub-step that may be taken again keeps them (the
  // world keeps its own velocities, World::save_step_start).
  if (may_redo) nets_at_start_ = full_.nets;
}

void DecomposedWorld::undo_substep(World&) {
  full_.nets = std::move(nets_at_start_);
}

}  // namespace etdem::distributed
