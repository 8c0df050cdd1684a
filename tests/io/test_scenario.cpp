// Scenario loading: every kind of bad input becomes one ScenarioError line naming the file, the
// key and the value (table-driven, each case a small edit of a valid scenario written to a temp
// file); good input gives deterministic fills, working overrides and named container planes.
#include <gtest/gtest.h>

#include <array>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>

#include "etdem/io/fill.hpp"
#include "etdem/io/scenario.hpp"
#include "etdem/world/world.hpp"

namespace etdem {
namespace {

namespace fs = std::filesystem;

const std::string kBase = R"(# a valid scenario every case edits
[simulation]
dt = 0.001
duration = 0.01
gravity = [0.0, 0.0, -9.81]
solver = "etm"
[simulation.etm]
lambda = 30

[[material]]
name = "rock"
density = 2650.0
restitution = 0.3
friction = 0.5

[[shape]]
name = "grain"
type = "sphere"
radius = 0.005

[[shape]]
name = "brick"
type = "box"
half_extents = [0.01, 0.01, 0.02]

[[body]]
name = "ball"
shape = "grain"
material = "rock"
position = [0.05, 0.05, 0.15]

[[fill]]
shape = "grain"
material = "rock"
count = 10
region = { min = [0.0, 0.0, 0.0], max = [0.1, 0.1, 0.1] }
seed = 3

[[wall]]
name = "box"
type = "box"
min = [0.0, 0.0, 0.0]
max = [0.1, 0.1, 0.2]
material = "rock"

[[wall]]
name = "ground"
type = "plane"
point = [0.0, 0.0, -0.5]
normal = [0.0, 0.0, 1.0]
material = "rock"

[[event]]
time = 0.005
remove = "box.right"

[output]
every = 5
)";

/// A temp directory for the scenario files of this test program.
fs::path temp_dir() {
  static const fs::path dir = [] {
    fs::path d = fs::temp_directory_path() / ("etdem_test_scenario_" + std::to_string(::getpid()));
    fs::create_directories(d);
    return d;
  }();
  return dir;
}

/// Removes the temp directory when the test program ends.
class TempDirCleanup : public ::testing::Environment {
 public:
  void TearDown() override {
    std::error_code ec;
    fs::remove_all(temp_dir(), ec);
  }
};
[[maybe_unused]] ::testing::Environment* const kCleanup =
    ::testing::AddGlobalTestEnvironment(new TempDirCleanup);

std::string write_file(const std::string& name, const std::string& text) {
  const fs::path p = temp_dir() / name;
  std::ofstream(p) << text;
  return p.string();
}

std::string edit(const std::string& find, const std::string& replace) {
  std::string s = kBase;
  const auto at = s.find(find);
  if (at == std::string::npos)
    ADD_FAILURE() << "case text not found: " << find;
  else
    s.replace(at, find.size(), replace);
  return s;
}

struct BadCase {
  const char* label;
  const char* find;     // text of kBase to replace
  const char* replace;  // with this
  const char* key;      // must appear in the message
  const char* value;    // must appear in the message ("" = no value to quote)
};

const BadCase kBadCases[] = {
    {"dt_negative", "dt = 0.001", "dt = -0.001", "simulation.dt", "-0.001"},
    {"dt_zero", "dt = 0.001", "dt = 0.0", "simulation.dt", "0.0"},
    {"dt_string", "dt = 0.001", "dt = \"fast\"", "simulation.dt", "\"fast\""},
    {"dt_nan", "dt = 0.001", "dt = nan", "simulation.dt", "nan"},
    {"duration_zero", "duration = 0.01", "duration = 0", "simulation.duration", "0"},
    {"gravity_inf", "gravity = [0.0, 0.0, -9.81]", "gravity = [0.0, 0.0, -inf]",
     "simulation.gravity", "-inf"},
    {"gravity_short", "gravity = [0.0, 0.0, -9.81]", "gravity = [0.0, -9.81]", "simulation.gravity",
     "-9.81"},
    {"solver_unknown", "solver = \"etm\"", "solver = \"magic\"", "simulation.solver", "magic"},
    {"jolt_with_a_box", "solver = \"etm\"",
     "solver = \"jolt\"\n\n[[body]]\nshape = \"brick\"\nmaterial = \"rock\"\nposition = [0.02, "
     "0.02, 0.16]",
     "simulation.solver", "jolt"},
    {"sqm_max_iterations", "lambda = 30", "lambda = 30\n[simulation.sqm]\nmax_iterations = 0",
     "simulation.sqm.max_iterations", "0"},
    {"jolt_max_sweeps", "lambda = 30", "lambda = 30\n[simulation.jolt]\nmax_sweeps = -1",
     "simulation.jolt.max_sweeps", "-1"},
    {"lambda_zero", "lambda = 30", "lambda = 0", "simulation.etm.lambda", "0"},
    {"lambda_float", "lambda = 30", "lambda = 30.5", "simulation.etm.lambda", "30.5"},
    {"unknown_key", "lambda = 30", "lambda = 30\nlamda = 3", "simulation.etm.lamda", "3"},
    {"unknown_section", "[output]", "[foo]\nbar = 1\n[output]", "foo", "bar"},
    {"damping_dt", "solver = \"etm\"", "solver = \"etm\"\ndamping = 2000.0", "simulation.damping",
     "2000.0"},
    {"projection_one", "solver = \"etm\"", "solver = \"etm\"\nprojection = 1.0",
     "simulation.projection", "1.0"},
    {"threads_negative", "solver = \"etm\"", "solver = \"etm\"\nthreads = -2", "simulation.threads",
     "-2"},
    {"density_negative", "density = 2650.0", "density = -1.0", "material[0].density", "-1.0"},
    {"restitution_high", "restitution = 0.3", "restitution = 1.5", "material[0].restitution",
     "1.5"},
    {"friction_negative", "friction = 0.5", "friction = -0.1", "material[0].friction", "-0.1"},
    {"rolling_friction_negative", "friction = 0.5", "friction = 0.5\nrolling_friction = -0.1",
     "material[0].rolling_friction", "-0.1"},
    {"rolling_friction_outside_resting_pass",
     "solver = \"etm\"\n[simulation.etm]\nlambda = 30\n\n[[material]]\nname = \"rock\"\n"
     "density = 2650.0\nrestitution = 0.3\nfriction = 0.5",
     "solver = \"etm\"\nresting = \"etm\"\n[simulation.etm]\nlambda = 30\n\n[[material]]\n"
     "name = \"rock\"\ndensity = 2650.0\nrestitution = 0.3\nfriction = 0.5\n"
     "rolling_friction = 0.05",
     "material[0].rolling_friction", "0.05"},
    {"material_duplicate", "[[shape]]\nname = \"grain\"",
     "[[material]]\nname = \"rock\"\n\n[[shape]]\nname = \"grain\"", "material[1].name", "rock"},
    {"radius_zero", "radius = 0.005", "radius = 0.0", "shape[0].radius", "0.0"},
    {"radius_missing", "radius = 0.005", "", "shape[0].radius", ""},
    {"half_extents_negative", "half_extents = [0.01, 0.01, 0.02]",
     "half_extents = [0.01, -0.01, 0.02]", "shape[1].half_extents", "-0.01"},
    {"shape_type_unknown", "type = \"sphere\"", "type = \"blob\"", "shape[0].type", "blob"},
    {"body_unknown_material", "shape = \"grain\"\nmaterial = \"rock\"\nposition",
     "shape = \"grain\"\nmaterial = \"granite\"\nposition", "body[0].material", "granite"},
    {"body_orientation", "position = [0.05, 0.05, 0.15]",
     "position = [0.05, 0.05, 0.15]\norientation = [2.0, 0.0, 0.0, 0.0]", "body[0].orientation",
     "2.0"},
    {"body_overlap", "[[fill]]",
     "[[body]]\nshape = \"grain\"\nmaterial = \"rock\"\nposition = [0.05, 0.05, 0.155]\n\n[[fill]]",
     "body[0].position", "[0.05, 0.05, 0.15]"},
    {"body_in_floor", "position = [0.05, 0.05, 0.15]", "position = [0.05, 0.05, 0.002]",
     "body[0].position", "0.002"},
    {"fill_unknown_shape", "shape = \"grain\"\nmaterial = \"rock\"\ncount",
     "shape = \"pebble\"\nmaterial = \"rock\"\ncount", "fill[0].shape", "pebble"},
    {"fill_too_many", "count = 10", "count = 100000", "fill[0].count", "100000"},
    {"fill_count_float", "count = 10", "count = 10.0", "fill[0].count", "10.0"},
    {"fill_region_key", "max = [0.1, 0.1, 0.1] }", "max = [0.1, 0.1, 0.1], mid = [0.0, 0.0, 0.0] }",
     "fill[0].region.mid", "0.0"},
    {"fill_spacing_small", "seed = 3", "seed = 3\nspacing = 0.005", "fill[0].spacing", "0.005"},
    {"fill_jitter", "seed = 3", "seed = 3\njitter = 1.5", "fill[0].jitter", "1.5"},
    {"fill_outside_wall", "region = { min = [0.0, 0.0, 0.0]", "region = { min = [-0.05, 0.0, 0.0]",
     "fill[0]", "grain 0 overlaps wall 'box.left'"},
    {"wall_type_unknown", "name = \"box\"\ntype = \"box\"", "name = \"box\"\ntype = \"cylinder\"",
     "wall[0].type", "cylinder"},
    {"wall_box_inverted", "max = [0.1, 0.1, 0.2]", "max = [0.1, 0.1, -0.2]", "wall[0].max", "-0.2"},
    {"wall_zero_normal", "normal = [0.0, 0.0, 1.0]", "normal = [0.0, 0.0, 0.0]", "wall[1].normal",
     "0.0"},
    {"wall_duplicate", "name = \"ground\"", "name = \"box.floor\"", "wall[1].name", "box.floor"},
    {"wall_mesh_missing_file",
     "name = \"ground\"\ntype = \"plane\"\npoint = [0.0, 0.0, -0.5]\nnormal = [0.0, 0.0, 1.0]",
     "name = \"ground\"\ntype = \"mesh\"\nfile = \"no_such.stl\"", "wall[1].file", "no_such.stl"},
    {"wall_mesh_not_a_mesh",
     "name = \"ground\"\ntype = \"plane\"\npoint = [0.0, 0.0, -0.5]\nnormal = [0.0, 0.0, 1.0]",
     "name = \"ground\"\ntype = \"mesh\"\nfile = \"bad_wall_mesh_not_a_mesh.toml\"", "wall[1].file",
     "bad_wall_mesh_not_a_mesh.toml"},
    {"wall_mesh_no_file",
     "name = \"ground\"\ntype = \"plane\"\npoint = [0.0, 0.0, -0.5]\nnormal = [0.0, 0.0, 1.0]",
     "name = \"ground\"\ntype = \"mesh\"", "wall[1].file", ""},
    {"wall_mesh_bad_scale",
     "name = \"ground\"\ntype = \"plane\"\npoint = [0.0, 0.0, -0.5]\nnormal = [0.0, 0.0, 1.0]",
     "name = \"ground\"\ntype = \"mesh\"\nfile = \"x.stl\"\nscale = -2.0", "wall[1].scale", "-2"},
    {"shape_mesh_is_a_wall", "type = \"box\"\nhalf", "type = \"mesh\"\nhalf", "shape[1].type",
     "mesh"},
    {"poly_file_missing", "name = \"brick\"\ntype = \"box\"\nhalf_extents = [0.01, 0.01, 0.02]",
     "name = \"brick\"\ntype = \"polyhedron\"\nfile = \"no_rock.stl\"", "shape[1].file",
     "no_rock.stl"},
    {"event_unknown_target", "remove = \"box.right\"", "remove = \"lid\"", "event[0].remove",
     "lid"},
    {"event_table_not_array", "[[event]]", "[event]", "event", "remove"},
    {"output_every_negative", "every = 5", "every = -5", "output.every", "-5"},
    {"syntax_error", "lambda = 30", "lambda = = 30", "syntax", ""},
    // Polyhedra: a third [[shape]] inserted before the bodies.
    {"poly_three_vertices", "[[body]]\nname = \"ball\"",
     "[[shape]]\nname = \"tet\"\ntype = \"polyhedron\"\nvertices = [[0, 0, 0], [1, 0, 0], [0, 1, "
     "0]]\n\n[[body]]\nname = \"ball\"",
     "shape[2].vertices", "[[0, 0, 0], [1, 0, 0], [0, 1, 0]]"},
    {"poly_coplanar", "[[body]]\nname = \"ball\"",
     "[[shape]]\nname = \"tet\"\ntype = \"polyhedron\"\nvertices = [[0, 0, 0], [1, 0, 0], [0, 1, "
     "0], [1, 1, 0], [0.5, 0.2, 0]]\n\n[[body]]\nname = \"ball\"",
     "shape[2].vertices", "lie in one plane"},
    {"poly_nan", "[[body]]\nname = \"ball\"",
     "[[shape]]\nname = \"tet\"\ntype = \"polyhedron\"\nvertices = [[0, 0, 0], [1, 0, 0], [0, 1, "
     "0], [0.0, nan, 1.0]]\n\n[[body]]\nname = \"ball\"",
     "shape[2].vertices", "[0.0, nan, 1.0]"},
    {"poly_not_triples", "[[body]]\nname = \"ball\"",
     "[[shape]]\nname = \"tet\"\ntype = \"polyhedron\"\nvertices = [[0, 0, 0], [1, 0], [0, 1, 0], "
     "[0, 0, 1]]\n\n[[body]]\nname = \"ball\"",
     "shape[2].vertices", "element 1 must be an array of 3 numbers, not [1, 0]"},
    {"poly_string", "[[body]]\nname = \"ball\"",
     "[[shape]]\nname = \"tet\"\ntype = \"polyhedron\"\nvertices = \"cube\"\n\n[[body]]\nname = "
     "\"ball\"",
     "shape[2].vertices", "\"cube\""},
    {"poly_missing", "[[body]]\nname = \"ball\"",
     "[[shape]]\nname = \"tet\"\ntype = \"polyhedron\"\n\n\n[[body]]\nname = \"ball\"",
     "shape[2].vertices", ""},
    {"poly_radius_key", "[[body]]\nname = \"ball\"",
     "[[shape]]\nname = \"tet\"\ntype = \"polyhedron\"\nvertices = [[0, 0, 0], [0.01, 0, 0], [0, "
     "0.01, 0], [0, 0, 0.01]]\nradius = 0.1\n\n[[body]]\nname = \"ball\"",
     "shape[2].radius", "0.1"},
    {"poly_in_floor", "[[fill]]",
     "[[shape]]\nname = \"tet\"\ntype = \"polyhedron\"\nvertices = [[0, 0, 0], [0.01, 0, 0], "
     "[0, 0.01, 0], [0, 0, 0.01]]\n\n[[body]]\nshape = \"tet\"\nmaterial = \"rock\"\n"
     "position = [0.05, 0.05, 0.001]\n\n[[fill]]",
     "body[1].position", "0.001"},
    // Compounds: a third [[shape]] made of the brick and the grain.
    {"compound_unknown_part", "[[body]]\nname = \"ball\"",
     "[[shape]]\nname = \"x\"\ntype = \"compound\"\nparts = [{ shape = \"nope\", position = "
     "[0, 0, 0] }]\n\n[[body]]\nname = \"ball\"",
     "shape[2].parts[0].shape", "\"nope\""},
    {"compound_no_parts", "[[body]]\nname = \"ball\"",
     "[[shape]]\nname = \"x\"\ntype = \"compound\"\nparts = []\n\n[[body]]\nname = \"ball\"",
     "shape[2].parts", "[]"},
    {"compound_missing_parts", "[[body]]\nname = \"ball\"",
     "[[shape]]\nname = \"x\"\ntype = \"compound\"\n\n[[body]]\nname = \"ball\"", "shape[2].parts",
     ""},
    {"compound_overlap", "[[body]]\nname = \"ball\"",
     "[[shape]]\nname = \"x\"\ntype = \"compound\"\nparts = [{ shape = \"brick\", position = "
     "[0, 0, 0] }, { shape = \"grain\", position = [0.0, 0.0, 0.02] }]\n\n[[body]]\nname = "
     "\"ball\"",
     "shape[2].parts", "overlap by 0.005 m"},
    {"compound_nested", "[[body]]\nname = \"ball\"",
     "[[shape]]\nname = \"x\"\ntype = \"compound\"\nparts = [{ shape = \"brick\", position = "
     "[0, 0, 0] }]\n\n[[shape]]\nname = \"y\"\ntype = \"compound\"\nparts = [{ shape = \"x\", "
     "position = [0, 0, 0] }]\n\n[[body]]\nname = \"ball\"",
     "shape[3].parts[0].shape", "not a compound"},
    {"compound_part_orientation", "[[body]]\nname = \"ball\"",
     "[[shape]]\nname = \"x\"\ntype = \"compound\"\nparts = [{ shape = \"brick\", position = "
     "[0, 0, 0], orientation = [2, 0, 0, 0] }]\n\n[[body]]\nname = \"ball\"",
     "shape[2].parts[0].orientation", "[2, 0, 0, 0]"},
    // Compounds from tetrahedral meshes.
    {"compound_file_missing", "[[body]]\nname = \"ball\"",
     "[[shape]]\nname = \"x\"\ntype = \"compound\"\nfile = \"no_such_mesh.msh\"\n\n[[body]]\n"
     "name = \"ball\"",
     "shape[2].file", "no such file"},
    {"compound_file_and_parts", "[[body]]\nname = \"ball\"",
     "[[shape]]\nname = \"x\"\ntype = \"compound\"\nfile = \"a.msh\"\nparts = [{ shape = "
     "\"brick\", position = [0, 0, 0] }]\n\n[[body]]\nname = \"ball\"",
     "shape[2].file", "either parts or file"},
    {"compound_merge_without_file", "[[body]]\nname = \"ball\"",
     "[[shape]]\nname = \"x\"\ntype = \"compound\"\nmerge = false\nparts = [{ shape = "
     "\"brick\", position = [0, 0, 0] }]\n\n[[body]]\nname = \"ball\"",
     "shape[2].merge", "only with file"},
    {"compound_file_bad_scale", "[[body]]\nname = \"ball\"",
     "[[shape]]\nname = \"x\"\ntype = \"compound\"\nfile = \"a.msh\"\nscale = -1.0\n\n"
     "[[body]]\nname = \"ball\"",
     "shape[2].scale", "-1"},
};

// Readable test names in failures instead of a byte dump.
void PrintTo(const BadCase& c, std::ostream* os) {
  *os << c.label;
}

class BadScenario : public ::testing::TestWithParam<BadCase> {};

TEST_P(BadScenario, ThrowsOneLineNamingFileKeyAndValue) {
  const BadCase& c = GetParam();
  const std::string file =
      write_file(std::string("bad_") + c.label + ".toml", edit(c.find, c.replace));
  try {
    World world;
    (void)build_world(load_scenario(file), world);  // the initial state is checked when built
    FAIL() << "no error for case " << c.label;
  } catch (const ScenarioError& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find(file), std::string::npos) << msg;
    EXPECT_NE(msg.find(c.key), std::string::npos) << "key " << c.key << " not in: " << msg;
    if (*c.value) {
      EXPECT_NE(msg.find(std::string("(value ")), std::string::npos) << msg;
    }
    EXPECT_NE(msg.find(c.value), std::string::npos) << "value " << c.value << " not in: " << msg;
    EXPECT_EQ(msg.find('\n'), std::string::npos) << "not one line: " << msg;
  }
}

