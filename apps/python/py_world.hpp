// The world as the Python module holds it (etdem.World): the scenario it was built from, the
// World, and what a run adds around the step (wall time, the largest residual, VTK writers).
// State arrays are numpy views of the World's own vectors where their layout allows (positions,
// velocities, angular velocities: N x 3 float64 with a row stride of one Vec3) and copies where
// it does not (orientations: Eigen stores x, y, z, w; the module gives w, x, y, z).
#pragma once

#include <atomic>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include "etdem/io/scenario_spec.hpp"
#include "etdem/io/vtk_writer.hpp"
#include "etdem/world/world.hpp"

namespace etdem::python {

namespace py = pybind11;

class PyWorld {
 public:
  /// Builds the world of `scenario` as `etdem run` does (build_world, then initialize); a
  /// `threads` >= 0 replaces [simulation] threads (0 = OpenMP's default).
  PyWorld(Scenario scenario, int threads);

  /// n steps with the GIL released; returns the steps taken.
  long step(long n);
  /// Steps until `until` (default: the scenario's duration), calling `callback(world)` every
  /// `every` steps; a callback that returns False stops the run. Returns the steps taken.
  long run(py::object until, py::object callback, long every);

  /// Which of the three N x 3 vectors a view or an assignment addresses.
  enum class Field { Position, Velocity, AngularVelocity };
  /// A numpy view (no copy) of a field; `self` is the Python World, kept alive by the view.
  py::array view(Field f, py::handle self);
  /// Writes an N x 3 array into a field after checking its shape and every value.
  void assign(Field f, py::handle values);
  py::array orientations() const;            // copy, N x 4 (w, x, y, z)
  void set_orientations(py::handle values);  // unit within 1e-3 (as the loader), normalised

  py::dict energy();
  py::dict contacts() const;
  py::dict summary() const;
  void write_frame(const std::string& directory);
  void write_state(const std::string& path) const;
  /// Writes a checkpoint of the world (its sections of io/checkpoint.hpp, no run outputs) to
  /// `path`, atomically; ValueError when it cannot be written.
  void save_checkpoint(const std::string& path);
  /// Takes the state of a checkpoint of this scenario (written by save_checkpoint or by
  /// `etdem run`); ValueError when it is not one, is damaged or belongs to another scenario.
  void resume(const std::string& path);
  std::string repr() const;

  Scenario scenario;
  World world;
  std::vector<BodyOrigin> origin;

 private:
  /// The state the next step will read, checked as the loader checks a scenario's bodies:
  /// finite values, coordinates within kMaxCoordinate, fixed bodies at rest. Then books what
  /// writes from Python did to the energy (World::book_external_change).
  void check_state();
  /// n steps without the GIL; Python signals (Ctrl-C) are looked at about every 0.1 s.
  long step_released(long n);
  [[noreturn]] void fail(const std::string& key, const std::string& message,
                         const std::string& value) const;

  int threads_ = 1;
  double wall_seconds_ = 0.0;
  double max_relative_residual_ = 0.0;
  std::map<std::string, std::unique_ptr<VtkWriter>> writers_;  // per output directory
  std::atomic<bool> busy_{false};  // a step in progress (from another Python thread)
};

}  // namespace etdem::python
