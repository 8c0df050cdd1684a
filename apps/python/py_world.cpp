#include "py_world.hpp"

#include <omp.h>

#include <chrono>
#include <cmath>
#include <filesystem>

#include <fmt/format.h>

#include "etdem/io/checkpoint.hpp"
#include "etdem/io/energy_csv.hpp"
#include "etdem/io/run.hpp"
#include "etdem/io/scenario.hpp"
#include "etdem/io/scenario_error.hpp"
#include "etdem/io/state_csv.hpp"
#include "etdem/io/summary_json.hpp"
#include "etdem/io/toml_reader.hpp"

namespace etdem::python {
namespace {

static_assert(sizeof(Vec3) == 3 * sizeof(double), "a numpy view needs Vec3 rows without padding");

const char* field_name(PyWorld::Field f) {
  switch (f) {
    case PyWorld::Field::Position:
      return "positions";
    case PyWorld::Field::Velocity:
      return "velocities";
    default:
      return "angular_velocities";
  }
}

std::vector<Vec3>& field_of(Bodies& b, PyWorld::Field f) {
  switch (f) {
    case PyWorld::Field::Position:
      return b.position;
    case PyWorld::Field::Velocity:
      return b.velocity;
    default:
      return b.angular_velocity;
  }
}

std::string vec_text(const double* v, int n) {
  std::string s = "[";
  for (int k = 0; k < n; ++k) s += fmt::format("{}{}", k ? ", " : "", v[k]);
  return s + "]";
}

bool is_fixed(const Bodies& b, int i) {
  return (b.flags[i] & kBodyFixed) != 0;
}

/// Holds the busy flag while the world steps (and while it is written): a second Python thread
/// that steps or writes the same world while the GIL is released gets an error instead of a
/// data race, and so does a run's callback that tries to step the world it is called from.
class BusyGuard {
 public:
  explicit BusyGuard(std::atomic<bool>& flag) : flag_(flag) {
    if (flag_.exchange(true))
      throw std::runtime_error(
          "etdem.World: the world is being stepped (by another thread, or this is a callback of "
          "its run)");
  }
  ~BusyGuard() { flag_.store(false); }
  BusyGuard(const BusyGuard&) = delete;
  BusyGuard& operator=(const BusyGuard&) = delete;

