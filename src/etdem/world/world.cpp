#include "etdem/world/world.hpp"

#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <stdexcept>

#include <fmt/format.h>

#include "etdem/collision/collide.hpp"
#include "etdem/solvers/impulse.hpp"
#include "etdem/solvers/resting.hpp"

namespace etdem {
namespace {

/// Relative to the smaller bounding radius: the reach added to every contact margin so that
/// bodies exactly touching at rest are reported (see find_contacts).
constexpr double kTouch = 1e-9;

/// Candidate pairs per moving body beyond which a step is refused (check_pair_count). A sphere
/// in a dense pile has 12 neighbours, a cross about 30 within the contact skin.
constexpr std::size_t kMaxPairsPerBody = 200;

/// Kept pairs (World::reach_box): steps of free flight a reach box holds, and its padding
/// relative to the bounding radius. Measured on the pour (docs/design.md, "Broad phase").
constexpr double kReachSteps = 8.0;
constexpr double kReachSkin = 0.2;

/// Times one phase into a StepProfile (seconds and a call).
class Timer {
 public:
  Timer(StepProfile& p, StepProfile::Phase phase)
      : p_(p), phase_(phase), t0_(std::chrono::steady_clock::now()) {}
  ~Timer() {
    p_.seconds[phase_] +=
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0_).count();
    ++p_.calls[phase_];
  }

 private:
  StepProfile& p_;
  StepProfile::Phase phase_;
  std::chrono::steady_clock::time_point t0_;
};

}  // namespace

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
  ledger_.initial = ledger_.total();
  profile_ = StepProfile{};
  last_profile_ = StepProfile{};
  totals_ = RunTotals{};
  wake_all();  // also sizes the rest times
  check_finite();
}

void World::configure() {
  // The solvers copy what they need of the settings (the resting pass: dt, gravity's direction,
  // the slip velocity). The copy the solvers were made from is kept, and step() compares the
  // live settings with it: a change (a new dt between steps, another lambda) is applied by
  // configuring again rather than ignored. Ledger and warm-start impulses carry on.
  if (settings.threads > 0) omp_set_num_threads(settings.threads);
  if (!(settings.sleep_velocity > 0.0)) wake_all();  // sleeping turned off: nothing stays held
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
  resting_pgs_ = nullptr;
  if (settings.resting == "pgs" && settings.effective_resting_velocity() > 0.0) {
    RestingSettings rs = settings.resting_solver;
    rs.slip_velocity = settings.effective_resting_velocity();
    rs.dt = settings.dt;
    rs.gravity = settings.gravity;
    // Blocks of large islands: two of the largest grain's bounding diameters, so a contact's
    // two grains (centres at most two bounding radii plus its gap apart) lie in the same or
    // adjacent blocks unless the gap exceeds a diameter (then the contact is a leftover).
    double largest = 0.0;
    for (int i = 0; i < bodies.count(); ++i)
      if (bodies.is_dynamic(i))
        largest = std::max(largest, shapes.bounding_radius[bodies.shape[i]]);
    rs.block_size = std::isfinite(largest) ? 4.0 * largest : 0.0;
    auto pgs = std::make_unique<RestingSolver>(rs);
    resting_pgs_ = pgs.get();
    resting_ = std::move(pgs);
    resting_->prepare(omp_get_max_threads());
  } else if (std::find(resting_names().begin(), resting_names().end(), settings.resting) ==
             resting_names().end()) {
    throw std::invalid_argument(fmt::format("unknown resting treatment '{}'", settings.resting));
  }
  applied_ = settings;
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
    Timer t(p, P::Events);
    process_events();
  }
  // A grain turning fast splits the step into n equal sub-steps, each a whole step of length
  // dt / n (contacts found again at its start); n = 1 is the plain step, bit for bit. The spin
  // at the start of the step decides n; a spin the first sub-step's impacts create is checked
  // after its solve, before anything moves: when it needs more sub-steps, the velocities and
  // the ledger go back to the start of the step and the step is taken again split (once).
  long wanted = substep_count_unbounded(settings.dt, bodies.angular_velocity);
  int n = static_cast<int>(std::min<long>(settings.max_substeps, wanted));
  bool redone = false;
  StepStats step_stats;
  for (int k = 0; k < n; ++k) {
    h_ = settings.dt / n;
    if (resting_pgs_) resting_pgs_->set_dt(h_);
    last_ = StepStats{};
    // Only a step that may split saves its start (velocities, ledger, nets: O(bodies) copies).
    const bool may_redo = k == 0 && !redone && n < settings.max_substeps && !turning_.empty();
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
    Timer t(p, P::Checks);
    check_finite();  // NaN/Inf with body and step
  }
  profile_.add(p);
}

