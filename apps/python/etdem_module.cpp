// The etdem Python module (pybind11): bindings only. Scenarios go through the loader of the CLI
// (io/scenario.hpp), worlds step through World::step; nothing physical is computed here.
//   import etdem
//   w = etdem.load("examples/drop_box.toml", set={"simulation.dt": 1e-3})
//   w.run(until=1.0)
//   print(w.positions[0], w.energy["residual"])
// docs/design.md ("The Python module") says what is a view and what is a copy.
#include <exception>

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include "etdem/io/scenario.hpp"
#include "etdem/io/scenario_error.hpp"
#include "etdem/io/toml_reader.hpp"
#include "py_toml.hpp"
#include "py_world.hpp"

namespace py = pybind11;
using etdem::python::PyWorld;
using etdem::python::ScenarioBuilder;

namespace {

int threads_of(py::handle threads, const std::string& file) {
  if (threads.is_none()) return -1;
  if (!PyLong_Check(threads.ptr()) || PyBool_Check(threads.ptr()))
    throw etdem::InputError(etdem::input_message(file, 0, "threads", "expected an integer",
                                                 py::repr(threads).cast<std::string>()));
  const long n = threads.cast<long>();
  if (n < 0 || n > 4096)
    throw etdem::InputError(
        etdem::input_message(file, 0, "threads", "must be in [0, 4096]", std::to_string(n)));
  return static_cast<int>(n);
}

std::unique_ptr<PyWorld> load(const std::string& path, py::handle set, py::handle threads,
                              py::handle resume) {
  const std::vector<std::string> overrides = etdem::python::overrides_of(set, path);
  const int n = threads_of(threads, path);
  auto w = std::make_unique<PyWorld>(etdem::load_scenario(path, overrides), n);
  if (!resume.is_none()) {
    if (!py::isinstance<py::str>(resume))
      throw etdem::InputError(etdem::input_message(path, 0, "resume", "expected a path",
                                                   py::repr(resume).cast<std::string>()));
    w->resume(resume.cast<std::string>());
  }
  return w;
}

std::unique_ptr<PyWorld> build(const ScenarioBuilder& b, py::handle set, py::handle threads) {
  const std::vector<std::string> overrides = etdem::python::overrides_of(set, b.name());
  const int n = threads_of(threads, b.name());
  return std::make_unique<PyWorld>(b.scenario(overrides), n);
}

using Field = PyWorld::Field;

template <Field F>
void def_field(py::class_<PyWorld>& c, const char* name, const char* doc) {
  c.def_property(
      name, [](py::object self) { return self.cast<PyWorld&>().view(F, self); },
      [](PyWorld& w, py::handle values) { w.assign(F, values); }, doc);
}

}  // namespace