INSTANTIATE_TEST_SUITE_P(Cases, BadScenario, ::testing::ValuesIn(kBadCases),
                         [](const auto& info) { return std::string(info.param.label); });

TEST(Scenario, TheBaseScenarioIsValid) {
  const Scenario sc = load_scenario(write_file("base.toml", kBase));
  EXPECT_EQ(sc.steps(), 10);
  EXPECT_EQ(sc.grain_count(), 11);
  EXPECT_EQ(sc.plane_count(), 6);
  EXPECT_EQ(sc.output.every, 5);
  EXPECT_DOUBLE_EQ(sc.settings.dt, 0.001);
}

TEST(Scenario, SyntaxErrorsGiveTheLine) {
  const std::string file = write_file("syntax.toml", edit("lambda = 30", "lambda = = 30"));
  try {
    (void)load_scenario(file);
    FAIL();
  } catch (const ScenarioError& e) {
    EXPECT_NE(std::string(e.what()).find(file + ":8:"), std::string::npos) << e.what();
  }
}

TEST(Scenario, MissingFileIsAnError) {
  const std::string file = (temp_dir() / "does_not_exist.toml").string();
  try {
    (void)load_scenario(file);
    FAIL();
  } catch (const ScenarioError& e) {
    EXPECT_NE(std::string(e.what()).find(file), std::string::npos) << e.what();
  }
}