bool World::advance(StepProfile& p, long* needed) {
  using P = StepProfile;
  auto timed = [&p](P::Phase phase, auto&& phase_work) {
    Timer t(p, phase);
    phase_work();
  };
  StepBodies& sb = step_bodies_;
  StepContacts& sc = step_contacts_;
  // 1. v += h F/m
  timed(P::Forces, [&] { apply_external_forces(); });
  // 2. swept boxes in a uniform grid -> candidate pairs (a step that sweeps everything stops)
  timed(P::Broad, [&] { find_pairs(sb); });
  timed(P::Checks, [&] { check_pair_count(sb); });
  // 3. pairs -> contact points, last (sub-)step's impulses onto the same contacts
  timed(P::Narrow, [&] {
    find_contacts(sb, sc);
    warm_start(sc.contacts);
  });
  // 4. contacts -> islands (union-find over dynamic bodies)
  //    (a sleeping island a moving body joined wakes; one that stays asleep is left out)
  timed(P::Islands, [&] {
    build_islands(sb, sc, islands_);
    wake_or_skip(sc, islands_);
  });
  // 5. islands -> velocities (collision solver, resting pass), impulses, each body's motion
  timed(P::Solve, [&] {
    resolve_islands(sb, islands_, sc.contacts, motion_);
    keep_sleeping_impulses(sc.contacts);
  });
  if (needed) {  // the spin after the solve, over the whole step: more sub-steps needed?
    const long n = substep_count_unbounded(settings.dt, bodies.angular_velocity);
    if (n > std::lround(settings.dt / h_)) {
      *needed = n;
      return false;
    }
  }
  // 6. wall correction (pseudo-velocities), position projection of the contacts
  timed(P::Correct, [&] {
    correct_wall_velocities(sb, wall_);
    correct_positions(sc.contacts);
  });
  // 7. damping, positions from the motion, rotation; islands at rest long enough fall asleep
  timed(P::Integrate, [&] {
    damp_and_integrate(motion_, wall_);
    update_sleep(islands_);
  });
  // 8. energy ledger; this sub-step's contacts kept for the next warm start
  timed(P::Ledger, [&] {
    update_ledger();
    remember_contacts(sc.contacts);
  });
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
  double kick = 0.0;  // kinetic energy the kick adds: m g.v dt + m |g dt|^2 / 2
  for (int i = 0; i < bodies.count(); ++i) {
    if (!bodies.is_awake(i)) continue;  // a sleeper is held
    kick += bodies.mass[i] * (dv.dot(bodies.velocity[i]) + 0.5 * dv.squaredNorm());
    bodies.velocity[i] += dv;
  }
  ledger_.integration -= kick;  // booked back as gravity's work over the displacement below
  // The nets' links (2024 §4.2): spring and dashpot forces from the positions the last step
  // left, as a kick before the collisions. The spring kick is booked like gravity's (the change
  // of elastic energy over the displacement gives it back, update_ledger); the dashpots'
  // loss and the energy of links that break have their own column.
  if (!nets.empty()) {
    net_before_.resize(bodies.count());
    net_springs_.resize(bodies.count());
    net_kicked_.resize(bodies.count());
    net_node_.assign(bodies.count(), 0);
    net_damping_start_ = ledger_.net_damping;
  }
  for (Net& n : nets) {
    for (int i : n.nodes) {
      net_before_[i] = bodies.velocity[i];
      net_node_[i] = 1;
    }
    const NetKick k = apply_net_forces(n, bodies, h_, &net_springs_);
    for (int i : n.nodes) net_kicked_[i] = bodies.velocity[i];
    ledger_.integration -= k.spring;
    ledger_.net_damping += k.damped + k.released;
    net_elastic_ -= k.released;
  }
  bodies.update_world_inertia();
}

double World::net_elastic_energy() const {
  double e = 0.0;
  for (const Net& n : nets) e += etdem::net_elastic_energy(n, bodies);
  return e;
}

Vec3 World::contact_velocity(const Contact& c, const std::vector<char>& dynamic) const {
  Vec3 u = Vec3::Zero();
  if (dynamic[c.a]) u += bodies.velocity[c.a] + bodies.angular_velocity[c.a].cross(c.ra);
  if (dynamic[c.b]) u -= bodies.velocity[c.b] + bodies.angular_velocity[c.b].cross(c.rb);
  return u;
}

double World::speed_bound(int i) const {
  if (!bodies.is_dynamic(i)) return 0.0;
  return bodies.velocity[i].norm() +
         bodies.angular_velocity[i].norm() * shapes.bounding_radius[bodies.shape[i]];
}

