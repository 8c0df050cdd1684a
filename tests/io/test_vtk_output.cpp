// VTK output: the .vtu encoder read back by an independent decoder written here (appended raw
// binary, zlib blocks, ASCII) gives the values it was given (exactly for binary), and a run's
// frames have the documented blocks, static geometry in every frame, and floors that cover the
// grains' run-out. (meshio and VTK's own reader read the CLI's frames in script_cli_output.sh;
// ParaView renders them in script_long_paraview.sh.)
#include <gtest/gtest.h>
#include <zlib.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "etdem/io/run.hpp"
#include "etdem/io/scenario.hpp"
#include "etdem/io/vtk_writer.hpp"
#include "etdem/io/vtk_xml.hpp"
#include "etdem/shapes/level_set_build.hpp"
#include "etdem/world/world.hpp"

namespace etdem {
namespace {

namespace fs = std::filesystem;

std::string read_file(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

/// The attribute `key` of the XML start tag beginning at `tag`.
std::string attribute(const std::string& text, std::size_t tag, const std::string& key) {
  const std::size_t end = text.find('>', tag);
  const std::size_t at = text.find(" " + key + "=\"", tag);
  if (at == std::string::npos || at > end) return {};
  const std::size_t begin = at + key.size() + 3;
  return text.substr(begin, text.find('"', begin) - begin);
}

/// An independent reader of the arrays of a .vtu file: every DataArray by name, as doubles.
std::map<std::string, std::vector<double>> decode_vtu(const std::string& text) {
  std::map<std::string, std::vector<double>> out;
  const bool zlib = text.find("compressor=\"vtkZLibDataCompressor\"") != std::string::npos;
  const std::size_t appended = text.find("<AppendedData encoding=\"raw\">");
  const std::size_t data = appended == std::string::npos ? 0 : text.find('_', appended) + 1;
  for (std::size_t tag = text.find("<DataArray"); tag != std::string::npos && tag < appended;
       tag = text.find("<DataArray", tag + 1)) {
    const std::string name = attribute(text, tag, "Name"), type = attribute(text, tag, "type");
    const std::size_t size = type == "UInt8" ? 1 : 8;
    std::vector<double>& values = out[name];
    if (attribute(text, tag, "format") == "ascii") {
      std::istringstream in(text.substr(text.find('>', tag) + 1,
                                        text.find("</DataArray>", tag) - text.find('>', tag) - 1));
      for (double v; in >> v;) values.push_back(v);
      continue;
    }
    const std::size_t at = data + std::stoul(attribute(text, tag, "offset"));
    std::string bytes;
    auto u64 = [&](std::size_t p) {
      std::uint64_t v;
      std::memcpy(&v, text.data() + p, 8);
      return v;
    };
    if (!zlib) {
      bytes = text.substr(at + 8, u64(at));
    } else {
      const std::uint64_t blocks = u64(at), block = u64(at + 8), last = u64(at + 16);
      std::size_t p = at + 24 + 8 * blocks;
      for (std::uint64_t k = 0; k < blocks; ++k) {
        const std::uint64_t compressed = u64(at + 24 + 8 * k);
        uLongf n = (k + 1 == blocks && last != 0) ? last : block;
        std::string chunk(n, '\0');
        EXPECT_EQ(uncompress(reinterpret_cast<Bytef*>(chunk.data()), &n,
                             reinterpret_cast<const Bytef*>(text.data() + p), compressed),
                  Z_OK);
        chunk.resize(n);
        bytes += chunk;
        p += compressed;
      }
    }
    for (std::size_t k = 0; k + size <= bytes.size(); k += size) {
      if (type == "Float64") {
        double v;
        std::memcpy(&v, bytes.data() + k, 8);
        values.push_back(v);
      } else if (type == "Int64") {
        std::int64_t v;
        std::memcpy(&v, bytes.data() + k, 8);
        values.push_back(static_cast<double>(v));
      } else {
        values.push_back(static_cast<unsigned char>(bytes[k]));
      }
    }
  }
  return out;
}

/// A piece whose arrays span more than one zlib block (32 KiB): n points with awkward values.
VtuPiece sample_piece(std::size_t n) {
  VtuPiece p;
  std::vector<double> r(n), v(3 * n);
  std::vector<std::int64_t> id(n);
  for (std::size_t k = 0; k < n; ++k) {
    p.points.insert(p.points.end(), {1.0 / (k + 3.0), -0.0 + k * 1e-300, std::sqrt(2.0) * k});
    r[k] = std::ldexp(1.0, -static_cast<int>(k % 60)) / 3.0;
    for (int c = 0; c < 3; ++c) v[3 * k + c] = std::sin(1.0 + k + c) * 1e3;
    id[k] = static_cast<std::int64_t>(k) * 1000003 - 5;
  }
  p.add_cells(n, 1, kVtkVertex);
  p.point_data.add("radius", 1, r);
  p.point_data.add("velocity", 3, v);
  p.cell_data.add("id", id);
  return p;
}

TEST(VtkXml, BinaryAndZlibFramesDecodeToTheExactValues) {
  // 4096 doubles are exactly one zlib block, 5000 points of 3 doubles span four blocks with a
  // partial last one, and an empty piece has no block at all.
  for (std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{4096}, std::size_t{5000}}) {
    const VtuPiece p = sample_piece(n);
    for (bool zlib : {false, true}) {
      const std::string text = encode_vtu(p, {.binary = true, .zlib = zlib});
      // meshio cuts the appended data at its last newline: one must follow the data.
      EXPECT_NE(text.find("\n</AppendedData>\n</VTKFile>\n"), std::string::npos);
      const auto a = decode_vtu(text);
      EXPECT_EQ(a.at("Points"), p.points) << n << " zlib " << zlib;
      EXPECT_EQ(a.at("radius"), std::get<0>(p.point_data.arrays[0].values));
      EXPECT_EQ(a.at("velocity"), std::get<0>(p.point_data.arrays[1].values));
      const auto& id = std::get<1>(p.cell_data.arrays[0].values);
      EXPECT_EQ(a.at("id"), std::vector<double>(id.begin(), id.end()));
      EXPECT_EQ(a.at("connectivity").size(), n);
      EXPECT_EQ(a.at("types"), std::vector<double>(n, kVtkVertex));
      if (n == 5000 && zlib) {
        // The ids compress; the file is smaller than the uncompressed one.
        EXPECT_LT(text.size(), encode_vtu(p, {.binary = true, .zlib = false}).size());
      }
    }
  }
}

TEST(VtkXml, AsciiFramesHoldTenSignificantDigits) {
  const VtuPiece p = sample_piece(300);
  const auto a = decode_vtu(encode_vtu(p, {.binary = false}));
  const auto& v = std::get<0>(p.point_data.arrays[1].values);
  ASSERT_EQ(a.at("velocity").size(), v.size());
  for (std::size_t k = 0; k < v.size(); ++k)
    EXPECT_NEAR(a.at("velocity")[k], v[k], 5e-10 * std::abs(v[k]));
  EXPECT_EQ(a.at("offsets").back(), 300.0);
}

TEST(VtkXml, InconsistentPiecesAreRefused) {
  VtuPiece p = sample_piece(3);
  p.point_data.add("speed", 1, {1.0, 2.0});  // 2 values for 3 points
  EXPECT_THROW(encode_vtu(p, {}), std::invalid_argument);
  VtuPiece q = sample_piece(3);
  q.connectivity.pop_back();
  EXPECT_THROW(encode_vtu(q, {}), std::invalid_argument);
}

TEST(VtkXml, FrameFileNames) {
  for (const char* name : {"frame_000120.vtm", "spheres_000000.vtu", "compound_spheres_000010.vtu",
                           "walls_000003.vtu", "particles_000010.vtu", "levelsets_000001.vtu"})
    EXPECT_TRUE(is_vtk_frame_file(name)) << name;
  for (const char* name : {"notes.txt", "spheres_.vtu", "spheres_12a.vtu", "my_spheres.vtu",
                           "frame_000120.vtu", "spheres_000000.vtm"})
    EXPECT_FALSE(is_vtk_frame_file(name)) << name;
}

/// A sphere rolls out of a box whose right wall goes at t = 0; a plain plane far to the left and
/// a mesh wall far away are drawn too.
const std::string kRunOut = R"(
[simulation]
dt = 0.002
duration = 0.1
gravity = [0.0, 0.0, -9.81]
[[material]]
name = "m"
density = 2500.0
restitution = 0.3
friction = 0.5
[[shape]]
name = "ball"
type = "sphere"
radius = 0.01
[[body]]
shape = "ball"
material = "m"
position = [0.08, 0.05, 0.0101]
velocity = [3.0, 0.0, 0.0]
[[wall]]
name = "box"
type = "box"
min = [0.0, 0.0, 0.0]
max = [0.1, 0.1, 0.2]
material = "m"
[[wall]]
name = "left"
type = "plane"
point = [-0.5, 0.0, 0.0]
normal = [1.0, 0.0, 0.0]
material = "m"
[[wall]]
name = "chute"
type = "mesh"
file = "CHUTE"
offset = [5.0, 5.0, 5.0]
material = "m"
[[event]]
time = 0.0
remove = "box.right"
[output]
every = 10
)";

TEST(VtkWriter, EveryFrameHasTheBlocksAndTheFloorCoversTheRunOut) {
  std::string text = kRunOut;
  text.replace(text.find("CHUTE"), 5, std::string(ETDEM_SOURCE_DIR) + "/examples/meshes/chute.stl");
  const fs::path dir = fs::temp_directory_path() / "etdem_test_vtk_output";
  fs::remove_all(dir);
  for (const char* encoding : {"binary", "ascii"}) {
    const Scenario sc =
        parse_scenario(text, "run_out.toml", {std::string("output.vtk_format=") + encoding});
    RunOptions opt;
    opt.directory = dir.string();
    opt.progress = false;
    const RunResult r = run_scenario(sc, opt);
    ASSERT_EQ(r.frames, 6);  // steps 0, 10, ..., 50

    const std::string pvd = read_file(dir / "particles.pvd");
    const std::regex entry("file=\"(frames/frame_[0-9]{6}\\.vtm)\"");
    std::vector<std::string> vtms;
    for (auto it = std::sregex_iterator(pvd.begin(), pvd.end(), entry);
         it != std::sregex_iterator(); ++it)
      vtms.push_back((*it)[1]);
    ASSERT_EQ(vtms.size(), 6u);
    const std::regex block("<DataSet index=\"([0-9]+)\" name=\"([a-z_]+)\"( file=\"([^\"]+)\")?");
    std::vector<std::string> wall_files, mesh_files;
    double ball_x_max = -1.0, ball_y_max = -1.0;
    for (const std::string& vtm : vtms) {
      const std::string t = read_file(dir / vtm);
      int k = 0;
      std::map<std::string, std::string> files;
      const std::vector<std::string_view> names = vtk_block_names();
      for (auto it = std::sregex_iterator(t.begin(), t.end(), block); it != std::sregex_iterator();
           ++it, ++k) {
        EXPECT_EQ((*it)[1].str(), std::to_string(k));
        ASSERT_LT(static_cast<std::size_t>(k), names.size());
        EXPECT_EQ((*it)[2].str(), names[static_cast<std::size_t>(k)]);
        files[(*it)[2]] = (*it)[4];
      }
      EXPECT_EQ(static_cast<std::size_t>(k), names.size());
      EXPECT_FALSE(files["spheres"].empty());
      EXPECT_TRUE(files["boxes"].empty());
      EXPECT_TRUE(files["terrain"].empty());
      wall_files.push_back(files["walls"]);
      mesh_files.push_back(files["meshes"]);
      const auto s = decode_vtu(read_file(dir / "frames" / files["spheres"]));
      ball_x_max = std::max(ball_x_max, s.at("Points")[0] + s.at("radius")[0]);
      ball_y_max = std::max(ball_y_max, s.at("Points")[1] + s.at("radius")[0]);
      EXPECT_NEAR(s.at("speed")[0],
                  std::hypot(s.at("velocity")[0], s.at("velocity")[1], s.at("velocity")[2]),
                  1e-9 * s.at("speed")[0]);
    }
    // The ball left the box: the floor has to reach beyond the box to hold it.
    EXPECT_GT(ball_x_max, 0.2);
    // One mesh file for the whole run; the walls change once (the right wall goes at step 1).
    for (const std::string& f : mesh_files) EXPECT_EQ(f, mesh_files[0]);
    EXPECT_EQ(mesh_files[0], "meshes_000000.vtu");
    EXPECT_EQ(wall_files[0], "walls_000000.vtu");
    for (std::size_t k = 1; k < wall_files.size(); ++k)
      EXPECT_EQ(wall_files[k], "walls_000010.vtu");
    const auto before = decode_vtu(read_file(dir / "frames" / wall_files[0]));
    const auto after = decode_vtu(read_file(dir / "frames" / wall_files[1]));
    EXPECT_EQ(before.at("id").size(), 6u);  // floor, left, right, front, back; the plain plane
    EXPECT_EQ(after.at("id").size(), 5u);
    // Both versions carry the same floor (quad 0), covering the box and the ball's run-out.
    const std::vector<double>& p = after.at("Points");
    EXPECT_EQ(std::vector<double>(p.begin(), p.begin() + 12),
              std::vector<double>(before.at("Points").begin(), before.at("Points").begin() + 12));
    double x_min = 1e9, x_max = -1e9, y_min = 1e9, y_max = -1e9;
    for (int c = 0; c < 4; ++c) {
      x_min = std::min(x_min, p[3 * c]);
      x_max = std::max(x_max, p[3 * c]);
      y_min = std::min(y_min, p[3 * c + 1]);
      y_max = std::max(y_max, p[3 * c + 1]);
      EXPECT_EQ(p[3 * c + 2], 0.0);
    }
    const double tol = 1e-9;
    EXPECT_LE(x_min, 0.0 + tol);
    EXPECT_LE(y_min, 0.0 + tol);
    EXPECT_NEAR(x_max, ball_x_max, tol);  // exactly as far as the ball went
    EXPECT_NEAR(y_max, 0.1, tol);         // the ball stays between the front and back walls
    EXPECT_LT(ball_y_max, 0.1);
    // The plain plane (the last quad) lies in x = -0.5 and covers the ball's footprint on it.
    const std::vector<double> plane(p.end() - 12, p.end());
    double z_max = -1e9;
    for (int c = 0; c < 4; ++c) {
      EXPECT_NEAR(plane[3 * c], -0.5, tol);
      z_max = std::max(z_max, plane[3 * c + 2]);
    }
    EXPECT_GT(z_max, 0.0101);
    EXPECT_LT(z_max, 0.03);
  }
  fs::remove_all(dir);
}

TEST(VtkWriter, EveryGrainShapeIsDrawnInTheBlocksOfItsType) {
  // Every shape type whose record draws a grain (ShapeKind::draw) has a block for each kind of
  // piece it draws: one grain of each such type gives a frame whose blocks of that type hold
  // it, and no block of another grain type (a piece without a block would throw).
  World w;
  const int m = w.add_material({});
  LevelSetOptions ls;
  ls.spacing = 0.002;
  ls.nodes = 50;
  const int ball = w.shapes.add_sphere("ball", 0.01);
  const int box = w.shapes.add_box("box", Vec3(0.01, 0.02, 0.03));
  const std::vector<Vec3> tet = {Vec3(0, 0, 0), Vec3(0.02, 0, 0), Vec3(0, 0.02, 0),
                                 Vec3(0, 0, 0.02)};
  const std::vector<CompoundPart> parts = {{ball, Vec3(0, 0, 0)}, {box, Vec3(0.05, 0, 0)}};
  const std::map<ShapeType, int> shape_of = {
      {ShapeType::Sphere, ball},
      {ShapeType::Box, box},
      {ShapeType::Polyhedron, w.shapes.add_polyhedron("tet", tet)},
      {ShapeType::Compound, w.shapes.add_compound("pair", make_compound(w.shapes, parts))},
      {ShapeType::LevelSet, w.shapes.add_level_set("ls", level_set_sphere(0.01, ls))}};
  // The blocks each type's grain fills (the compound: its sphere part and its box part).
  const std::map<ShapeType, std::vector<std::string>> expected = {
      {ShapeType::Sphere, {"spheres"}},
      {ShapeType::Box, {"boxes"}},
      {ShapeType::Polyhedron, {"polyhedra"}},
      {ShapeType::Compound, {"compounds", "compound_spheres"}},
      {ShapeType::LevelSet, {"level_sets"}}};
  for (const ShapeKind& k : kShapeKinds)
    if (k.draw) {
      EXPECT_TRUE(shape_of.contains(k.type)) << k.name << " has no case here";
      EXPECT_TRUE(expected.contains(k.type)) << k.name << " has no expected blocks here";
    }
  std::vector<int> body_of;  // per entry of shape_of, in its order
  double x = 0.0;
  for (const auto& [type, s] : shape_of) {
    body_of.push_back(w.add_body(s, m, Vec3(x, 0, 0)));
    x += 0.2;
  }
  w.initialize();
  const fs::path dir = fs::temp_directory_path() / "etdem_test_vtk_kinds";
  fs::remove_all(dir);
  fs::create_directories(dir / "frames");
  VtkWriter writer(dir.string(), {});
  ASSERT_NO_THROW(writer.write_frame(w));
  const std::string vtm = read_file(dir / "frames" / "frame_000000.vtm");
  const std::regex block("<DataSet index=\"([0-9]+)\" name=\"([a-z_]+)\"( file=\"([^\"]+)\")?");
  std::map<std::string, std::string> files;
  for (auto it = std::sregex_iterator(vtm.begin(), vtm.end(), block); it != std::sregex_iterator();
       ++it)
    files[(*it)[2]] = (*it)[4];
  std::size_t k = 0;
  for (const auto& [type, s] : shape_of) {
    for (const std::string& name : expected.at(type)) {
      ASSERT_FALSE(files[name].empty()) << name;
      const auto data = decode_vtu(read_file(dir / "frames" / files[name]));
      ASSERT_FALSE(data.at("id").empty()) << name;
      for (const double id : data.at("id")) EXPECT_EQ(id, body_of[k]) << name;
    }
    ++k;
  }
  fs::remove_all(dir);
}

}  // namespace
}  // namespace etdem