TEST(Scenario, OverridesApplyBeforeValidation) {
  const std::string file = write_file("override.toml", kBase);
  const Scenario sc =
      load_scenario(file, {"simulation.dt=0.0005", "simulation.etm.lambda=50", "output.every=2",
                           "material[0].friction=0.25", "simulation.solver=etm",
                           "output.directory=/tmp/somewhere", "simulation.etm.max_rounds = 7"});
  EXPECT_DOUBLE_EQ(sc.settings.dt, 0.0005);
  EXPECT_EQ(sc.settings.solver_settings<EtmSettings>().lambda, 50);
  EXPECT_EQ(sc.settings.solver_settings<EtmSettings>().max_rounds, 7);
  EXPECT_EQ(sc.output.every, 2);
  EXPECT_DOUBLE_EQ(sc.materials[0].friction, 0.25);
  EXPECT_EQ(sc.output.directory, "/tmp/somewhere");
  EXPECT_EQ(sc.steps(), 20);
}

TEST(Scenario, BadOverridesAreErrors) {
  const std::string file = write_file("override_bad.toml", kBase);
  auto message = [&](const std::string& o) -> std::string {
    try {
      (void)load_scenario(file, {o});
    } catch (const ScenarioError& e) {
      return e.what();
    }
    return "no error";
  };
  EXPECT_NE(message("simulation.dt").find("--set"), std::string::npos);
  EXPECT_NE(message("simulation.dtt=1").find("--set simulation.dtt"), std::string::npos);
  EXPECT_NE(message("nosuch.key=1").find("--set nosuch"), std::string::npos);
  const std::string m = message("simulation.dt=-1");
  EXPECT_NE(m.find("--set simulation.dt"), std::string::npos) << m;
  EXPECT_NE(m.find("(value -1)"), std::string::npos) << m;
  EXPECT_NE(message("material[3].density=1").find("material[3]"), std::string::npos);
}