void World::find_pairs(StepBodies& out) {
  const double dt = h_;
  boxes_.clear();
  box_ids_.clear();
  out.unbounded.clear();
  out.dynamic_ids.clear();
  out.dynamic.assign(bodies.count(), 0);
  out.speed.assign(bodies.count(), 0.0);
  for (int i = 0; i < bodies.count(); ++i) {
    if (!bodies.is_active(i)) continue;
    out.dynamic[i] = bodies.is_dynamic(i);
    out.speed[i] = speed_bound(i);
    if (out.dynamic[i]) out.dynamic_ids.push_back(i);
    if (shapes.tested_apart(bodies.shape[i])) {  // planes and terrains: tested apart
      out.unbounded.push_back(i);
      continue;
    }
    // Box swept by the motion of the step: radius plus the distance any surface point can move.
    const double skin = resting_ ? settings.contact_skin : 0.0;
    const double r = (1.0 + skin) * shapes.bounding_radius[bodies.shape[i]] + out.speed[i] * dt;
    const Vec3 c = bodies.position[i];
    boxes_.push_back({c.array() - r, c.array() + r});
    box_ids_.push_back(i);
  }
  // The kept pairs give exactly the grid's pairs while every box stays in its reach
  // (collision/pair_list.hpp); otherwise the reach boxes are grown anew and the list rebuilt.
  if (!pair_list_.covers(boxes_, box_ids_)) {
    reach_.resize(boxes_.size());
    for (std::size_t k = 0; k < boxes_.size(); ++k) reach_[k] = reach_box(box_ids_[k], boxes_[k]);
    pair_list_.rebuild(broad_, reach_, box_ids_);
  }
  pair_list_.select(boxes_, out.pairs);
}

Aabb World::reach_box(int i, const Aabb& box) const {
  // A static body's box does not change. A dynamic body's reach holds its box now and its box
  // after kReachSteps steps of free flight (so a falling grain keeps its list until it lands),
  // the flight capped at one bounding radius, plus kReachSkin of its radius all round (a grain
  // in a pile jiggles). Only the cost depends on these numbers, never a result.
  if (!bodies.is_dynamic(i)) return box;
  const double dt = h_, t = kReachSteps * dt;
  const double radius = shapes.bounding_radius[bodies.shape[i]];
  const Vec3& v = bodies.velocity[i];
  Vec3 move = t * v + 0.5 * t * t * settings.gravity;
  if (move.norm() > radius) move *= radius / move.norm();
  const double half = 0.5 * (box.max - box.min).maxCoeff();
  const double grow = (v + t * settings.gravity).norm() * dt - v.norm() * dt;  // faster later
  const double pad = kReachSkin * radius + std::max(0.0, grow);
  const Vec3 centre = 0.5 * (box.min + box.max) + move;
  const Vec3 lo = centre - Vec3::Constant(half), hi = centre + Vec3::Constant(half);
  return {box.min.cwiseMin(lo) - Vec3::Constant(pad), box.max.cwiseMax(hi) + Vec3::Constant(pad)};
}

void World::check_pair_count(const StepBodies& sb) const {
  // Bodies moving farther than the scene per step (gravity of 1e12 m/s^2, a velocity typed in
  // the wrong unit) sweep boxes over everything: every pair becomes a candidate and the step
  // costs O(N^2) in the narrow phase and the solvers (2 million contacts for 2000 spheres).
  // Such a run has no meaning; it is stopped with the fastest body named instead of crawling.
  const std::size_t bound = kMaxPairsPerBody * sb.dynamic_ids.size() + 100'000;
  if (sb.pairs.size() <= bound) return;
  int fastest = -1;
  for (int i : sb.dynamic_ids)
    if (fastest < 0 || sb.speed[i] > sb.speed[fastest]) fastest = i;
  const double speed = fastest >= 0 ? sb.speed[fastest] : 0.0;
  throw std::runtime_error(fmt::format(
      "step {} (t = {:.6g} s): {} candidate pairs for {} moving bodies (more than {} per body): "
      "bodies move farther than their neighbours per step; the fastest, body {} ('{}'), moves "
      "{:.3g} m in one step of {:.3g} s at {:.3g} m/s",
      steps_, time_, sb.pairs.size(), sb.dynamic_ids.size(), kMaxPairsPerBody, fastest,
      fastest >= 0 ? bodies.name[fastest] : "", speed * h_, h_, speed));
}