 private:
  std::atomic<bool>& flag_;
};

/// A C-contiguous float64 array of shape (n, cols), or a ValueError naming `key`.
py::array_t<double> as_rows(py::handle values, long n, int cols, const std::string& file,
                            const std::string& key) {
  auto a = py::array_t<double, py::array::c_style | py::array::forcecast>::ensure(values);
  if (!a) {
    PyErr_Clear();
    throw InputError(input_message(file, 0, key, "expected an array of numbers",
                                   py::repr(values).cast<std::string>().substr(0, 100)));
  }
  if (a.ndim() != 2 || a.shape(0) != n || a.shape(1) != cols) {
    std::string shape = "(";
    for (py::ssize_t k = 0; k < a.ndim(); ++k)
      shape += fmt::format("{}{}", k ? ", " : "", a.shape(k));
    shape += a.ndim() == 1 ? ",)" : ")";
    throw InputError(
        input_message(file, 0, key, fmt::format("expected shape ({}, {})", n, cols), shape));
  }
  return a;
}

}  // namespace

PyWorld::PyWorld(Scenario sc, int threads) : scenario(std::move(sc)) {
  if (threads >= 0) scenario.settings.threads = threads;
  origin = build_world(scenario, world);  // checks the initial state (overlaps)
  world.initialize();
  threads_ = world.settings.threads > 0 ? world.settings.threads : omp_get_max_threads();
}

void PyWorld::save_checkpoint(const std::string& path) {
  check_state();  // writes through the views are booked before the state is saved
  write_checkpoint(path, scenario.content_hash, world.step_count(),
                   world_checkpoint_sections(world));
}

void PyWorld::resume(const std::string& path) {
  const Checkpoint ck = read_checkpoint(path, scenario.content_hash, scenario.file);
  restore_world(ck, world);
}

void PyWorld::fail(const std::string& key, const std::string& message,
                   const std::string& value) const {
  throw InputError(input_message(scenario.file, 0, key, message, value));
}

void PyWorld::check_state() {
  const Bodies& b = world.bodies;
  for (int i = 0; i < b.count(); ++i) {
    for (const Field f : {Field::Position, Field::Velocity, Field::AngularVelocity}) {
      const Vec3& v = field_of(world.bodies, f)[i];
      const std::string key = fmt::format("{}[{}]", field_name(f), i);
      if (!v.allFinite()) fail(key, "must be finite", vec_text(v.data(), 3));
      if (f == Field::Position && v.cwiseAbs().maxCoeff() > kMaxCoordinate)
        fail(key, fmt::format("lies beyond {:g} m of the origin", kMaxCoordinate),
             vec_text(v.data(), 3));
      if (f != Field::Position && is_fixed(b, i) && !v.isZero(0.0))
        fail(key, fmt::format("body {} ('{}') is fixed: it stays at rest", i, b.name[i]),
             vec_text(v.data(), 3));
    }
  }
  world.wake_all();
  world.book_external_change();
}

long PyWorld::step_released(long n) {
  using clock = std::chrono::steady_clock;
  long done = 0;
  while (done < n) {
    const auto t0 = clock::now();
    {
      py::gil_scoped_release release;
      // OpenMP's thread count is per calling thread: a Python thread other than the one that
      // built the world starts with the default, while the solvers' scratch was sized for the
      // count at World::initialize. Step with that count.
      omp_set_num_threads(threads_);
      while (done < n) {
        world.step();
        ++done;
        max_relative_residual_ =
            std::max(max_relative_residual_, relative_residual(world.ledger()));
        if (clock::now() - t0 > std::chrono::milliseconds(100)) break;
      }
    }
    wall_seconds_ += std::chrono::duration<double>(clock::now() - t0).count();
    if (PyErr_CheckSignals() != 0) throw py::error_already_set();
  }
  return done;
}

long PyWorld::step(long n) {
  if (n < 0 || n > 1'000'000'000'000L) fail("step", "n must be in [0, 1e12]", fmt::format("{}", n));
  const BusyGuard busy(busy_);
  check_state();
  return step_released(n);
}

long PyWorld::run(py::object until, py::object callback, long every) {
  if (every < 1) fail("run", "every must be >= 1", fmt::format("{}", every));
  if (!callback.is_none() && !PyCallable_Check(callback.ptr()))
    fail("run", "callback must be callable", py::repr(callback).cast<std::string>());
  double end = scenario.duration;
  if (!until.is_none()) {
    if (!PyFloat_Check(until.ptr()) && !PyLong_Check(until.ptr()) &&
        !py::hasattr(until, "__float__"))
      fail("run", "until must be a time in s", py::repr(until).cast<std::string>());
    end = until.cast<double>();
  }
  if (!std::isfinite(end)) fail("run", "until must be finite", fmt::format("{}", end));
  // Steps as `etdem run` counts them: from t = 0 to the duration this is Scenario::steps().
  const double dt = world.settings.dt;
  const double remaining = end - world.time();
  const long steps = remaining / dt <= 1e-9 ? 0 : steps_for(remaining, dt);
  if (remaining / dt > 1e12) fail("run", "more than 1e12 steps to go", fmt::format("{}", end));
  const BusyGuard busy(busy_);  // a callback cannot step this world either
  long taken = 0;
  const py::object self = py::cast(this, py::return_value_policy::reference);
  while (taken < steps) {
    const long chunk = callback.is_none() ? steps - taken : std::min(every, steps - taken);
    check_state();
    taken += step_released(chunk);
    if (callback.is_none()) continue;
    // None (no return value) goes on; any false value (False, numpy's False, 0) stops.
    const py::object r = callback(self);
    if (r.is_none()) continue;
    const int truth = PyObject_IsTrue(r.ptr());
    if (truth < 0) throw py::error_already_set();
    if (truth == 0) break;
  }
  return taken;
}

py::array PyWorld::view(Field f, py::handle self) {
  std::vector<Vec3>& v = field_of(world.bodies, f);
  const py::ssize_t n = static_cast<py::ssize_t>(v.size());
  return py::array(
      py::dtype::of<double>(), {n, py::ssize_t{3}},
      {static_cast<py::ssize_t>(sizeof(Vec3)), static_cast<py::ssize_t>(sizeof(double))},
      v.empty() ? nullptr : v.front().data(), self);
}

void PyWorld::assign(Field f, py::handle values) {
  const BusyGuard busy(busy_);
  Bodies& b = world.bodies;
  const long n = b.count();
  const py::array_t<double> a = as_rows(values, n, 3, scenario.file, field_name(f));
  const auto r = a.unchecked<2>();
  std::vector<Vec3> next(n);  // read fully first: `values` may be the view itself
  for (long i = 0; i < n; ++i) next[i] = Vec3(r(i, 0), r(i, 1), r(i, 2));
  const std::vector<Vec3>& now = field_of(b, f);
  for (int i = 0; i < n; ++i) {
    const std::string key = fmt::format("{}[{}]", field_name(f), i);
    if (!next[i].allFinite()) fail(key, "must be finite", vec_text(next[i].data(), 3));
    if (f == Field::Position && next[i].cwiseAbs().maxCoeff() > kMaxCoordinate)
      fail(key, fmt::format("lies beyond {:g} m of the origin", kMaxCoordinate),
           vec_text(next[i].data(), 3));
    if (is_fixed(b, i) && next[i] != now[i])
      fail(key, fmt::format("body {} ('{}') is fixed: walls do not move", i, b.name[i]),
           vec_text(next[i].data(), 3));
  }
  field_of(b, f) = std::move(next);
  world.wake_all();
  world.book_external_change();
}

py::array PyWorld::orientations() const {
  const Bodies& b = world.bodies;
  py::array_t<double> out({static_cast<py::ssize_t>(b.count()), py::ssize_t{4}});
  auto w = out.mutable_unchecked<2>();
  for (int i = 0; i < b.count(); ++i) {
    const Quat& q = b.orientation[i];
    w(i, 0) = q.w(), w(i, 1) = q.x(), w(i, 2) = q.y(), w(i, 3) = q.z();
  }
  return out;
}

void PyWorld::set_orientations(py::handle values) {
  const BusyGuard busy(busy_);
  Bodies& b = world.bodies;
  const long n = b.count();
  const py::array_t<double> a = as_rows(values, n, 4, scenario.file, "orientations");
  const auto r = a.unchecked<2>();
  std::vector<Quat> next(n);
  for (int i = 0; i < n; ++i) {
    const std::string key = fmt::format("orientations[{}]", i);
    const double q[4] = {r(i, 0), r(i, 1), r(i, 2), r(i, 3)};
    const Quat given(q[0], q[1], q[2], q[3]);
    if (!given.coeffs().allFinite()) fail(key, "must be finite", vec_text(q, 4));
    // The loader's rule for [[body]] orientation: unit within 1e-3, then normalised.
    if (std::abs(given.norm() - 1.0) > 1e-3)
      fail(key, "must be a unit quaternion [w, x, y, z] (norm within 1e-3 of 1)", vec_text(q, 4));
    const Quat& old = b.orientation[i];
    if (is_fixed(b, i) &&
        !(q[0] == old.w() && q[1] == old.x() && q[2] == old.y() && q[3] == old.z()))
      fail(key, fmt::format("body {} ('{}') is fixed: walls do not turn", i, b.name[i]),
           vec_text(q, 4));
    next[i] = is_fixed(b, i) ? old : given.normalized();
  }
  b.orientation = std::move(next);
  b.update_world_inertia();
  world.wake_all();
  world.book_external_change();
}

py::dict PyWorld::energy() {
  const BusyGuard busy(busy_);
  world.book_external_change();
  const EnergyLedger& l = world.ledger();
  py::dict d;
  for (const LedgerColumn& c : kLedgerColumns) d[c.name] = l.*c.member;
  d["kinetic"] = l.kinetic();
  d["total"] = l.total();
  d["dissipated"] = l.dissipated();
  d["residual"] = l.residual();
  d["relative_residual"] = relative_residual(l);
  return d;
}

py::dict PyWorld::contacts() const {
  const auto cs = world.contacts();
  const py::ssize_t m = static_cast<py::ssize_t>(cs.size());
  py::array_t<double> points({m, py::ssize_t{3}}), normals({m, py::ssize_t{3}}),
      impulses({m, py::ssize_t{3}}), gaps(m), normal_impulses(m);
  py::array_t<long> bodies({m, py::ssize_t{2}});
  auto p = points.mutable_unchecked<2>(), nn = normals.mutable_unchecked<2>(),
       im = impulses.mutable_unchecked<2>();
  auto g = gaps.mutable_unchecked<1>(), ni = normal_impulses.mutable_unchecked<1>();
  auto ids = bodies.mutable_unchecked<2>();
  for (py::ssize_t k = 0; k < m; ++k) {
    const Contact& c = cs[k];
    const Vec3 total = c.normal_impulse * c.normal + c.tangent_impulse;
    for (int j = 0; j < 3; ++j) p(k, j) = c.point[j], nn(k, j) = c.normal[j], im(k, j) = total[j];
    g(k) = c.gap;
    ni(k) = c.normal_impulse;
    ids(k, 0) = c.a, ids(k, 1) = c.b;
  }
  py::dict d;
  d["points"] = points;
  d["normals"] = normals;
  d["gaps"] = gaps;
  d["bodies"] = bodies;
  d["impulses"] = impulses;
  d["normal_impulses"] = normal_impulses;
  return d;
}

py::dict PyWorld::summary() const {
  RunInfo info;
  info.wall_seconds = wall_seconds_;
  info.threads = threads_;
  info.max_relative_residual = max_relative_residual_;
  for (const auto& [dir, w] : writers_) info.frames += w->frames();
  info.status = world.step_count() >= scenario.steps() ? "completed" : "in progress";
  const nlohmann::json j = make_summary(scenario, world, info);
  return py::module_::import("json").attr("loads")(j.dump()).cast<py::dict>();
}

void PyWorld::write_frame(const std::string& directory) {
  namespace fs = std::filesystem;
  std::error_code ec;
  fs::create_directories(fs::path(directory) / "frames", ec);
  if (ec || !fs::is_directory(fs::path(directory) / "frames"))
    throw InputError(fmt::format("{}: cannot create the output directory ({})", directory,
                                 ec ? ec.message() : "not a directory"));
  auto& w = writers_[directory];
  if (!w)
    w = std::make_unique<VtkWriter>(directory, wall_quads(scenario, origin),
                                    vtk_encoding(scenario.output));
  w->write_frame(world);
  w->write_pvd();
}

void PyWorld::write_state(const std::string& path) const {
  write_state_csv(path, world);
}

std::string PyWorld::repr() const {
  long dynamic = 0;
  for (int i = 0; i < world.bodies.count(); ++i) dynamic += world.bodies.is_dynamic(i);
  return fmt::format("<etdem.World '{}': {} bodies ({} dynamic), step {}, t = {:.6g} s>",
                     scenario.file, world.bodies.count(), dynamic, world.step_count(),
                     world.time());
}

}  // namespace etdem::python