/// The unit cube [0, 1]^3 as an ASCII STL, normals outward.
std::string write_cube_stl(const std::string& name) {
  const int q[6][4] = {{0, 2, 3, 1}, {4, 5, 7, 6}, {0, 1, 5, 4},
                       {2, 6, 7, 3}, {0, 4, 6, 2}, {1, 3, 7, 5}};
  auto v = [](int k) { return Vec3(k & 1, (k >> 1) & 1, (k >> 2) & 1); };
  std::string text = "solid cube\n";
  for (const auto& f : q)
    for (const auto& t :
         {std::array<int, 3>{f[0], f[1], f[2]}, std::array<int, 3>{f[0], f[2], f[3]}}) {
      text += "facet normal 0 0 0\nouter loop\n";
      for (int k : t)
        text += "vertex " + std::to_string(v(k).x()) + " " + std::to_string(v(k).y()) + " " +
                std::to_string(v(k).z()) + "\n";
      text += "endloop\nendfacet\n";
    }
  return write_file(name, text + "endsolid cube\n");
}

TEST(Scenario, MeshWallIsReadRelativeToTheScenarioScaledOffsetAndRemovable) {
  write_cube_stl("bin.stl");
  std::string text = kBase;
  const std::string ground =
      "name = \"ground\"\ntype = \"plane\"\npoint = [0.0, 0.0, -0.5]\nnormal = [0.0, 0.0, 1.0]";
  text.replace(text.find(ground), ground.size(),
               "name = \"bin\"\ntype = \"mesh\"\nfile = \"bin.stl\"\nscale = 0.5\n"
               "offset = [1.0, 0.0, -1.0]\ninward = true");
  text.replace(text.find("remove = \"box.right\""), 20, "remove = \"bin\"");
  const Scenario sc = load_scenario(write_file("mesh_wall.toml", text));
  ASSERT_EQ(sc.walls.size(), 2u);
  const WallSpec& w = sc.walls[1];
  ASSERT_EQ(w.type, WallSpec::Type::Mesh);
  ASSERT_TRUE(w.mesh);
  EXPECT_TRUE(w.mesh->closed);
  EXPECT_NEAR(w.mesh->volume, -0.125, 1e-15);  // faces inwards: a closed bin
  EXPECT_TRUE(w.mesh->lo.isApprox(Vec3(1, 0, -1)));
  EXPECT_TRUE(w.mesh->hi.isApprox(Vec3(1.5, 0.5, -0.5)));
  World world;
  build_world(sc, world);
  int bin = -1;
  for (int i = 0; i < world.bodies.count(); ++i)
    if (world.bodies.name[i] == "bin") bin = i;
  ASSERT_GE(bin, 0);
  EXPECT_EQ(world.shapes.type[world.bodies.shape[bin]], ShapeType::Mesh);
  EXPECT_FALSE(world.bodies.is_dynamic(bin));
  EXPECT_TRUE(world.bodies.position[bin].isApprox(Vec3(1.25, 0.25, -0.75)));
  ASSERT_EQ(world.events.size(), 1u);
  EXPECT_EQ(world.events[0].body, bin);
}