void World::find_contacts(const StepBodies& sb, StepContacts& out) {
  const double dt = h_;
  const int threads = omp_get_max_threads();
  per_thread_contacts_.resize(threads);
  const int np = static_cast<int>(sb.pairs.size());
  const int nd = static_cast<int>(sb.dynamic_ids.size());
  const int nplanes = static_cast<int>(sb.unbounded.size());
  const double skin = resting_ ? settings.contact_skin : 0.0;
  auto emit = [&](int a, int b, const Manifold& m, std::vector<Contact>& list) {
    if (m.count == 0) return;
    // The pair's material values once per manifold, not per point.
    const Material& ma = materials[bodies.material[a]];
    const Material& mb = materials[bodies.material[b]];
    const double restitution = pair_restitution(ma, mb), friction = pair_friction(ma, mb),
                 stiffness = pair_stiffness(ma, mb);
    for (int k = 0; k < m.count; ++k) {
      Contact c;
      c.a = a;
      c.b = b;
      c.point = m.point[k];
      c.normal = m.normal_at(k);
      c.gap = m.gap[k];
      c.ra = c.point - bodies.position[a];
      c.rb = c.point - bodies.position[b];
      c.restitution = restitution;
      c.friction = friction;
      c.stiffness = stiffness;
      list.push_back(c);
    }
  };
  for (auto& v : per_thread_contacts_) v.clear();
    // Small scenes stay on one thread (see broad_phase.cpp).
#pragma omp parallel num_threads(threads) if (np > 512)
  {
    auto& list = per_thread_contacts_[omp_get_thread_num()];
    Manifold m;
#pragma omp for schedule(static) nowait
    for (int k = 0; k < np; ++k) {
      const auto [a, b] = sb.pairs[k];
      if (!sb.dynamic[a] && !sb.dynamic[b]) continue;
      if (reuse_sleeping(a, b, list)) continue;
      // Touching pairs (gap exactly 0, at rest) are reported too: kTouch keeps the narrow
      // phase's strict `gap < margin` from dropping them when nothing moves.
      const double margin = (sb.speed[a] + sb.speed[b]) * dt +
                            (skin + kTouch) * std::min(shapes.bounding_radius[bodies.shape[a]],
                                                       shapes.bounding_radius[bodies.shape[b]]);
      collide(shapes, bodies.shape[a], Pose(bodies.position[a], bodies.orientation[a]),
              bodies.shape[b], Pose(bodies.position[b], bodies.orientation[b]), margin, m);
      emit(a, b, m, list);
    }
  }
  std::vector<Contact>& contacts = out.contacts;
  contacts.clear();
  for (auto& v : per_thread_contacts_) contacts.insert(contacts.end(), v.begin(), v.end());
  // Every dynamic body against every active plane and terrain (walls are few; infinite planes
  // and huge terrains stay out of the grid).
  for (auto& v : per_thread_contacts_) v.clear();
#pragma omp parallel num_threads(threads) if (nd > 512)
  {
    auto& list = per_thread_contacts_[omp_get_thread_num()];
    Manifold m;
#pragma omp for schedule(static)
    for (int k = 0; k < nd; ++k) {
      const int a = sb.dynamic_ids[k];
      const Pose pa(bodies.position[a], bodies.orientation[a]);
      const double reach =
          (1.0 + skin) * shapes.bounding_radius[bodies.shape[a]] + sb.speed[a] * dt;
      for (int pi = 0; pi < nplanes; ++pi) {
        const int b = sb.unbounded[pi];
        if (!shapes.may_reach(bodies.shape[b], bodies.position[b], bodies.orientation[b],
                              pa.position, reach))
          continue;
        if (reuse_sleeping(a, b, list)) continue;
        collide(shapes, bodies.shape[a], pa, bodies.shape[b],
                Pose(bodies.position[b], bodies.orientation[b]),
                sb.speed[a] * dt + (skin + kTouch) * shapes.bounding_radius[bodies.shape[a]], m);
        emit(a, b, m, list);
      }
    }
  }
  for (auto& v : per_thread_contacts_) contacts.insert(contacts.end(), v.begin(), v.end());

  // Who sleeps at this narrow phase: the next one may copy these contacts (reuse_sleeping).
  if (settings.sleep_velocity > 0.0) {
    asleep_at_narrow_.resize(bodies.count());
    for (int i = 0; i < bodies.count(); ++i) asleep_at_narrow_[i] = bodies.is_asleep(i);
  }

  // Collision candidates: contacts closed or closing within the step, g + u_n dt <= 0 (a chain
  // of exactly touching balls struck at one end is one multiple impact).
  out.candidates.clear();
  last_.contacts = static_cast<long>(contacts.size());
  for (int k = 0; k < static_cast<int>(contacts.size()); ++k) {
    const Contact& c = contacts[k];
    last_.max_penetration = std::max(last_.max_penetration, -c.gap);
    const Vec3 u = contact_velocity(c, sb.dynamic);
    // With the resting pass every reported contact joins the islands (speculative contacts);
    // the collision solver still only sees contacts that would close within the step.
    if (c.gap + c.normal.dot(u) * dt <= 0.0 || resting_) out.candidates.push_back(k);
  }
  last_.candidates = static_cast<long>(out.candidates.size());
}