PYBIND11_MODULE(etdem, m) {
  m.doc() =
      "etdem: impulse-based discrete element simulation (energy tracking method).\n"
      "load() reads a scenario file; Scenario() builds one in Python; both give a World.";

  // Bad input of any kind (a scenario, a value given to the module) is a ValueError with the
  // loader's one-line message; failures while running (a non-finite state) RuntimeError.
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const etdem::InputError& e) {
      PyErr_SetString(PyExc_ValueError, e.what());
    }
  });

  py::class_<ScenarioBuilder> scenario(m, "Scenario",
                                       R"(A scenario built in Python, table by table, with
the keys of a scenario file (docs/scenario.md). Nothing is checked until build() or check(),
which pass the tables through the same loader as a file: same validation, same one-line
messages (ValueError), with `name` in place of the file name.

    s = etdem.Scenario()
    s.simulation(dt=1e-3, duration=1.0, gravity=[0, 0, -9.81])
    s.material(name="steel", density=7800.0, restitution=0.5, friction=0.3)
    s.shape(name="ball", type="sphere", radius=0.01)
    s.body(shape="ball", material="steel", position=[0, 0, 0.1])
    s.wall(type="plane", point=[0, 0, 0], normal=[0, 0, 1], material="steel")
    w = s.build())");
  scenario.def(py::init<std::string>(), py::arg("name") = "<python>")
      .def(py::init([](py::handle d, std::string name) {
             return std::make_unique<ScenarioBuilder>(d, std::move(name));
           }),
           py::arg("tables"), py::arg("name") = "<python>",
           "From a dict shaped like a scenario file: {'simulation': {...}, 'material': [{...}], "
           "...}")
      .def(
          "simulation",
          [](ScenarioBuilder& b, py::kwargs kw) -> ScenarioBuilder& {
            b.merge("simulation", kw);
            return b;
          },
          py::return_value_policy::reference_internal,
          "Sets [simulation] keys (sub-tables as dicts: etm={'lambda': 30}).")
      .def(
          "output",
          [](ScenarioBuilder& b, py::kwargs kw) -> ScenarioBuilder& {
            b.merge("output", kw);
            return b;
          },
          py::return_value_policy::reference_internal, "Sets [output] keys.")
      .def(
          "set",
          [](ScenarioBuilder& b, const std::string& table, py::dict keys) -> ScenarioBuilder& {
            b.merge(table, keys);
            return b;
          },
          py::arg("table"), py::arg("keys"), py::return_value_policy::reference_internal,
          "Sets keys of a table from a dict (keys that are not Python names: 'lambda').")
      .def(
          "add",
          [](ScenarioBuilder& b, const std::string& array, py::dict keys) -> ScenarioBuilder& {
            b.append(array, keys);
            return b;
          },
          py::arg("array"), py::arg("keys"), py::return_value_policy::reference_internal,
          "Appends a table to an array of tables ('material', 'shape', ...) from a dict.")
      .def("toml", &ScenarioBuilder::toml_text,
           "The scenario as TOML text: saved to a file, `etdem run` builds the same world.")
      .def(
          "check",
          [](const ScenarioBuilder& b, py::handle set) {
            PyWorld w(b.scenario(etdem::python::overrides_of(set, b.name())), -1);
            return w.world.bodies.count();
          },
          py::arg("set") = py::none(),
          "Validates and builds the world once (overlaps); returns the number of bodies.")
      .def("build", &build, py::arg("set") = py::none(), py::arg("threads") = py::none(),
           "The World of this scenario (ValueError naming the key and value when it is wrong).")
      .def_property_readonly("name", &ScenarioBuilder::name);
  for (const char* array : {"material", "shape", "body", "fill", "wall", "net", "event"})
    scenario.def(
        array,
        [a = std::string(array)](ScenarioBuilder& b, py::kwargs kw) -> ScenarioBuilder& {
          b.append(a, kw);
          return b;
        },
        py::return_value_policy::reference_internal,
        ("Appends a [[" + std::string(array) + "]] table with these keys.").c_str());

  py::class_<PyWorld> world(m, "World", R"(A world built from a scenario, stepped from Python.
positions, velocities and angular_velocities are numpy views (N x 3, float64) of the world's
own arrays: writing into them changes the next step; assigning a whole array checks its shape
and values. orientations (N x 4, w, x, y, z) is a copy; assign it to change them. Rows are body
ids, in the order of the CLI's outputs (bodies, fills' grains, then walls).)");
  def_field<Field::Position>(world, "positions", "N x 3 centres of mass [m] (a view)");
  def_field<Field::Velocity>(world, "velocities", "N x 3 velocities [m/s] (a view)");
  def_field<Field::AngularVelocity>(world, "angular_velocities",
                                    "N x 3 angular velocities, world frame [rad/s] (a view)");
  world
      .def_property(
          "orientations", &PyWorld::orientations,
          [](PyWorld& w, py::handle v) { w.set_orientations(v); },
          "N x 4 unit quaternions w, x, y, z, body to world (a copy; assign to set)")
      .def("step", &PyWorld::step, py::arg("n") = 1,
           "Takes n steps (the GIL is released); returns the steps taken.")
      .def("run", &PyWorld::run, py::arg("until") = py::none(), py::arg("callback") = py::none(),
           py::arg("every") = 1,
           "Steps until the time `until` [s] (default: the scenario's duration), calling "
           "callback(world) every `every` steps; a callback returning False stops the run. "
           "Returns the steps taken.")
      .def_property_readonly(
          "time", [](const PyWorld& w) { return w.world.time(); }, "simulated time [s]")
      .def_property_readonly("step_count", [](const PyWorld& w) { return w.world.step_count(); })
      .def_property_readonly("dt", [](const PyWorld& w) { return w.world.settings.dt; })
      .def_property_readonly("duration", [](const PyWorld& w) { return w.scenario.duration; })
      .def_property_readonly("scenario", [](const PyWorld& w) { return w.scenario.file; })
      .def_property_readonly("energy", &PyWorld::energy,
                             "The energy ledger [J] as a dict (docs/scenario.md, energy.csv)")
      .def("contacts", &PyWorld::contacts,
           "Contacts of the last step (copies): points, normals (B to A), gaps [m], bodies "
           "(a, b), impulses (the resting pass's, on A [N s]), normal_impulses.")
      .def("summary", &PyWorld::summary, "What summary.json would hold now, as a dict.")
      .def("write_frame", &PyWorld::write_frame, py::arg("directory"),
           "Writes the VTK frame of the current state into DIRECTORY/frames and rewrites "
           "DIRECTORY/particles.pvd.")
      .def("write_state", &PyWorld::write_state, py::arg("path"), "Writes state.csv.")
      .def("save_checkpoint", &PyWorld::save_checkpoint, py::arg("path"),
           "Writes a checkpoint of the world (atomic); etdem.load(scenario, resume=path) "
           "continues from it bit for bit.")
      .def("__len__", [](const PyWorld& w) { return w.world.bodies.count(); })
      .def("__repr__", &PyWorld::repr)
      .def_property_readonly(
          "masses",
          [](const PyWorld& w) {
            return py::array_t<double>(static_cast<py::ssize_t>(w.world.bodies.mass.size()),
                                       w.world.bodies.mass.data());
          },
          "masses [kg] (a copy; 0 for walls)")
      .def_property_readonly(
          "dynamic",
          [](const PyWorld& w) {
            const etdem::Bodies& b = w.world.bodies;
            py::array_t<bool> out(b.count());
            auto o = out.mutable_unchecked<1>();
            for (int i = 0; i < b.count(); ++i) o(i) = b.is_dynamic(i);
            return out;
          },
          "True for the bodies that move (a copy): w.positions[w.dynamic]")
      .def_property_readonly(
          "names", [](const PyWorld& w) { return w.world.bodies.name; }, "body names ('' = none)")
      .def_property_readonly(
          "shape_names",
          [](const PyWorld& w) {
            std::vector<std::string> out;
            for (int s : w.world.bodies.shape) out.push_back(w.world.shapes.name[s]);
            return out;
          },
          "each body's shape name");

  m.def("load", &load, py::arg("path"), py::arg("set") = py::none(),
        py::arg("threads") = py::none(), py::arg("resume") = py::none(),
        R"(Reads a scenario file through the loader of `etdem run` and builds its world.
set: overrides as {"simulation.dt": 1e-3, "material[0].friction": 0.3} (or ["key=value", ...]);
threads: OpenMP threads (0 = default); resume: a checkpoint of this scenario with these set
values (World.save_checkpoint, or etdem run's DIR/checkpoints/*.bin) to continue from.
Bad input raises ValueError with the CLI's message.)");
}
