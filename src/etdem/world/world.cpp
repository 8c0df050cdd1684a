#include "etdem/world/world.hpp"

#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <stdexcept>

#include <fmt/format.h>

#include "etdem/core/parallel.hpp"
#include "etdem/core/parallel_sums.hpp"
#include "etdem/core/profile_timer.hpp"
#include "etdem/solvers/resting.hpp"
#include "etdem/world/projection.hpp"

namespace etdem {

World::World() = default;
World::~World() = default;

int World::add_material(const Material& m) {
  materials.push_back(m);
  return static_cast<int>(materials.size()) - 1;
}

int World::add_body(int shape, int material, const Vec3& x, const Quat& q, const Vec3& v,
                    const Vec3& w, bool fixed, const std::string& name) {
  MassProperties mp;
  if (!fixed) mp = shapes.mass_properties(shape, materials.at(material).density);
  return bodies.add(x, q, v, w, mp.mass, mp.inertia, shape, material, fixed, name);
}

int World::add_plane(const Vec3& point, const Vec3& normal, int material, const std::string& name) {
  int shape = -1;
  for (int s = 0; s < shapes.size() && shape < 0; ++s)
    if (std::isinf(shapes.bounding_radius[s])) shape = s;  // a plane, the one unbounded shape
  if (shape < 0) shape = shapes.add_plane("plane");
  const Quat q = Quat::FromTwoVectors(Vec3::UnitZ(), normal.normalized());
  return bodies.add(point, q, Vec3::Zero(), Vec3::Zero(), 0.0, Vec3::Zero(), shape, material, true,
                    name);
}

int World::add_mesh(const TriangleMesh& mesh, int material, const std::string& name) {
  const Vec3 centre = 0.5 * (mesh.lo + mesh.hi);
  std::vector<Vec3> local(mesh.vertices);
  for (Vec3& v : local) v -= centre;
  TriangleMesh m = TriangleMesh::build(local, mesh.triangles, TriangleMesh::Facing::AsGiven);
  m.notes = mesh.notes;
  const int shape = shapes.add_mesh(name.empty() ? "mesh" : name, std::move(m));
  return bodies.add(centre, Quat::Identity(), Vec3::Zero(), Vec3::Zero(), 0.0, Vec3::Zero(), shape,
                    material, true, name);
}

int World::add_terrain(std::shared_ptr<const Terrain> terrain, int material,
                       const std::string& name) {
  const int shape = shapes.add_terrain(name.empty() ? "terrain" : name, std::move(terrain));
  return bodies.add(Vec3::Zero(), Quat::Identity(), Vec3::Zero(), Vec3::Zero(), 0.0, Vec3::Zero(),
                    shape, material, true, name);
}

void World::set_solver(std::unique_ptr<Solver> solver) {
  custom_solver_ = solver != nullptr;
  solver_ = std::move(solver);
}

void World::initialize() {
  configure();
  previous_.clear();  // a fresh start carries no impulses from an earlier run
  previous_h_ = 0.0;
  prepare_substeps();
  pair_list_ = PairList{};  // the builds count restarts with the totals
  previous_order_.clear();
  bodies.update_world_inertia();
  ledger_ = EnergyLedger{};
  ledger_.measure(bodies, settings.gravity);
  net_elastic_ = ledger_.elastic = net_elastic_energy();
  mark_net_nodes();
  ledger_.initial = ledger_.total();
  profile_ = StepProfile{};
  last_profile_ = StepProfile{};
  stages_ = StageProfile{};
  stages_.transfers = domain_ ? domain_->transfers() : TransferTotals{};
  totals_ = RunTotals{};
  wake_all();  // also sizes the rest times
  check_finite();
}

void World::configure() {
  // The solvers copy what they need of the settings (the resting pass: the slip velocity, its
  // sweeps and blocks; the step's length and gravity it gets per (sub-)step, set_step). The copy
  // the solvers were made from is kept, and step() compares the live settings with it: a change (a
  // new dt between steps, another lambda) is applied by configuring again rather than ignored.
  // Ledger and warm-start impulses carry on.
  if (settings.threads > 0) omp_set_num_threads(settings.threads);
  if (!(settings.sleep_velocity > 0.0)) wake_all();  // sleeping turned off: nothing stays held
  // Regions of sleep: the resting pass's blocks (four largest bounding radii), or 1 m without
  // dynamic bodies.
  const double edge = block_edge();
  sleep_region_ = edge > 0.0 ? edge : 1.0;
  asleep_at_previous_.clear();  // margins may have changed (contact_skin): collide afresh
  if (!custom_solver_) solver_ = make_solver(settings);
  if (!custom_solver_) {  // the shapes the solver can handle (jolt: particles, spheres)
    const SolverInfo& info = *find_solver(settings.solver);
    for (int i = 0; i < bodies.count(); ++i) {
      const ShapeType t = shapes.type[bodies.shape[i]];
      if (!info.supports(t))
        throw std::invalid_argument(
            fmt::format("solver '{}' handles {} only; body {} ('{}') has shape '{}' of type {}",
                        info.name, supported_shapes_text(info), i, bodies.name[i],
                        shapes.name[bodies.shape[i]], shape_type_name(t)));
    }
  }
  solver_->prepare(omp_get_max_threads());
  resting_.reset();
  resting_pass_ = nullptr;
  if (settings.resting == "pgs" && settings.effective_resting_velocity() > 0.0) {
    RestingSettings rs = settings.resting_pass;
    rs.slip_velocity = settings.effective_resting_velocity();
    rs.block_size = edge;  // blocks of large islands
    auto pgs = std::make_unique<RestingPass>(rs);
    pgs->set_stage_profile(&stages_);
    resting_pass_ = pgs.get();
    resting_ = std::move(pgs);
    resting_->prepare(omp_get_max_threads());
  } else if (std::find(resting_names().begin(), resting_names().end(), settings.resting) ==
             resting_names().end()) {
    throw std::invalid_argument(fmt::format("unknown resting treatment '{}'", settings.resting));
  }
  applied_ = settings;
}

double World::block_edge() const {
  // Two of the largest grain's bounding diameters, so a contact's two grains (centres at most
  // two bounding radii plus its gap apart) lie in the same or adjacent blocks unless the gap
  // exceeds a diameter. A rank of a split run holds some grains only: the domain knows all.
  double largest = 0.0;
  if (domain_) {
    largest = domain_->largest_radius();
  } else {
    for (int i = 0; i < bodies.count(); ++i)
      if (bodies.is_dynamic(i))
        largest = std::max(largest, shapes.bounding_radius[bodies.shape[i]]);
  }
  return std::isfinite(largest) ? 4.0 * largest : 0.0;
}

void World::set_domain(Domain* domain) {
  domain_ = domain;
  owned_ = domain ? &domain->owned() : nullptr;
}

World::RunState World::run_state() const {
  return {ledger_, net_elastic_, time_, steps_, totals_, last_, profile_, last_profile_, stages_};
}

void World::set_run_state(const RunState& s) {
  ledger_ = s.ledger;
  net_elastic_ = s.net_elastic;
  time_ = s.time;
  steps_ = s.steps;
  totals_ = s.totals;
  last_ = s.last;
  profile_ = s.profile;
  last_profile_ = s.last_profile;
  const TransferTotals transfers = stages_.transfers;  // (this process's transport)
  stages_ = s.stages;
  stages_.transfers = transfers;
}

void World::replace_bodies(Bodies b, const std::vector<SleepState>& sleep,
                           const std::vector<int>& new_id) {
  bodies = std::move(b);
  const int n = bodies.count();
  rest_time_.assign(n, 0.0);
  sleep_force_.assign(n, Vec3::Zero());
  sleep_torque_.assign(n, Vec3::Zero());
  for (int i = 0; i < n && i < std::ssize(sleep); ++i) set_sleep_state(i, sleep[i]);
  // The kept pairs are a cache on body ids (find_pairs), carried to the new ids: the same bits
  // as dropping them.
  pair_list_.renumber(new_id);
  refresh_bodies();  // the turning grains, on the new ids
}

void World::refresh_bodies() {
  // (The world-frame inverse inertias are not found here: every sub-step finds them in its kick,
  // apply_external_forces, before any phase reads them.)
  asleep_at_previous_.clear();
  prepare_substeps();
}

World::SleepState World::sleep_state(int i) const {
  SleepState s;
  s.rest_time = rest_time(i);
  if (static_cast<std::size_t>(i) < sleep_force_.size()) {
    s.force = sleep_force_[i];
    s.torque = sleep_torque_[i];
  }
  return s;
}

void World::set_sleep_state(int i, const SleepState& s) {
  const auto n = static_cast<std::size_t>(bodies.count());
  if (rest_time_.size() < n) rest_time_.resize(n, 0.0);
  if (sleep_force_.size() < n) sleep_force_.resize(n, Vec3::Zero());
  if (sleep_torque_.size() < n) sleep_torque_.resize(n, Vec3::Zero());
  rest_time_[i] = s.rest_time;
  sleep_force_[i] = s.force;
  sleep_torque_[i] = s.torque;
}

void World::prepare_island_solve() {
  island_solve_.prepare(omp_get_max_threads());
}

IslandSolution World::solve_island(IslandState state, std::span<Contact> contacts,
                                   std::optional<std::span<const int>> at, RestingTeam* team) {
  const IslandSolveSettings set{{h_, settings.gravity}, settings.effective_resting_velocity()};
  if (!team || !resting_pass_)
    return island_solve_.solve(set, *solver_, resting_pass_, state, contacts, at,
                               omp_get_thread_num());
  resting_pass_->set_team(team);
  IslandSolution out;
  try {
    out = island_solve_.solve(set, *solver_, resting_pass_, state, contacts, at,
                              omp_get_thread_num(), team);
  } catch (...) {
    resting_pass_->set_team(nullptr);
    throw;
  }
  resting_pass_->set_team(nullptr);
  return out;
}

bool World::sweeps_by_blocks(std::size_t contacts) const {
  return resting_pass_ && resting_pass_->blocked(contacts);
}

void World::step() {
  if (!solver_) initialize();
  if (!(settings == applied_)) configure();  // settings changed since: apply, never ignore
  StepProfile& p = last_profile_;
  p = StepProfile{};
  p.steps = 1;
  using P = StepProfile;
  // 0. scheduled changes (walls removed), once at the start of the step
  {
    const ProfileTimer<StepProfile> t(&p, P::Events);
    if (domain_)
      domain_->process_events(*this);
    else
      process_events();
  }
  // A grain turning fast splits the step into n equal sub-steps, each a whole step of length
  // dt / n (contacts found again at its start); n = 1 is the plain step, bit for bit. The spin
  // at the start of the step decides n; a spin the first sub-step's impacts create is checked
  // after its solve, before anything moves: when it needs more sub-steps, the velocities go
  // back to the start of the step and the step is taken again split (once). On a rank of a
  // split run the counts are the largest over the ranks.
  const long count = substep_count_unbounded(settings.dt, bodies.angular_velocity);
  long wanted = domain_ ? domain_->most(count) : count;
  const bool turning = domain_ ? domain_->turning() : !turning_.empty();
  int n = static_cast<int>(std::min<long>(settings.max_substeps, wanted));
  // A pair has rolling resistance only when both materials have it (pair_rolling_friction).
  if (resting_pass_)
    resting_pass_->set_rolling_possible(
        std::any_of(materials.begin(), materials.end(),
                    [](const Material& m) { return m.rolling_friction > 0.0; }));
  bool redone = false;
  StepStats step_stats;
  for (int k = 0; k < n; ++k) {
    h_ = settings.dt / n;
    if (resting_pass_) resting_pass_->set_step({h_, settings.gravity});
    last_ = StepStats{};
    // Only a step that may split saves its start (velocities, nets: O(bodies) copies).
    // (A grain turning, or the check for missed pairs, may ask for more after the solve.)
    const bool may_redo =
        k == 0 && !redone && n < settings.max_substeps && (turning || settings.substep_missed);
    if (may_redo) save_step_start();
    long needed = 0;
    if (!advance(p, may_redo ? &needed : nullptr)) {
      restore_step_start();
      wanted = std::max(wanted, needed);
      n = static_cast<int>(std::min<long>(settings.max_substeps, needed));
      redone = true;
      k = -1;
      continue;
    }
    step_stats.merge(last_);
  }
  step_stats.substeps = n;
  step_stats.redone = redone ? 1 : 0;
  step_stats.substep_bound_reached = wanted > settings.max_substeps ? 1 : 0;
  last_ = step_stats;
  update_totals();
  time_ += settings.dt;
  ++steps_;
  {
    const ProfileTimer<StepProfile> t(&p, P::Checks);
    check_finite();  // NaN/Inf with body and step
  }
  profile_.add(p);
}

bool World::advance(StepProfile& p, long* needed) {
  using P = StepProfile;
  auto timed = [&p](P::Phase phase, auto&& phase_work) {
    const ProfileTimer<StepProfile> t(&p, phase);
    phase_work();
  };
  StepBodies& sb = step_bodies_;
  StepContacts& sc = step_contacts_;
  sums_ = SubstepSums{};
  if (domain_) domain_->begin_substep(*this, needed != nullptr);
  const SubstepLists lists{sb, sc, motion_, sums_, last_};
  // 1. v += h F/m, the nets' links
  timed(P::Forces, [&] {
    apply_external_forces();
    if (domain_) domain_->kick_nets(*this, sums_);
  });
  // 2. swept boxes in a uniform grid -> candidate pairs (a step that sweeps everything stops)
  timed(P::Broad, [&] { find_pairs(sb); });
  timed(P::Checks, [&] { check_pair_count(sb); });
  // 3. pairs -> contact points, last (sub-)step's impulses onto the same contacts
  timed(P::Narrow, [&] {
    find_contacts(sb, sc);
    warm_start(sc.contacts);
  });
  // 4. contacts -> islands (union-find over the bodies that move)
  //    (sleeping regions a moving body closes on wake, the others are held as supports;
  //    or a sleeping island a moving body joined wakes, one that stays asleep is left out;
  //    on a rank of a split run the domain labels them across the ranks in its solve)
  timed(P::Islands, [&] {
    wake_regions(sb, sc);
    if (domain_) return;
    build_islands(sb, sc, islands_);
    wake_or_skip(sc, islands_);
  });
  // 5. islands -> velocities (collision solver, resting pass), impulses, each body's motion
  //    (a split run's islands each solved whole on one rank, its host)
  timed(P::Solve, [&] {
    if (holding_) {
      solve_holding(lists);
    } else {
      solve_islands_here(lists);
      keep_sleeping_impulses(sc.contacts);
    }
  });
  if (needed) {  // the spin after the solve, over the whole step: more sub-steps needed?
    // (and the pairs its velocities close that the narrow phase did not report; a pass over
    // the unreported pairs, timed with the checks)
    long n = 0;
    timed(P::Checks, [&] {
      long missed = 1;
      if (settings.substep_missed) {
        if (domain_) domain_->share_velocities(*this);
        missed = missed_substeps(sb, sc);
        if (domain_) domain_->restore_velocities(*this);
      }
      n = std::max(substep_count_unbounded(settings.dt, bodies.angular_velocity), missed);
    });
    if (domain_) n = domain_->most(n);
    if (n > std::lround(settings.dt / h_)) {
      *needed = n;
      if (domain_) domain_->undo_substep(*this);
      return false;
    }
  }
  // 6. wall correction (pseudo-velocities), position projection of the contacts
  timed(P::Correct, [&] {
    correct_wall_velocities(sb, wall_);
    if (domain_)
      domain_->correct_positions(*this, lists);
    else
      correct_positions(sc.contacts);
  });
  // 7. damping, positions from the motion, rotation; regions or islands at rest long enough
  //    fall asleep, held regions whose load changed wake
  timed(P::Integrate, [&] {
    damp_and_integrate(motion_, wall_);
    if (domain_ && !sleeps_by_regions())
      domain_->update_sleep(*this, lists);
    else
      update_sleep(islands_, sc.contacts);
  });
  // 8. energy ledger (the sums over the ranks first); this sub-step's contacts kept for the
  //    next warm start
  timed(P::Ledger, [&] {
    EnergyLedger::measure_sums(bodies, settings.gravity, owned_, sums_.kinetic_translational,
                               sums_.kinetic_rotational, sums_.potential);
    if (domain_) domain_->reduce(*this, sums_, last_);
    book_substep();
    remember_contacts(sc.contacts);
  });
  // 9. a rank of a split run: grains to their owners, ghosts for the next (sub-)step
  if (domain_) timed(P::Broad, [&] { domain_->exchange(*this); });
  return true;
}

void World::book_external_change() {
  EnergyLedger now = ledger_;
  now.measure(bodies, settings.gravity);
  // The ledger was measured on the state the last step (or initialize) left: untouched, the
  // difference is exactly 0.
  now.elastic = net_elastic_energy();
  now.external += (now.kinetic() + now.potential + now.elastic) -
                  (ledger_.kinetic() + ledger_.potential + ledger_.elastic);
  ledger_ = now;
  net_elastic_ = now.elastic;
}

void World::process_events() {
  for (Event& e : events) {
    if (e.done || time_ + 0.5 * settings.dt < e.time) continue;
    bodies.flags[e.body] |= kBodyDisabled;
    e.done = true;
    wake_all();  // what rested on it may fall
  }
}

void World::apply_external_forces() {
  const Vec3 dv = h_ * settings.gravity;
  // Per-body ledger terms are summed exactly (core/exact_sum): the same bits in any body order,
  // so a run split over ranks reduces them to the serial value.
  // (kinetic energy the kick adds: m g.v dt + m |g dt|^2 / 2)
  sums_.kick.add(
      parallel_sums<1>(static_cast<std::size_t>(bodies.count()), [&](std::size_t k, auto& sum) {
        const int i = static_cast<int>(k);
        if (!bodies.is_awake(i)) return;  // a sleeper is held
        if (counted(i)) sum[0] += kick_energy(bodies.mass[i], bodies.velocity[i], dv);
        bodies.velocity[i] += dv;  // ghosts too: the narrow phase reads their velocities
      })[0]);
  // (Booked back as gravity's work over the displacement, damp_and_integrate.)
  // The nets' links (2024 §4.2): spring and dashpot forces from the positions the last step
  // left, as a kick before the collisions. The spring kick is booked like gravity's (the change
  // of elastic energy over the displacement gives it back, book_substep); the dashpots'
  // loss and the energy of links that break have their own column.
  if (!nets.empty()) sums_.net_kicks = kick_nets(h_);
  // The world-frame inverse inertias of the orientations the last sub-step left: only the
  // island solves read them, after this.
  bodies.update_world_inertia();
}

void World::mark_net_nodes() {
  net_node_.clear();
  if (nets.empty()) return;
  net_node_.assign(bodies.count(), 0);
  for (const Net& n : nets)
    for (int i : n.nodes) net_node_[i] = 1;
}

std::vector<NetKick> World::kick_nets(double h) {
  net_kick_h_ = h;
  // Sized once (a net's nodes never change); again only for nets added after initialize().
  if (net_node_.size() != static_cast<std::size_t>(bodies.count())) mark_net_nodes();
  net_before_.resize(bodies.count());
  net_springs_.resize(bodies.count());
  net_kicked_.resize(bodies.count());
  std::vector<NetKick> kicks;
  kicks.reserve(nets.size());
  for (Net& n : nets) {
    for (int i : n.nodes) net_before_[i] = bodies.velocity[i];
    kicks.push_back(apply_net_forces(n, bodies, h, &net_springs_));
    for (int i : n.nodes) net_kicked_[i] = bodies.velocity[i];
  }
  return kicks;
}

void World::book_net_kicks(const std::vector<NetKick>& kicks) {
  net_damping_start_ = ledger_.net_damping;
  for (const NetKick& k : kicks) {
    ledger_.integration -= k.spring;
    ledger_.net_damping += k.damped + k.released;
    net_elastic_ -= k.released;
  }
}

double World::net_elastic_energy() const {
  double e = 0.0;
  for (const Net& n : nets) e += etdem::net_elastic_energy(n, bodies);
  return e;
}

void World::resolve_islands(const StepBodies& sb, const Islands& islands,
                            std::vector<Contact>& contacts, std::vector<Motion>& motion) {
  const int ni = islands.count();
  // Every body flies free (no contact this step) until an island claims it.
  motion.assign(bodies.count(), Motion{});
  if (ni == 0) {
    if (!nets.empty()) book_net_contacts(islands, motion);  // the free nodes
    return;
  }
  // Gather island-local copies: bodies numbered 0..n-1 within their island, static bodies -1;
  // each island's contacts in the serial order (world/island_solve.hpp).
  const int nb = islands.body_start[ni];
  IslandArrays& a = isl_.bodies;
  a.resize(nb);
  isl_.local_index.assign(bodies.count(), -1);
  for (int k = 0; k < ni; ++k)
    for (int s = islands.body_start[k]; s < islands.body_start[k + 1]; ++s)
      isl_.local_index[islands.body_order[s]] = s - islands.body_start[k];
  parallel_for(static_cast<std::size_t>(nb), [&](std::size_t s) {
    const int i = islands.body_order[s];
    a.v[s] = bodies.velocity[i];
    a.w[s] = bodies.angular_velocity[i];
    a.inv_mass[s] = bodies.inv_mass[i];
    a.inv_inertia[s] = bodies.inv_inertia_world[i];
    a.x[s] = bodies.position[i];
  });
  isl_.contacts.resize(islands.contact_order.size());
  parallel_for(isl_.contacts.size(), [&](std::size_t s) {
    Contact& c = isl_.contacts[s];
    c = contacts[islands.contact_order[s]];
    c.a = sb.dynamic[c.a] ? isl_.local_index[c.a] : -1;
    c.b = sb.dynamic[c.b] ? isl_.local_index[c.b] : -1;
  });
  // Largest islands first so one big island does not start last; the result of each island
  // depends only on its own data, never on which thread resolves it.
  isl_.order.resize(ni);
  for (int k = 0; k < ni; ++k) isl_.order[k] = k;
  std::stable_sort(isl_.order.begin(), isl_.order.end(), [&](int x, int y) {
    return islands.contact_start[x + 1] - islands.contact_start[x] >
           islands.contact_start[y + 1] - islands.contact_start[y];
  });
  isl_.solution.assign(ni, IslandSolution{});
  const IslandSolveSettings set{{h_, settings.gravity}, settings.effective_resting_velocity()};
  island_solve_.prepare(omp_get_max_threads());
  auto solve_island = [&](int o) {
    const int k = isl_.order[o];
    const int b0 = islands.body_start[k];
    const IslandState state = a.state(b0, islands.body_start[k + 1] - b0);
    const int c0 = islands.contact_start[k];
    const std::span<Contact> serial(isl_.contacts.data() + c0, islands.contact_start[k + 1] - c0);
    isl_.solution[k] = island_solve_.solve(set, *solver_, resting_pass_, state, serial,
                                           std::nullopt, omp_get_thread_num());
  };
  // Islands the resting pass sweeps by blocks (the largest) are resolved first, one at a time,
  // each with every thread inside the pass; then the others in parallel, one thread each.
  // Neither changes a result: an island's solve depends only on its own data.
  auto contacts_of = [&](int o) {
    const int k = isl_.order[o];
    return static_cast<std::size_t>(islands.contact_start[k + 1] - islands.contact_start[k]);
  };
  int first_small = 0;
  while (first_small < ni && resting_pass_ && resting_pass_->blocked(contacts_of(first_small)))
    solve_island(first_small++);
  // (Not a region with an if clause: one that is false is still a region, and every loop of
  // an island's pass would then open a nested one, whose threads libgomp starts afresh; a
  // 1000-grain pour, one island, took 5 times as long on two threads as on one.)
  if (ni - first_small > 1 && islands.contact_order.size() > 256) {
#pragma omp parallel for schedule(dynamic, 1)
    for (int o = first_small; o < ni; ++o) solve_island(o);
  } else {
    for (int o = first_small; o < ni; ++o) solve_island(o);
  }
  // Scatter back and sum the statistics in island order (deterministic).
  parallel_for(contacts.size(), [&](std::size_t s) {
    Contact& c = contacts[s];
    c.normal_impulse = 0.0;
    c.tangent_impulse = Vec3::Zero();
    c.rolling_impulse = Vec3::Zero();
  });
  parallel_for(isl_.contacts.size(), [&](std::size_t s) {
    Contact& c = contacts[islands.contact_order[s]];
    c.normal_impulse = isl_.contacts[s].normal_impulse;
    c.tangent_impulse = isl_.contacts[s].tangent_impulse;
    c.rolling_impulse = isl_.contacts[s].rolling_impulse;
  });
  parallel_for(static_cast<std::size_t>(nb), [&](std::size_t s) {
    const int i = islands.body_order[s];
    bodies.velocity[i] = a.v[s];
    bodies.angular_velocity[i] = a.w[s];
    motion[i].free = false;
    if (a.toi[s] > 0.0) motion[i] = {false, a.toi[s], a.v0[s]};
  });
  if (!nets.empty()) book_net_contacts(islands, motion);
  // The islands' energies are summed exactly: the same bits in any island order (a split run
  // resolves islands on several hosts).
  for (int k = 0; k < ni; ++k) {
    const IslandSolution& r = isl_.solution[k];
    sums_.island_kick.add(r.kick);
    sums_.solver.add(r.stats);
    sums_.resting.add(r.resting_stats);
    last_.collisions += r.collisions;
    last_.largest_island = std::max<long>(last_.largest_island,
                                          islands.contact_start[k + 1] - islands.contact_start[k]);
  }
  sums_.solved += ni;
}

void World::correct_positions(const std::vector<Contact>& contacts) {
  // Position projection (jolt appendix B.18): each penetrating contact moves its bodies apart
  // along the normal by k_p times the depth beyond the slop, shared by inverse mass. A body with
  // several penetrating contacts takes the mean of their corrections weighted by the square of
  // their depths: the four equal corners of a resting face do not push it four times (the mean
  // of equal corrections is one of them), and a deep contact among a body's many shallow ones is
  // not diluted by them (a plain mean moved a cross with ten contacts by a tenth of k_p of its
  // deepest one, and interlocked pairs crept deeper step after step; docs/notes/deep-contacts.md,
  // "Deep contacts in a settling pile"). No contact's correction depends on another's (a Jacobi
  // projection, as before). Velocities are untouched: no kinetic energy is added; the potential
  // energy it changes is booked as `correction` in the ledger.
  const double kp = settings.projection;
  if (kp <= 0.0) return;
  correction_.assign(bodies.count(), Vec3::Zero());
  correction_weight_.assign(bodies.count(), 0.0);
  long penetrating = 0;
  for (const Contact& c : contacts) {
    // A sleeping body is held where it fell asleep (its island was not solved).
    const double ia = bodies.is_awake(c.a) ? bodies.inv_mass[c.a] : 0.0;
    const double ib = bodies.is_awake(c.b) ? bodies.inv_mass[c.b] : 0.0;
    const ProjectionShare s =
        projection_share(c.gap, c.normal, ia, ib, kp, settings.penetration_slop);
    if (!s.moves) continue;
    add_share(s, c.a, ia, c.b, ib, correction_, correction_weight_);
    ++penetrating;
  }
  if (penetrating == 0) return;
  sums_.penetrating += penetrating;
  sums_.correction_work.add(
      parallel_sums<1>(static_cast<std::size_t>(bodies.count()), [&](std::size_t i, auto& sum) {
        // A weight that underflowed (depths below 1e-154 m) moves nothing.
        if (!(correction_weight_[i] > 0.0)) return;
        const Vec3 dx = correction_[i] / correction_weight_[i];
        bodies.position[i] += dx;
        sum[0] += bodies.mass[i] * settings.gravity.dot(dx);  // = - change of potential energy
      })[0]);
}

void World::damp_and_integrate(const std::vector<Motion>& motion, const WallCorrection& wall) {
  const double dt = h_;
  const double f = 1.0 - settings.damping * dt;  // 2024 Eqs. 47-48, 0 <= xi dt <= 1 (Eq. 49)
  // Summed exactly, as the kick (apply_external_forces); gravity's work and the rotation's gain
  // go to the same column and share one sum.
  // Each body moves on its own: on every thread, its terms in the thread's sums.
  auto sums =
      parallel_sums<3>(static_cast<std::size_t>(bodies.count()), [&](std::size_t k, auto& sum) {
        const int i = static_cast<int>(k);
        ExactSum &damped = sum[0], &integration = sum[1], &wall_work = sum[2];
        if (!bodies.is_awake(i) || !counted(i)) return;  // ghosts move on their owner
        Vec3& v = bodies.velocity[i];
        Vec3& w = bodies.angular_velocity[i];
        if (f != 1.0) {
          const double before = bodies.kinetic_energy(i);
          v *= f;
          w *= f;
          damped += before - bodies.kinetic_energy(i);
        }
        const Vec3 dx = motion.empty() ? Vec3(dt * v) : displacement(i, motion[i]);
        bodies.position[i] += dx;
        integration += bodies.mass[i] * settings.gravity.dot(dx);
        const Quat q0 = bodies.orientation[i];
        if (!wall.dv.empty()) {  // wall-correction: the pseudo-velocities move, then vanish
          const Vec3 dx_wall = dt * wall.dv[i];
          bodies.position[i] += dx_wall;
          wall_work += bodies.mass[i] * settings.gravity.dot(dx_wall);
          bodies.orientation[i] = integrate_orientation(q0, w + wall.dw[i], dt);
        } else {
          bodies.orientation[i] = integrate_orientation(q0, w, dt);
        }
        const Vec3& inertia = bodies.inertia[i];
        const bool isotropic = inertia.x() == inertia.y() && inertia.y() == inertia.z();
        if (settings.conserve_angular_momentum && !isotropic) {
          // Torque-free rotation: hold the world angular momentum L = I(q) w fixed across the
          // rotation and recover w from the new orientation, so |L| and its direction are kept to
          // round-off for any inertia (F1).
          const Vec3 l = world_inertia(q0, inertia) * w;
          const double before = 0.5 * w.dot(l);
          w = world_inverse_inertia(bodies.orientation[i], bodies.inv_inertia[i]) * l;
          integration += -(0.5 * w.dot(l) - before);
        }
      });
  sums_.damped.add(sums[0]);
  sums_.integration.add(sums[1]);
  sums_.wall_work.add(sums[2]);  // as the projection's: minus the potential energy added
}

Vec3 World::displacement(int i, const Motion& m) const {
  // Position update (2024 §3.2 symplectic Euler, x += v dt with the new velocity), refined
  // where the step's motion is known better:
  //  - a body with no contact this step moves exactly under gravity, x += (v - g dt / 2) dt
  //    (velocity Verlet, exact for a constant force): symplectic Euler's x += v dt lets a
  //    falling body lose m |g dt|^2 / 2 per step, which an elastic ball never regains;
  //  - a body that collided while still apart moves with its velocity at impact v_c until the
  //    time of impact t_c and with the new velocity v for the rest tau = dt - t_c, gravity
  //    acting on each piece: x += (v_c - g t_c / 2) t_c + (v - g tau / 2) tau. With x += v dt an
  //    elastic ball bounced from up to |v| dt above the plane and gained 2.7 % per bounce at
  //    1/600 s (the potential energy depends on the centre only, so the orientation keeps the
  //    plain update);
  //  - every other body (in contact, resting, held) keeps x += v dt: its contact impulses
  //    already absorbed this step's gravity.
  const double dt = h_;
  const Vec3& v = bodies.velocity[i];
  const Vec3& g = settings.gravity;
  if (m.free) return dt * (v - 0.5 * dt * g);
  if (m.impact_time <= 0.0) return dt * v;
  return two_piece_displacement(dt, m.impact_time, m.impact_velocity, v, g);
}

void World::book_solvers() {
  for (const SolverStats* s : {&last_.solver, &last_.resting}) {
    ledger_.restitution += s->dissipated_restitution;
    ledger_.friction += s->dissipated_friction;
    ledger_.truncation += s->truncated;
    ledger_.integration += s->integration;
  }
}

void World::book_substep() {
  // The order of the phases that formed the sums; each column is added to in this order on
  // every run, serial or split, so its bits do not depend on the ranks.
  const SubstepSums& s = sums_;
  EnergyLedger& L = ledger_;
  const bool nets_here = has_nets_in_run();
  const bool sleeping = settings.sleep_velocity > 0.0;
  L.integration -= s.kick.value();  // booked back as gravity's work over the motion
  if (nets_here) book_net_kicks(s.net_kicks);
  if (sleeping) L.integration -= s.wake_kick.value();
  if (nets_here) book_nets(s.nets);
  if (s.solved > 0) {
    L.integration -= s.island_kick.value();
    s.solver.add_to(last_.solver);
    s.resting.add_to(last_.resting);
  }
  if (s.penetrating > 0) L.correction += s.correction_work.value();
  L.damping += s.damped.value();
  L.integration += s.integration.value();
  L.correction += s.wall_work.value();
  if (sleeping) {
    L.damping += s.sleep_energy.value();
    totals_.sleep_energy += s.sleep_energy.value();
  }
  book_solvers();
  L.kinetic_translational = s.kinetic_translational.value();
  L.kinetic_rotational = s.kinetic_rotational.value();
  L.potential = s.potential.value();
  if (nets_here) {  // the springs' work over the displacement
    const double elastic = domain_ ? domain_->net_elastic_energy(*this) : net_elastic_energy();
    L.integration += net_elastic_ - elastic;
    L.elastic = net_elastic_ = elastic;
  }
}

void World::update_totals() {
  totals_.steps += 1;
  totals_.contacts += last_.contacts;
  totals_.candidates += last_.candidates;
  totals_.islands += last_.islands;
  totals_.largest_island = std::max(totals_.largest_island, last_.largest_island);
  totals_.solver.add(last_.solver);
  totals_.resting.add(last_.resting);
  totals_.collisions += last_.collisions;
  totals_.max_penetration = std::max(totals_.max_penetration, last_.max_penetration);
  totals_.wall_corrections += last_.wall_corrections;
  totals_.wall_rounds += last_.wall_rounds;
  totals_.wall_bound_reached += last_.wall_bound_reached;
  totals_.pair_list_builds = pair_list_.builds;
  totals_.pair_list_updates = pair_list_.updates;
  totals_.node_lists = node_list_counts_;
  if (last_.substeps > 1) {
    totals_.split_steps += 1;
    totals_.substeps += last_.substeps;
  }
  totals_.redone_steps += last_.redone;
  totals_.substep_bound_reached += last_.substep_bound_reached;
  totals_.asleep_steps += last_.asleep_steps;
  totals_.fell_asleep += last_.fell_asleep;
  totals_.woken += last_.woken;
  totals_.sleep_wake_bound_reached += last_.sleep_wake_bound_reached;
}

void World::check_finite() const {
  for (int i = 0; i < bodies.count(); ++i) {
    if (!bodies.is_dynamic(i)) continue;
    if (!all_finite(bodies.position[i]) || !all_finite(bodies.velocity[i]) ||
        !all_finite(bodies.angular_velocity[i]) || !std::isfinite(bodies.orientation[i].w()))
      throw std::runtime_error(fmt::format(
          "non-finite state of body {} ('{}') at step {} (t = {:.6g} s): position ({}, {}, {}), "
          "velocity ({}, {}, {})",
          i, bodies.name[i], steps_, time_, bodies.position[i].x(), bodies.position[i].y(),
          bodies.position[i].z(), bodies.velocity[i].x(), bodies.velocity[i].y(),
          bodies.velocity[i].z()));
  }
  if (std::isfinite(ledger_.total())) return;
  // Finite states whose energy overflows (a velocity of 1e308 m/s): name the body.
  for (int i = 0; i < bodies.count(); ++i) {
    if (!bodies.is_dynamic(i)) continue;
    const double e =
        bodies.kinetic_energy(i) - bodies.mass[i] * settings.gravity.dot(bodies.position[i]);
    if (!std::isfinite(e))
      throw std::runtime_error(fmt::format(
          "non-finite energy of body {} ('{}') at step {} (t = {:.6g} s): position ({}, {}, {}), "
          "velocity ({}, {}, {}), angular velocity ({}, {}, {})",
          i, bodies.name[i], steps_, time_, bodies.position[i].x(), bodies.position[i].y(),
          bodies.position[i].z(), bodies.velocity[i].x(), bodies.velocity[i].y(),
          bodies.velocity[i].z(), bodies.angular_velocity[i].x(), bodies.angular_velocity[i].y(),
          bodies.angular_velocity[i].z()));
  }
  throw std::runtime_error(
      fmt::format("non-finite energy at step {} (the sum of finite body "
                  "energies overflows)",
                  steps_));
}

}  // namespace etdem