void World::warm_start(std::vector<Contact>& contacts) const {
  // A contact is the same as last step's when it joins the same two bodies and its point moved
  // less than a quarter of the smaller body's bounding radius (manifold points are not numbered
  // stably for boxes, so points are matched by position).
  if (previous_.empty() || !resting_) return;
  // Impulses scale with the step: a sub-step of h carries h / h' of an impulse found over h'
  // (exactly 1 while the step is not split).
  const double scale = previous_h_ > 0.0 && previous_h_ != h_ ? h_ / previous_h_ : 1.0;
  auto less = [&](int x, const std::pair<int, int>& key) {
    return std::make_pair(previous_[x].a, previous_[x].b) < key;
  };
  // The contacts come in runs sorted by (a, b) (pair contacts, then wall contacts): within a
  // run the search goes on from the last contact's place, a new run starts a binary search.
  auto it = previous_order_.begin();
  std::pair<int, int> last_key(-1, -1);
  for (Contact& c : contacts) {
    const std::pair<int, int> key(c.a, c.b);
    if (key < last_key)
      it = std::lower_bound(previous_order_.begin(), previous_order_.end(), key, less);
    else
      while (it != previous_order_.end() && less(*it, key)) ++it;
    last_key = key;
    const double ra = shapes.bounding_radius[bodies.shape[c.a]];
    const double rb = shapes.bounding_radius[bodies.shape[c.b]];
    double best = 0.0625 * std::min(ra, rb) * std::min(ra, rb);
    const Contact* match = nullptr;
    for (auto p = it;
         p != previous_order_.end() && previous_[*p].a == c.a && previous_[*p].b == c.b; ++p) {
      const double d2 = (previous_[*p].point - c.point).squaredNorm();
      if (d2 < best) {
        best = d2;
        match = &previous_[*p];
      }
    }
    if (match) {
      c.normal_impulse = match->normal_impulse;
      c.tangent_impulse = match->tangent_impulse;
      if (scale != 1.0) {
        c.normal_impulse *= scale;
        c.tangent_impulse *= scale;
      }
    }
  }
}

void World::remember_contacts(const std::vector<Contact>& contacts) {
  if (!resting_) return;
  previous_ = contacts;
  asleep_at_previous_.swap(asleep_at_narrow_);  // who slept when previous_ was found
  asleep_at_narrow_.clear();
  previous_h_ = h_;
  previous_order_.resize(previous_.size());
  for (std::size_t k = 0; k < previous_.size(); ++k) previous_order_[k] = static_cast<int>(k);
  // By (a, b); the order of a pair's points among themselves is std::sort's (the warm start
  // takes the first of equally near points, so it is part of the trajectory).
  // The comparison reads a packed key per contact instead of two fields of each 192-byte
  // contact: the same outcomes, so the same order, with far fewer cache misses.
  previous_key_.resize(previous_.size());
  for (std::size_t k = 0; k < previous_.size(); ++k)
    previous_key_[k] = pair_key(previous_[k].a, previous_[k].b);
  std::sort(previous_order_.begin(), previous_order_.end(),
            [&](int x, int y) { return previous_key_[x] < previous_key_[y]; });
}

void World::build_islands(const StepBodies& sb, const StepContacts& sc, Islands& out) {
  island_builder_.build(sc.contacts, sc.candidates, sb.dynamic, out);
  last_.islands = out.count();
}

