// [[wall]] type = "terrain" through the scenario loader: rasters read with GDAL (ESRI ASCII
// grids and GeoTIFF written here), cropped, scaled and offset; every bad input a one-line error
// naming the file, the key and the value, before anything runs (exit code 2 from the CLI).
#include <gtest/gtest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include "cli_example.hpp"
#include "etdem/io/scenario.hpp"
#include "etdem/io/terrain_import.hpp"
#include "etdem/world/world.hpp"
#include "terrain_fixture.hpp"

namespace etdem {
namespace {

namespace fs = std::filesystem;

fs::path dir() {
  const fs::path d =
      fs::temp_directory_path() / ("etdem_terrain_tests_" + std::to_string(::getpid()));
  fs::create_directories(d);
  return d;
}

/// A 21 x 21 pixel grid of 10 cm, pixel centres from (0, 0): z = 0.1 x (NoData at one pixel
/// when asked).
std::string write_grid(const std::string& name, int nodata_col = -1, int nodata_row = -1) {
  const std::string path = (dir() / name).string();
  test::write_ascii_grid(
      path, 21, 21, 0.1, 0.0, 0.0, [](double x, double) { return 0.1 * x; }, nodata_col,
      nodata_row);
  return path;
}

/// A scenario with one sphere above the terrain and the terrain wall's keys.
std::string scenario(const std::string& wall_keys, const std::string& solver = "etm") {
  const std::string text = R"([simulation]
dt = 0.001
duration = 0.01
gravity = [0.0, 0.0, -9.81]
solver = ")" + solver + R"("

[[material]]
name = "rock"
density = 2650.0
restitution = 0.5
friction = 0.5

[[shape]]
name = "ball"
type = "sphere"
radius = 0.1

[[body]]
shape = "ball"
material = "rock"
position = [1.0, 1.0, 0.5]

[[wall]]
type = "terrain"
name = "ground"
material = "rock"
)" + wall_keys + "\n";
  const std::string path = (dir() / "terrain.toml").string();
  std::ofstream(path) << text;
  return path;
}

std::string error_of(const std::string& file) {
  try {
    World world;
    (void)build_world(load_scenario(file), world);
  } catch (const ScenarioError& e) {
    return e.what();
  }
  return "no error";
}

void expect_error(const std::string& keys, const std::string& key, const std::string& what,
                  const std::string& solver = "etm") {
  const std::string file = scenario(keys, solver);
  const std::string msg = error_of(file);
  EXPECT_NE(msg.find(file), std::string::npos) << msg;
  EXPECT_NE(msg.find("wall[0]." + key), std::string::npos) << "key " << key << ": " << msg;
  EXPECT_NE(msg.find(what), std::string::npos) << "'" << what << "' not in: " << msg;
  EXPECT_EQ(msg.find('\n'), std::string::npos) << "not one line: " << msg;
}

TEST(TerrainInput, AsciiGridIsReadScaledOffsetAndBuilt) {
  write_grid("ramp.asc");
  const Scenario sc =
      load_scenario(scenario("file = \"ramp.asc\"\nscale = 2.0\noffset = [10.0, -5.0, 1.0]"));
  ASSERT_EQ(sc.walls.size(), 1u);
  const WallSpec& w = sc.walls[0];
  ASSERT_EQ(w.type, WallSpec::Type::Terrain);
  ASSERT_TRUE(w.terrain);
  const HeightMap& m = w.terrain->map;
  EXPECT_EQ(m.nx, 21);
  EXPECT_EQ(m.ny, 21);
  EXPECT_NEAR(m.x0, 10.0, 1e-12);
  EXPECT_NEAR(m.y0, -5.0, 1e-12);
  // z = 2 (0.1 x_raster) + 1 at x_raster = 1.3 (node 13), any row (GDAL reads the grid's
  // decimals as 32-bit floats).
  EXPECT_NEAR(m.at(13, 4), 2.0 * 0.13 + 1.0, 1e-6);
  EXPECT_DOUBLE_EQ(w.spacing, 0.1);  // default: the pixel
  World world;
  build_world(sc, world);
  int ground = -1;
  for (int i = 0; i < world.bodies.count(); ++i)
    if (world.bodies.name[i] == "ground") ground = i;
  ASSERT_GE(ground, 0);
  EXPECT_EQ(world.shapes.type[world.bodies.shape[ground]], ShapeType::Terrain);
  EXPECT_FALSE(world.bodies.is_dynamic(ground));
}

TEST(TerrainInput, DefaultBandIsTheLargestGrainPlusAStepsFall) {
  write_grid("flat_band.asc");
  const Scenario sc = load_scenario(scenario("file = \"flat_band.asc\""));
  // The ball starts 0.5 m up, the terrain's lowest point is z = 0: v = sqrt(2 g 0.5).
  EXPECT_NEAR(sc.walls[0].band, 0.1 + std::sqrt(2 * 9.81 * 0.5) * 0.001, 1e-12);
}

TEST(TerrainInput, GeoTiffRoundTripsAndCropTakesItsWindow) {
  const HeightMap in = test::height_map(30, 20, 0.25, 100.0, 200.0,
                                        [](double x, double y) { return 0.5 * x - 0.25 * y; });
  const std::string path = (dir() / "plane.tif").string();
  write_geotiff(path, in);
  HeightMapRequest r;
  r.path = path;
  const HeightMap all = read_height_map(r);
  ASSERT_EQ(all.nx, 30);
  ASSERT_EQ(all.ny, 20);
  EXPECT_NEAR(all.x0, 100.0, 1e-12);
  EXPECT_NEAR(all.y0, 200.0, 1e-12);
  for (std::size_t k = 0; k < in.z.size(); ++k) EXPECT_NEAR(all.z[k], in.z[k], 1e-4);
  // Crop columns 5..14 and rows 2..9 (row 0 at the top = the largest y).
  r.crop = std::array<long, 4>{5, 2, 10, 8};
  const HeightMap part = read_height_map(r);
  ASSERT_EQ(part.nx, 10);
  ASSERT_EQ(part.ny, 8);
  EXPECT_NEAR(part.x0, 100.0 + 5 * 0.25, 1e-12);
  EXPECT_NEAR(part.y_max(), 200.0 + (19 - 2) * 0.25, 1e-12);
  EXPECT_NEAR(part.at(0, 0), in.at(5, 19 - 2 - 7), 1e-4);
}

TEST(TerrainInput, EveryBadInputIsAOneLineErrorNamingFileKeyAndValue) {
  write_grid("good.asc");
  write_grid("hole.asc", 3, 4);
  expect_error("file = \"missing.tif\"", "file", "no such file");
  std::ofstream(dir() / "text.tif") << "not a raster at all\n";
  expect_error("file = \"text.tif\"", "file", "not a raster");
  expect_error("file = \"/vsicurl/http://127.0.0.1/dem.tif\"", "file", "virtual");
  // A VRT names other files (and URLs): not among the drivers etdem lets GDAL use.
  std::ofstream(dir() / "indirect.vrt")
      << "<VRTDataset rasterXSize=\"21\" rasterYSize=\"21\"><VRTRasterBand dataType=\"Float32\" "
         "band=\"1\"><SimpleSource><SourceFilename relativeToVRT=\"1\">good.asc</SourceFilename>"
         "<SourceBand>1</SourceBand></SimpleSource></VRTRasterBand></VRTDataset>\n";
  expect_error("file = \"indirect.vrt\"", "file", "not a raster etdem reads");
  expect_error("file = \"hole.asc\"", "file", "NoData at pixel (column 3, row 4)");
  expect_error("file = \"hole.asc\"\ncrop = [2, 2, 10, 10]", "crop",
               "NoData at pixel (column 3, row 4)");
  expect_error("file = \"good.asc\"\ncrop = [15, 15, 10, 10]", "crop", "inside the 21 x 21 raster");
  expect_error("file = \"good.asc\"\ncrop = [0, 0, 1.5, 10]", "crop", "whole numbers");
  expect_error("file = \"good.asc\"\nraster_band = 2", "raster_band", "band 2 does not exist");
  expect_error("file = \"good.asc\"\nband = 0.05", "band", "thinner than the largest grain");
  expect_error("file = \"good.asc\"\nspacing = 0.00002", "spacing", "GB");
  expect_error("file = \"good.asc\"\nscale = 0.0", "scale", "not 0");
  expect_error("file = \"good.asc\"", "type", "needs another solver", "jolt");
  // Cropped away from the hole, the same file loads.
  EXPECT_EQ(error_of(scenario("file = \"hole.asc\"\ncrop = [5, 0, 16, 21]")), "no error");
}

TEST(TerrainInput, ATerrainShapeIsPointedToTheWallTable) {
  try {
    (void)parse_scenario(
        "[simulation]\ndt = 0.001\nduration = 0.01\n[[shape]]\nname = \"t\"\n"
        "type = \"terrain\"\n",
        "shape.toml");
    FAIL() << "no error";
  } catch (const ScenarioError& e) {
    EXPECT_NE(std::string(e.what()).find("shape[0].type"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("[[wall]] type = \"terrain\""), std::string::npos)
        << e.what();
  }
}

TEST(TerrainInput, TheCliExitsWithCode2OnABadTerrain) {
  write_grid("cli_hole.asc", 7, 7);
  const std::string file = scenario("file = \"cli_hole.asc\"");
  const std::string cmd = std::string("'") + ETDEM_CLI + "' check '" + file + "' > '" +
                          (dir() / "cli.log").string() + "' 2>&1";
  const int rc = std::system(cmd.c_str());
  ASSERT_TRUE(WIFEXITED(rc));
  EXPECT_EQ(WEXITSTATUS(rc), 2);
  std::ifstream log(dir() / "cli.log");
  std::string line;
  std::getline(log, line);
  EXPECT_NE(line.find("wall[0].file"), std::string::npos) << line;
  EXPECT_NE(line.find("NoData at pixel (column 7, row 7)"), std::string::npos) << line;
}

// The example runs through the CLI: the slab slides down the 25 degree chute, stops on the 3
// degree runout past the break (x = 1.8 m) and before the map's end (x = 3 m), the ledger
// closes, summary.json reports the terrain's memory and the frames draw the terrain.
TEST(TerrainExample, SlideRunsThroughTheCli) {
  const fs::path out = dir() / "slide";
  const nlohmann::json j = test::run_example("levelset/terrain_slide.toml", out);
  EXPECT_EQ(j["status"], "completed");
  EXPECT_LT(std::abs(j["energy"]["max_relative_residual"].get<double>()), 1e-12);
  EXPECT_EQ(j["terrains"]["count"], 1);
  EXPECT_GT(j["terrains"]["bytes"].get<double>(), 0.0);
  EXPECT_GT(j["terrains"]["band_nodes"].get<double>(), 0.0);
  EXPECT_LT(j["max_penetration"]["fraction_of_smallest_diameter"].get<double>(), 0.05);
  EXPECT_TRUE(fs::exists(out / "frames" / "terrain_000000.vtu"));
  std::ifstream state(out / "state.csv");
  std::string header, row;
  std::getline(state, header);
  std::getline(state, row);
  std::vector<double> v;
  std::stringstream ss(row);
  for (std::string cell; std::getline(ss, cell, ',') && v.size() < 14;)
    v.push_back(std::stod(cell));
  ASSERT_EQ(v.size(), 14u) << row;
  const double x = v[1], speed = Vec3(v[8], v[9], v[10]).norm();
  std::printf("slab stopped at x = %.3f m, speed %.2e m/s\n", x, speed);
  EXPECT_GT(x, 1.9);
  EXPECT_LT(x, 2.8);
  EXPECT_LT(speed, 0.02);
}

}  // namespace
}  // namespace etdem