TEST(Scenario, MeshWallWithTheJoltSolverIsAnError) {
  write_cube_stl("jolt_bin.stl");
  std::string text = kBase;
  text.replace(text.find("solver = \"etm\""), 14, "solver = \"jolt\"");
  text.replace(text.find("type = \"plane\""), 14, "type = \"mesh\"\nfile = \"jolt_bin.stl\"");
  try {
    (void)parse_scenario(text, (temp_dir() / "jolt_mesh.toml").string());
    FAIL() << "no error";
  } catch (const ScenarioError& e) {
    EXPECT_NE(std::string(e.what()).find("wall[1].type"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("jolt"), std::string::npos) << e.what();
  }
}

TEST(Scenario, PolyhedronShapeFromAMeshFileTakesTheHullOfItsVertices) {
  write_cube_stl("rock.stl");
  std::string text = kBase;
  text.replace(text.find("type = \"box\"\nhalf_extents = [0.01, 0.01, 0.02]"), 47,
               "type = \"polyhedron\"\nfile = \"rock.stl\"\nscale = 0.02");
  const Scenario sc = load_scenario(write_file("rock.toml", text));
  ASSERT_EQ(sc.shapes.type[1], ShapeType::Polyhedron);
  const ConvexPolyhedron& p = sc.shapes.polyhedron(1);
  EXPECT_EQ(p.vertices.size(), 8u);
  EXPECT_NEAR(p.volume, 0.02 * 0.02 * 0.02, 1e-18);
  EXPECT_EQ(p.face_count(), 6);
  EXPECT_EQ(sc.shape_sources[1].file, "rock.stl");
}

TEST(Scenario, ContainerCreatesNamedPlanesWithInwardNormals) {
  const Scenario sc = load_scenario(write_file("container.toml", kBase));
  World world;
  build_world(sc, world);
  const std::pair<const char*, Vec3> expected[] = {
      {"box.floor", Vec3::UnitZ()}, {"box.left", Vec3::UnitX()},  {"box.right", -Vec3::UnitX()},
      {"box.front", Vec3::UnitY()}, {"box.back", -Vec3::UnitY()}, {"ground", Vec3::UnitZ()}};
  int found = 0;
  for (int i = 0; i < world.bodies.count(); ++i)
    for (const auto& [name, normal] : expected)
      if (world.bodies.name[i] == name) {
        ++found;
        const Vec3 n = world.bodies.orientation[i] * Vec3::UnitZ();
        EXPECT_NEAR((n - normal).norm(), 0.0, 1e-12) << name;
        EXPECT_EQ(world.shapes.type[world.bodies.shape[i]], ShapeType::Plane);
      }
  EXPECT_EQ(found, 6);
  // The event removes the right wall (and only it).
  ASSERT_EQ(world.events.size(), 1u);
  EXPECT_EQ(world.bodies.name[world.events[0].body], "box.right");
  EXPECT_DOUBLE_EQ(world.events[0].time, 0.005);
  // The point of each plane lies on the container's faces.
  for (int i = 0; i < world.bodies.count(); ++i)
    if (world.bodies.name[i] == "box.right") {
      EXPECT_DOUBLE_EQ(world.bodies.position[i].x(), 0.1);
    }
}

TEST(Scenario, ClosedContainerHasATopAndAContainerEventRemovesAllPlanes) {
  std::string text = edit("material = \"rock\"\n\n[[wall]]\nname = \"ground\"",
                          "material = \"rock\"\nclosed = true\n\n[[wall]]\nname = \"ground\"");
  text.replace(text.find("remove = \"box.right\""), 20, "remove = \"box\"       ");
  const Scenario sc = parse_scenario(text, "closed.toml");
  World world;
  build_world(sc, world);
  EXPECT_EQ(sc.plane_count(), 7);
  EXPECT_EQ(world.events.size(), 6u);
  bool top = false;
  for (int i = 0; i < world.bodies.count(); ++i)
    if (world.bodies.name[i] == "box.top") {
      top = true;
      EXPECT_NEAR((world.bodies.orientation[i] * Vec3::UnitZ() + Vec3::UnitZ()).norm(), 0.0, 1e-12);
    }
  EXPECT_TRUE(top);
}

TEST(Scenario, FillDeterministicForTheSameSeed) {
  FillSpec f;
  f.count = 500;
  f.min = Vec3(0, 0, 0);
  f.max = Vec3(0.2, 0.1, 0.3);
  f.spacing = 0.012;
  f.jitter = 0.5;
  f.seed = 42;
  const auto a = generate_fill(f, 0.01), b = generate_fill(f, 0.01);
  ASSERT_EQ(a.size(), 500u);
  ASSERT_EQ(b.size(), 500u);
  for (std::size_t k = 0; k < a.size(); ++k) {
    EXPECT_EQ(a[k].position, b[k].position);
    EXPECT_EQ(a[k].orientation.coeffs(), b[k].orientation.coeffs());
    EXPECT_TRUE((a[k].position.array() - 0.005 >= f.min.array()).all());
    EXPECT_TRUE((a[k].position.array() + 0.005 <= f.max.array()).all());
    EXPECT_NEAR(a[k].orientation.norm(), 1.0, 1e-12);
  }
  f.seed = 43;
  const auto c = generate_fill(f, 0.01);
  EXPECT_NE(a[0].position, c[0].position);
}

TEST(Scenario, FillLatticeIsCornerFirstXFastest) {
  FillSpec f;
  f.count = 20;
  f.min = Vec3(1, 2, 3);
  f.max = Vec3(1.04, 2.03, 3.1);  // 4 x 3 sites per layer at spacing 0.01
  f.spacing = 0.01;
  f.jitter = 0.0;
  f.random_orientation = false;
  EXPECT_EQ(fill_capacity(f), 4 * 3 * 10);
  const auto p = generate_fill(f, 0.01);
  EXPECT_NEAR((p[0].position - Vec3(1.005, 2.005, 3.005)).norm(), 0, 1e-12);
  EXPECT_NEAR((p[1].position - Vec3(1.015, 2.005, 3.005)).norm(), 0, 1e-12);
  EXPECT_NEAR((p[4].position - Vec3(1.005, 2.015, 3.005)).norm(), 0, 1e-12);
  EXPECT_NEAR((p[12].position - Vec3(1.005, 2.005, 3.015)).norm(), 0, 1e-12);
  EXPECT_EQ(p[0].orientation.coeffs(), Quat::Identity().coeffs());
}

TEST(Scenario, FillIsReproducedByBuildWorld) {
  const Scenario sc = load_scenario(write_file("fill.toml", kBase));
  World w1, w2;
  build_world(sc, w1);
  build_world(sc, w2);
  ASSERT_EQ(w1.bodies.count(), w2.bodies.count());
  for (int i = 0; i < w1.bodies.count(); ++i)
    EXPECT_EQ(w1.bodies.position[i], w2.bodies.position[i]);
}

TEST(Scenario, HundredThousandGrainsAreCheckedQuickly) {
  const std::string text = edit(
      "count = 10\nregion = { min = [0.0, 0.0, 0.0], max = [0.1, 0.1, 0.1] }",
      "count = 100000\nregion = { min = [0.0, 0.0, 0.0], max = [1.2, 1.2, 1.2] }\nspacing = 0.01");
  std::string big = text;
  big.replace(big.find("max = [0.1, 0.1, 0.2]"), 21, "max = [1.2, 1.2, 1.5]");
  const auto t0 = std::chrono::steady_clock::now();
  const Scenario sc = parse_scenario(big, "big.toml");
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_EQ(sc.grain_count(), 100001);
  std::printf("100k grains loaded and checked in %.3f s\n", seconds);
}

TEST(Scenario, PolyhedronBodyIsPlacedAtItsCentreOfMassWithItsVerticesFrame) {
  // A brick-like hexahedron given off-centre and turned: the body's position is where its centre
  // of mass goes, and its orientation turns the frame the vertices were written in.
  const std::string shape =
      "[[shape]]\nname = \"slab\"\ntype = \"polyhedron\"\n"
      "vertices = [[1.0, 2.0, 3.0], [1.04, 2.0, 3.0], [1.0, 2.02, 3.0], [1.04, 2.02, 3.0],\n"
      "            [1.0, 2.0, 3.01], [1.04, 2.0, 3.01], [1.0, 2.02, 3.01], [1.04, 2.02, 3.01],\n"
      "            [1.02, 2.01, 3.005]]\n\n";  // the last point is interior: dropped
  std::string text = edit("[[body]]\nname = \"ball\"", shape + "[[body]]\nname = \"ball\"");
  text +=
      "\n[[body]]\nname = \"slab\"\nshape = \"slab\"\nmaterial = \"rock\"\n"
      "position = [0.05, 0.05, 0.17]\norientation = [0.9238795325112867, 0.0, 0.0, "
      "0.3826834323650898]\nvelocity = [0.0, 0.0, -1.0]\n";
  const Scenario sc = parse_scenario(text, "slab.toml");
  ASSERT_EQ(sc.shapes.type[2], ShapeType::Polyhedron);
  EXPECT_NEAR(2.0 * sc.shapes.bounding_radius[2], std::sqrt(0.04 * 0.04 + 0.02 * 0.02 + 0.0001),
              1e-15);
  EXPECT_NEAR(sc.shapes.min_thickness(2), 0.01, 1e-15);
  World world;
  build_world(sc, world);
  int slab = -1;
  for (int i = 0; i < world.bodies.count(); ++i)
    if (world.bodies.name[i] == "slab") slab = i;
  ASSERT_GE(slab, 0);
  const ConvexPolyhedron& h = world.shapes.polyhedron(world.bodies.shape[slab]);
  EXPECT_EQ(h.vertex_count(), 8);
  EXPECT_NEAR((h.input_centre - Vec3(1.02, 2.01, 3.005)).norm(), 0.0, 1e-14);
  EXPECT_EQ(world.bodies.position[slab], Vec3(0.05, 0.05, 0.17));
  const Quat user(0.9238795325112867, 0.0, 0.0, 0.3826834323650898);  // 45 deg about z
  // Each input vertex v lands at position + user (v - centre of mass).
  for (const Vec3& v : h.vertices) {
    const Vec3 world_v = world.bodies.position[slab] + world.bodies.orientation[slab] * v;
    const Vec3 input_v = h.input_centre + h.input_rotation * v;
    const Vec3 expected = Vec3(0.05, 0.05, 0.17) + user * (input_v - h.input_centre);
    EXPECT_NEAR((world_v - expected).norm(), 0.0, 1e-15);
  }
  // Mass and principal inertia from the density: a 0.04 x 0.02 x 0.01 m box of rock.
  const MassProperties mp = box_mass_properties(Vec3(0.02, 0.01, 0.005), 2650.0);
  EXPECT_NEAR(world.bodies.mass[slab], mp.mass, 1e-15);
  EXPECT_NEAR((world.bodies.inertia[slab] - mp.inertia).norm(), 0.0, 1e-18);
}

TEST(Scenario, EveryExampleIsValid) {
  int n = 0;
  for (const auto& e : std::filesystem::recursive_directory_iterator(
           std::filesystem::path(ETDEM_SOURCE_DIR) / "examples")) {
    if (e.path().extension() != ".toml") continue;
    World world;
    EXPECT_NO_THROW((void)build_world(load_scenario(e.path().string()), world)) << e.path();
    ++n;
  }
  EXPECT_GE(n, 3);
}

TEST(Scenario, CompoundBodyIsPlacedAtItsCentreOfMassWithItsPartsFrame) {
  // A brick (0.02 x 0.02 x 0.04 m) with a ball on top, given off-centre: the body's position is
  // the compound's centre of mass and its orientation turns the frame the parts were given in.
  const std::string shape =
      "[[shape]]\nname = \"lolly\"\ntype = \"compound\"\n"
      "parts = [{ shape = \"brick\", position = [1.0, 2.0, 3.0] },\n"
      "         { shape = \"grain\", position = [1.0, 2.0, 3.025] }]\n\n";
  std::string text = edit("[[body]]\nname = \"ball\"", shape + "[[body]]\nname = \"ball\"");
  text +=
      "\n[[body]]\nname = \"lolly\"\nshape = \"lolly\"\nmaterial = \"rock\"\n"
      "position = [0.05, 0.05, 0.17]\norientation = [0.7071067811865476, 0.7071067811865476, "
      "0.0, 0.0]\n";
  const Scenario sc = parse_scenario(text, "lolly.toml");
  ASSERT_EQ(sc.shapes.type[2], ShapeType::Compound);
  EXPECT_NEAR(2.0 * sc.shapes.bounding_radius[2],
              2 * (0.025 + 0.005 - sc.shapes.compound(2).input_centre.z() + 3.0), 1e-12);
  EXPECT_DOUBLE_EQ(sc.shapes.min_thickness(2), 0.01);
  World world;
  build_world(sc, world);
  int body = -1;
  for (int i = 0; i < world.bodies.count(); ++i)
    if (world.bodies.name[i] == "lolly") body = i;
  ASSERT_GE(body, 0);
  const int s = world.bodies.shape[body];
  ASSERT_EQ(world.shapes.type[s], ShapeType::Compound);
  const Compound& c = world.shapes.compound(s);
  // Centre of mass along z: (V_brick 3.0 + V_ball 3.025) / (V_brick + V_ball).
  const double vb = 0.02 * 0.02 * 0.04, vs = 4.0 / 3.0 * M_PI * 0.005 * 0.005 * 0.005;
  EXPECT_NEAR((c.input_centre - Vec3(1.0, 2.0, (vb * 3.0 + vs * 3.025) / (vb + vs))).norm(), 0.0,
              1e-14);
  EXPECT_EQ(world.shapes.type[c.parts[1].shape], ShapeType::Sphere);
  EXPECT_EQ(world.shapes.name[c.parts[1].shape], "grain");
  // The ball, above the brick in the input frame, ends up along -y after the quarter turn about x.
  const Vec3 ball =
      world.bodies.position[body] + world.bodies.orientation[body] * c.parts[1].position;
  EXPECT_NEAR((ball - Vec3(0.05, 0.05 - (3.025 - c.input_centre.z()), 0.17)).norm(), 0.0, 1e-14);
  EXPECT_NEAR(world.bodies.mass[body], 2650.0 * (vb + vs), 1e-12);
}

}  // namespace
}  // namespace etdem