void World::resolve_islands(const StepBodies& sb, const Islands& islands,
                            std::vector<Contact>& contacts, std::vector<Motion>& motion) {
  const int ni = islands.count();
  // Every body flies free (no contact this step) until an island claims it.
  motion.assign(bodies.count(), Motion{});
  if (ni == 0) {
    if (!nets.empty()) book_net_contacts(islands);  // the free nodes
    return;
  }
  const double v_rest = settings.effective_resting_velocity();
  // Gather island-local copies: bodies numbered 0..n-1 within their island, static bodies -1.
  const int nb = islands.body_start[ni];
  isl_.v.resize(nb);
  isl_.w.resize(nb);
  isl_.inv_mass.resize(nb);
  isl_.inv_inertia.resize(nb);
  isl_.x.resize(nb);
  isl_.local_index.assign(bodies.count(), -1);
  for (int k = 0; k < ni; ++k)
    for (int s = islands.body_start[k]; s < islands.body_start[k + 1]; ++s) {
      const int i = islands.body_order[s];
      isl_.local_index[i] = s - islands.body_start[k];
      isl_.v[s] = bodies.velocity[i];
      isl_.w[s] = bodies.angular_velocity[i];
      isl_.inv_mass[s] = bodies.inv_mass[i];
      isl_.inv_inertia[s] = bodies.inv_inertia_world[i];
      isl_.x[s] = bodies.position[i];
    }
  // Island-local contacts. With the hybrid resting treatment, each island's collisions (faster
  // approach than v_rest) come first and go to the collision solver; the resting pass then sees
  // the whole island. Otherwise every contact goes to the collision solver, slow ones with e = 0.
  isl_.contacts.resize(islands.contact_order.size());
  isl_.source.resize(islands.contact_order.size());
  isl_.collisions.assign(ni, 0);
  // Classify each contact once: slow (resting) or a collision.
  isl_.slow.resize(isl_.contacts.size());
  for (std::size_t s = 0; s < isl_.slow.size(); ++s) {
    const Contact& c = contacts[islands.contact_order[s]];
    const double un = c.normal.dot(contact_velocity(c, sb.dynamic));
    const bool closing = c.gap + un * h_ <= 0.0;
    isl_.slow[s] = (v_rest > 0.0 && un > -v_rest) || !closing;
  }
  for (int k = 0; k < ni; ++k) {
    int slot = islands.contact_start[k];
    // Collisions first, then (with the resting pass) the slow ones, each group in its original
    // order. Without the resting pass every contact goes to the collision solver.
    for (int pass = 0; pass < 2; ++pass) {
      if (pass == 1 && !resting_) break;
      for (int s = islands.contact_start[k]; s < islands.contact_start[k + 1]; ++s) {
        const bool slow = isl_.slow[s];
        if (resting_ && slow != (pass == 1)) continue;
        Contact c = contacts[islands.contact_order[s]];
        // Resting contacts in the collision solver are resolved inelastically, so a pile does
        // not bounce on the g dt it gains every step. v_rest = 0 turns this off.
        if (slow) c.restitution = 0.0;
        c.a = sb.dynamic[c.a] ? isl_.local_index[c.a] : -1;
        c.b = sb.dynamic[c.b] ? isl_.local_index[c.b] : -1;
        isl_.contacts[slot] = c;
        isl_.source[slot] = islands.contact_order[s];
        ++slot;
        if (pass == 0) ++isl_.collisions[k];
      }
    }
  }
  // Largest islands first so one big island does not start last; the result of each island
  // depends only on its own data, never on which thread resolves it.
  isl_.order.resize(ni);
  for (int k = 0; k < ni; ++k) isl_.order[k] = k;
  std::stable_sort(isl_.order.begin(), isl_.order.end(), [&](int x, int y) {
    return islands.contact_start[x + 1] - islands.contact_start[x] >
           islands.contact_start[y + 1] - islands.contact_start[y];
  });
  isl_.v0.resize(nb);
  isl_.toi.assign(nb, 0.0);
  isl_.kick.assign(ni, 0.0);
  isl_.stats.assign(ni, SolverStats{});
  isl_.resting_stats.assign(ni, SolverStats{});
  // One island: the collision solver on its collisions, then the resting pass.
  auto solve_island = [&](int o) {
    const int k = isl_.order[o];
    const int b0 = islands.body_start[k];
    IslandBodies view;
    view.count = islands.body_start[k + 1] - b0;
    view.v = isl_.v.data() + b0;
    view.w = isl_.w.data() + b0;
    view.inv_mass = isl_.inv_mass.data() + b0;
    view.inv_inertia = isl_.inv_inertia.data() + b0;
    view.x = isl_.x.data() + b0;
    const int c0 = islands.contact_start[k];
    const std::span<Contact> all(isl_.contacts.data() + c0, islands.contact_start[k + 1] - c0);
    const int thread = omp_get_thread_num();
    if (isl_.collisions[k] > 0) {
      const std::span<Contact> collisions = all.first(isl_.collisions[k]);
      // Time of impact of each body: the earliest time one of its approaching contacts closes
      // (gap / -u_n; 0 for a contact already touching). The body moves with its old velocity
      // until then and with the new one after (World::displacement). Every contact of the
      // island counts, resting ones too: the old velocity must not carry a body into a
      // neighbour that only the resting pass was holding off.
      for (int s = 0; s < view.count; ++s) isl_.toi[b0 + s] = h_;
      for (const Contact& c : all) {
        const double un = c.normal.dot(impulse::relative_velocity(c, view));
        if (!(un < 0.0)) continue;
        const double t = c.gap > 0.0 ? std::min(h_, c.gap / -un) : 0.0;
        for (const int body : {c.a, c.b})
          if (body >= 0) isl_.toi[b0 + body] = std::min(isl_.toi[b0 + body], t);
      }
      for (int s = 0; s < view.count; ++s)
        if (isl_.toi[b0 + s] >= h_) isl_.toi[b0 + s] = 0.0;  // no impact
      // Gravity acts on either side of the impact: the solver sees the velocity at the impact,
      // v - g (dt - t_c), and the rest of the step's kick is given back after it. (With the
      // whole kick before the impact an elastic ball left 2 g (dt - t_c) too fast: 0.12 % per
      // bounce at 1/600 s.) The kinetic energy these two moves change is the discretisation's,
      // booked as integration.
      double kick = 0.0;
      auto shift_velocity = [&](int s, double tau) {
        const double before = view.v[s].squaredNorm();
        view.v[s] += tau * settings.gravity;
        kick += 0.5 * (view.v[s].squaredNorm() - before) / view.inv_mass[s];
      };
      for (int s = 0; s < view.count; ++s)
        if (isl_.toi[b0 + s] > 0.0) {
          shift_velocity(s, -(h_ - isl_.toi[b0 + s]));
          isl_.v0[b0 + s] = view.v[s];
        }
      // Without the resting pass the collision solver also holds resting grains (slow
      // contacts with e = 0); see book_resting_kick for the momentum it gives them.
      const bool held = !resting_ && v_rest > 0.0 &&
                        std::none_of(isl_.toi.begin() + b0, isl_.toi.begin() + b0 + view.count,
                                     [](double t) { return t > 0.0; });
      const Vec3 momentum_before = held ? island_momentum(view) : Vec3::Zero();
      isl_.stats[k] = solver_->resolve(collisions, view, thread);
      isl_.stats[k].net_dissipation();
      if (held) book_resting_kick(island_momentum(view) - momentum_before, isl_.stats[k]);
      for (int s = 0; s < view.count; ++s)
        if (isl_.toi[b0 + s] > 0.0) shift_velocity(s, h_ - isl_.toi[b0 + s]);
      isl_.kick[k] = kick;
    }
    if (resting_) isl_.resting_stats[k] = resting_->resolve(all, view, thread);
  };
  // Islands the resting pass sweeps by blocks (the largest) are resolved first, one at a time,
  // each with every thread inside the pass; then the others in parallel, one thread each.
  // Neither changes a result: an island's solve depends only on its own data.
  auto contacts_of = [&](int o) {
    const int k = isl_.order[o];
    return static_cast<std::size_t>(islands.contact_start[k + 1] - islands.contact_start[k]);
  };
  int first_small = 0;
  while (first_small < ni && resting_pgs_ && resting_pgs_->blocked(contacts_of(first_small)))
    solve_island(first_small++);
  const bool parallel = ni - first_small > 1 && islands.contact_order.size() > 256;
#pragma omp parallel for schedule(dynamic, 1) if (parallel)
  for (int o = first_small; o < ni; ++o) solve_island(o);
  // Scatter back and sum the statistics in island order (deterministic).
  for (Contact& c : contacts) {
    c.normal_impulse = 0.0;
    c.tangent_impulse = Vec3::Zero();
  }
  for (std::size_t s = 0; s < isl_.contacts.size(); ++s) {
    contacts[isl_.source[s]].normal_impulse = isl_.contacts[s].normal_impulse;
    contacts[isl_.source[s]].tangent_impulse = isl_.contacts[s].tangent_impulse;
  }
  for (int s = 0; s < nb; ++s) {
    const int i = islands.body_order[s];
    bodies.velocity[i] = isl_.v[s];
    bodies.angular_velocity[i] = isl_.w[s];
    motion[i].free = false;
    if (isl_.toi[s] > 0.0) motion[i] = {false, isl_.toi[s], isl_.v0[s]};
  }
  if (!nets.empty()) book_net_contacts(islands);
  // The islands' energies are summed exactly: the same bits in any island order (a distributed
  // run resolves islands on several hosts).
  ExactSum kick;
  SolverSums solver_sum, resting_sum;
  for (int k = 0; k < ni; ++k) {
    kick += isl_.kick[k];
    solver_sum.add(isl_.stats[k]);
    resting_sum.add(isl_.resting_stats[k]);
    last_.collisions += isl_.collisions[k];
    last_.largest_island = std::max<long>(last_.largest_island,
                                          islands.contact_start[k + 1] - islands.contact_start[k]);
  }
  ledger_.integration -= kick.value();
  solver_sum.add_to(last_.solver);
  resting_sum.add_to(last_.resting);
}

Vec3 World::island_momentum(const IslandBodies& view) {
  Vec3 p = Vec3::Zero();
  for (int s = 0; s < view.count; ++s) p += view.v[s] / view.inv_mass[s];
  return p;
}

void World::book_resting_kick(const Vec3& momentum_change, SolverStats& st) const {
  // An island the step met already in contact (no body with a time of impact inside the step)
  // is held by contact forces acting through the step alongside gravity. Their work is
  // P.(u_start + u_after)/2 from the velocity before the gravity kick, as the resting pass
  // books it per contact (solvers/resting.cpp); summed over the island's contacts the shift
  // from the kicked velocity is (g dt / 2).(sum of the impulses on the island) = (g dt / 2).dP,
  // internal impulses cancelling. The solver booked it as dissipation (a grain at rest showed
  // m |g dt|^2 / 2 of restitution every step); it is the time discretisation's: taken from
  // restitution first, then friction, never below zero, and booked as integration.
  const double shift = 0.5 * h_ * settings.gravity.dot(momentum_change);
  st.integration -= shift;
  st.dissipated_restitution += shift;
  st.net_dissipation();
  st.negative_dissipation_to_integration();
}

void World::correct_positions(const std::vector<Contact>& contacts) {
  // Position projection (jolt appendix B.18): each penetrating contact moves its bodies apart
  // along the normal by k_p times the depth beyond the slop, shared by inverse mass. A body with
  // several penetrating contacts takes the mean of their corrections, so the four corners of a
  // resting face do not push it four times. Velocities are untouched: no kinetic energy is
  // added; the potential energy it changes is booked as `correction` in the ledger.
  const double kp = settings.projection;
  if (kp <= 0.0) return;
  correction_.assign(bodies.count(), Vec3::Zero());
  correction_count_.assign(bodies.count(), 0);
  bool any = false;
  for (const Contact& c : contacts) {
    const double depth = -c.gap - settings.penetration_slop;
    if (depth <= 0.0) continue;
    // A sleeping body is held where it fell asleep (its island was not solved).
    const double ia = bodies.is_awake(c.a) ? bodies.inv_mass[c.a] : 0.0;
    const double ib = bodies.is_awake(c.b) ? bodies.inv_mass[c.b] : 0.0;
    if (ia + ib <= 0.0) continue;
    const Vec3 d = kp * depth * c.normal;
    if (ia > 0.0) {
      correction_[c.a] += (ia / (ia + ib)) * d;
      ++correction_count_[c.a];
    }
    if (ib > 0.0) {
      correction_[c.b] -= (ib / (ia + ib)) * d;
      ++correction_count_[c.b];
    }
    any = true;
  }
  if (!any) return;
  double work = 0.0;
  for (int i = 0; i < bodies.count(); ++i) {
    if (correction_count_[i] == 0) continue;
    const Vec3 dx = correction_[i] / correction_count_[i];
    bodies.position[i] += dx;
    work += bodies.mass[i] * settings.gravity.dot(dx);  // = - change of potential energy
  }
  ledger_.correction += work;
}

void World::damp_and_integrate(const std::vector<Motion>& motion, const WallCorrection& wall) {
  const double dt = h_;
  const double f = 1.0 - settings.damping * dt;  // 2024 Eqs. 47-48, 0 <= xi dt <= 1 (Eq. 49)
  double damped = 0.0, gravity_work = 0.0, rotation_gain = 0.0, wall_work = 0.0;
  for (int i = 0; i < bodies.count(); ++i) {
    if (!bodies.is_awake(i)) continue;
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
    gravity_work += bodies.mass[i] * settings.gravity.dot(dx);
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
      rotation_gain += 0.5 * w.dot(l) - before;
    }
  }
  ledger_.damping += damped;
  ledger_.integration += gravity_work - rotation_gain;
  ledger_.correction += wall_work;  // as position projection: minus the potential energy added
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
  const double tc = m.impact_time, tau = dt - tc;
  return tc * (m.impact_velocity - 0.5 * tc * g) + tau * (v - 0.5 * tau * g);
}

void World::update_ledger() {
  for (const SolverStats* s : {&last_.solver, &last_.resting}) {
    ledger_.restitution += s->dissipated_restitution;
    ledger_.friction += s->dissipated_friction;
    ledger_.truncation += s->truncated;
    ledger_.integration += s->integration;
  }
  ledger_.measure(bodies, settings.gravity);
  if (!nets.empty()) {
    const double elastic = net_elastic_energy();
    ledger_.integration += net_elastic_ - elastic;  // the springs' work over the displacement
    ledger_.elastic = net_elastic_ = elastic;
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
  if (last_.substeps > 1) {
    totals_.split_steps += 1;
    totals_.substeps += last_.substeps;
  }
  totals_.redone_steps += last_.redone;
  totals_.substep_bound_reached += last_.substep_bound_reached;
  totals_.sleeping_islands += last_.sleeping_islands;
  totals_.islands_fell_asleep += last_.islands_fell_asleep;
  totals_.islands_woken += last_.islands_woken;
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
