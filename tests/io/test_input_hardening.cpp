// Mesh files are data only and refusals are cheap and one line: Gmsh scripts are never run,
// declared counts are checked against the file size before anything is allocated, malformed or
// mislabelled files are errors, and messages stay on one line whatever the input holds. The CLI
// cases run the etdem binary (ETDEM_CLI).
#include <gtest/gtest.h>

#include <cctype>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>

#include "etdem/io/mesh_format.hpp"
#include "etdem/io/mesh_import.hpp"
#include "etdem/io/scenario.hpp"
#include "etdem/io/tet_mesh_import.hpp"
#include "test_mesh_helpers.hpp"

namespace etdem {
namespace {

namespace fs = std::filesystem;

const std::string kCrossMsh = std::string(ETDEM_SOURCE_DIR) + "/examples/meshes/cross.msh";

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string write(const std::string& name, const std::string& bytes) {
  const std::string path = test::temp_path(name);
  std::ofstream(path, std::ios::binary) << bytes;
  return path;
}

/// The message of the error import_tet_mesh (tet = true) or import_mesh throws for `path`.
std::string error_of(const std::string& path, bool tet = true) {
  try {
    if (tet)
      (void)import_tet_mesh(path);
    else
      (void)import_mesh(path);
  } catch (const std::runtime_error& e) {
    return e.what();
  }
  return "no error";
}

void expect_refused(const std::string& path, const std::string& what, bool tet = true) {
  const std::string msg = error_of(path, tet);
  EXPECT_EQ(msg.rfind(path + ": ", 0), 0u) << msg;
  EXPECT_NE(msg.find(what), std::string::npos) << msg;
  EXPECT_EQ(msg.find('\n'), std::string::npos) << msg;
  EXPECT_LT(msg.size(), path.size() + 300) << msg;
}

/// Peak resident memory of this process [kB] (VmHWM).
long peak_kb() {
  std::ifstream in("/proc/self/status");
  std::string line;
  while (std::getline(in, line))
    if (line.rfind("VmHWM:", 0) == 0) return std::stol(line.substr(6));
  return -1;
}

struct Cli {
  int code;
  std::string out, err;
};

/// Runs the etdem binary with `args` (shell words), capturing stdout and stderr.
Cli run_cli(const std::string& args) {
  const std::string out = test::temp_path("cli_out.txt"), err = test::temp_path("cli_err.txt");
  const std::string cmd =
      std::string("'") + ETDEM_CLI + "' " + args + " >'" + out + "' 2>'" + err + "'";
  const int status = std::system(cmd.c_str());
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, slurp(out), slurp(err)};
}

int lines(const std::string& s) {
  int n = 0;
  for (char c : s) n += c == '\n';
  return n;
}

/// A scenario whose one compound shape is read from `mesh`.
std::string compound_scenario(const std::string& name, const std::string& mesh) {
  return write(name,
               "[simulation]\ndt = 0.001\nduration = 0.01\n\n[[material]]\nname = \"m\"\n"
               "density = 1000.0\nrestitution = 0.5\nfriction = 0.3\n\n[[shape]]\nname = \"x\"\n"
               "type = \"compound\"\nfile = \"" +
                   mesh +
                   "\"\n\n[[body]]\nname = \"b\"\nshape = \"x\"\nmaterial = \"m\"\n"
                   "position = [0.0, 0.0, 1.0]\n");
}

// --- Gmsh scripts are refused and never run ------------------------------------------------

TEST(MeshSafety, GeoScriptWithSystemCallIsRefusedAndNotRun) {
  const std::string marker = test::temp_path("systemcall_marker");
  fs::remove(marker);
  const std::string geo =
      write("x.geo", "SystemCall \"touch " + marker + "\";\nPoint(1) = {0, 0, 0, 1};\n");
  expect_refused(geo, "Gmsh script");
  // The same script under a mesh name, through the CLI as the issue reported it.
  const std::string as_msh = write("script.msh", slurp(geo));
  expect_refused(as_msh, "Gmsh script");
  const std::string sc = compound_scenario("geo_scenario.toml", geo);
  const Cli r = run_cli("check '" + sc + "'");
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_EQ(lines(r.err), 1) << r.err;
  EXPECT_NE(r.err.find("shape[0].file"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("x.geo"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(marker)) << "the script's command ran";
}

TEST(MeshSafety, GeoLoopIsRefusedFast) {
  const std::string geo = write("loop.geo", "For i In {1:2000000000}\n  x = i;\nEndFor\n");
  const auto t0 = std::chrono::steady_clock::now();
  expect_refused(geo, "Gmsh script");
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_LT(s, 0.5);
}

// --- declared counts against the file size ----------------------------------------------------

TEST(MeshSafety, HugeVtkPointCountIsRefusedFastInLittleMemory) {
  const std::string vtk = write("huge.vtk",
                                "# vtk DataFile Version 2.0\nx\nASCII\nDATASET UNSTRUCTURED_GRID\n"
                                "POINTS 999999999 double\n0 0 0\n");
  const long before = peak_kb();
  const auto t0 = std::chrono::steady_clock::now();
  expect_refused(vtk, "999999999 points declared");
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_LT(s, 0.1);
  EXPECT_LT(peak_kb() - before, 10 * 1024) << "kB of peak memory grown";
}

TEST(MeshSafety, HugeCountsInMshAndBinaryStlAreRefused) {
  expect_refused(
      write("huge_nodes.msh", "$MeshFormat\n2.2 0 8\n$EndMeshFormat\n$Nodes\n999999999\n1 0 0 0\n"),
      "999999999 nodes declared");
  expect_refused(write("huge_elements.msh",
                       "$MeshFormat\n2.2 0 8\n$EndMeshFormat\n$Nodes\n1\n1 0 0 0\n$EndNodes\n"
                       "$Elements\n4000000000\n"),
                 "4000000000 elements declared");
  std::string stl(84 + 50, '\0');
  stl[80] = '\xff', stl[81] = '\xff', stl[82] = '\xff', stl[83] = '\x7f';
  expect_refused(write("huge.stl", stl), "declares 2147483647 triangles", false);
}

// --- malformed files ------------------------------------------------------------------------

std::string ascii_cube() {
  const std::string path = test::temp_path("cube_for_bytes.stl");
  test::write_ascii_stl(path, test::box_mesh(Vec3(0, 0, 0), Vec3(1, 1, 1)));
  return slurp(path);
}

TEST(MeshSafety, TruncatedAndCorruptedStlsAreRefused) {
  const std::string cube = ascii_cube();
  // Cut inside a facet and cut after a facet (no endsolid).
  expect_refused(write("cut1.stl", cube.substr(0, cube.size() / 2)), "line", false);
  const std::size_t last_facet = cube.rfind("endfacet") + 9;
  expect_refused(write("cut2.stl", cube.substr(0, last_facet)), "no 'endsolid'", false);
  // Random bytes inserted in the middle of the ASCII STL.
  std::string noisy = cube;
  noisy.insert(cube.size() / 3, "\x13\x87garbage\x01 12");
  expect_refused(write("noisy.stl", noisy), "line", false);
  // A binary STL with bytes inserted, or cut short.
  const std::string bin_path = test::temp_path("cube_bin.stl");
  test::write_binary_stl(bin_path, test::box_mesh(Vec3(0, 0, 0), Vec3(1, 1, 1)));
  std::string bin = slurp(bin_path);
  expect_refused(write("bin_cut.stl", bin.substr(0, bin.size() - 7)), "declares 12 triangles",
                 false);
  bin.insert(300, "\x01\x02\x03");
  expect_refused(write("bin_noisy.stl", bin), "declares 12 triangles", false);
}

TEST(MeshSafety, AsciiStlVertexWithOneCoordinateIsAOneLineError) {
  std::string cube = ascii_cube();
  const std::size_t v = cube.find("vertex") + 6;
  const std::size_t eol = cube.find('\n', v);
  cube.replace(v, eol - v, " 0.5");
  const std::string path = write("one_coordinate.stl", cube);
  expect_refused(path, "line 5: expected a vertex coordinate (3 per vertex), found 'vertex'",
                 false);
}

TEST(MeshSafety, MshCountsAndSectionsMustAgree) {
  const std::string cross = slurp(kCrossMsh);
  // $Elements says 10 of the 42 that follow.
  std::string ten = cross;
  ten.replace(ten.find("$Elements\n42\n"), 13, "$Elements\n10\n");
  expect_refused(write("ten_of_42.msh", ten), "expected $EndElements");
  // More declared than present.
  std::string fifty = cross;
  fifty.replace(fifty.find("$Elements\n42\n"), 13, "$Elements\n50\n");
  expect_refused(write("fifty_of_42.msh", fifty),
                 "expected an element number, found '$EndElements'");
  // Missing $EndNodes.
  std::string no_end = cross;
  no_end.erase(no_end.find("$EndNodes\n"), 10);
  expect_refused(write("no_end_nodes.msh", no_end), "expected $EndNodes");
  // Missing $EndElements at the end of the file.
  std::string cut = cross;
  cut.erase(cut.find("$EndElements"));
  expect_refused(write("no_end_elements.msh", cut), "ends without $EndElements");
  // A node used by an element but not defined; binary and unknown versions.
  std::string missing = cross;
  missing.replace(missing.find("\n1 4 2 1 1 1 2 3 4\n"), 19, "\n1 4 2 1 1 1 2 3 99\n");
  expect_refused(write("missing_node.msh", missing), "refers to node 99");
  expect_refused(write("binary.msh", "$MeshFormat\n2.2 1 8\n$EndMeshFormat\n"), "binary MSH");
  expect_refused(write("v3.msh", "$MeshFormat\n3.0 0 8\n$EndMeshFormat\n"), "version '3.0'");
}

TEST(MeshSafety, FormatIsDecidedByContentAndTheNameMustAgree) {
  const std::string cross = slurp(kCrossMsh);
  expect_refused(write("cross.xyz", cross),
                 "the content is Gmsh MSH but the file name ends in '.xyz'");
  expect_refused(write("cross_no_extension", cross), "has no extension");
  expect_refused(write("cross_msh.stl", cross),
                 "the content is Gmsh MSH but the file name ends in '.stl'");
  // Upper-case extensions are fine; a volume mesh is no surface.
  EXPECT_EQ(import_tet_mesh(write("CROSS.MSH", cross)).mesh.tets.size(), 42u);
  expect_refused(write("cross_as_wall.msh", cross), "a surface (.stl or .obj) is needed", false);
  expect_refused(write("empty.stl", ""), "the file is empty", false);
  expect_refused(write("words.obj", "hello world\n"), "no mesh format etdem reads", false);
}

TEST(MeshSafety, DirectoryAndSpecialFilesAreNamedAsSuch) {
  const std::string dir = test::temp_path("a_directory.stl");
  fs::create_directories(dir);
  expect_refused(dir, "is a directory", false);
  expect_refused(dir, "is a directory", true);
  if (fs::exists("/dev/null")) {
    const std::string msg = error_of("/dev/null");
    EXPECT_NE(msg.find("not a regular file"), std::string::npos) << msg;
  }
  const std::string with_nul = std::string("a\0b.stl", 7);
  const std::string msg = error_of(with_nul, false);
  EXPECT_NE(msg.find("a\\0b.stl: the file name holds a NUL byte"), std::string::npos) << msg;
}

// --- the readers read what they should ------------------------------------------------------

TEST(MeshReaders, CrossAsMsh41AndVtkGivesTheSameTetrahedra) {
  const TetMeshImport ref = import_tet_mesh(kCrossMsh);
  // The cross's nodes and tetrahedra re-written in MSH 4.1 and legacy VTK.
  TetMesh m = parse_volume_mesh(slurp(kCrossMsh), MeshFormat::Msh);
  std::ostringstream v4, vtk;
  v4.precision(17);
  vtk.precision(17);
  v4 << "$MeshFormat\n4.1 0 8\n$EndMeshFormat\n$Entities\n0 0 0 1\n1 -2 -2 -2 2 2 2 0 0\n"
        "$EndEntities\n$Nodes\n1 "
     << m.nodes.size() << " 1 " << m.nodes.size() << "\n3 1 0 " << m.nodes.size() << "\n";
  for (std::size_t k = 0; k < m.nodes.size(); ++k) v4 << k + 1 << "\n";
  for (const Vec3& x : m.nodes) v4 << x.x() << " " << x.y() << " " << x.z() << "\n";
  v4 << "$EndNodes\n$Elements\n1 " << m.tets.size() << " 1 " << m.tets.size() << "\n3 1 4 "
     << m.tets.size() << "\n";
  for (std::size_t e = 0; e < m.tets.size(); ++e)
    v4 << e + 1 << " " << m.tets[e][0] + 1 << " " << m.tets[e][1] + 1 << " " << m.tets[e][2] + 1
       << " " << m.tets[e][3] + 1 << "\n";
  v4 << "$EndElements\n";
  vtk << "# vtk DataFile Version 4.2\ncross\nASCII\nDATASET UNSTRUCTURED_GRID\nPOINTS "
      << m.nodes.size() << " double\n";
  for (const Vec3& x : m.nodes) vtk << x.x() << " " << x.y() << " " << x.z() << "\n";
  vtk << "CELLS " << m.tets.size() << " " << 5 * m.tets.size() << "\n";
  for (const auto& t : m.tets)
    vtk << "4 " << t[0] << " " << t[1] << " " << t[2] << " " << t[3] << "\n";
  vtk << "CELL_TYPES " << m.tets.size() << "\n";
  for (std::size_t e = 0; e < m.tets.size(); ++e) vtk << "10\n";
  vtk << "CELL_DATA " << m.tets.size() << "\n";
  for (const std::string& path : {write("cross41.msh", v4.str()), write("cross.vtk", vtk.str())}) {
    const TetMeshImport in = import_tet_mesh(path);
    EXPECT_EQ(in.mesh.tets, ref.mesh.tets) << path;
    EXPECT_EQ(in.mesh.nodes, ref.mesh.nodes) << path;
  }
  // The VTK with one cell too few for its declared count.
  std::string bad = vtk.str();
  bad.replace(bad.find("CELL_TYPES 42"), 13, "CELL_TYPES 41");
  expect_refused(write("cross_bad.vtk", bad), "CELL_TYPES declares 41 cells, CELLS 42");
}

TEST(MeshReaders, BinaryStlWhoseHeaderSaysSolidIsBinary) {
  const std::string path = test::temp_path("solid_header.stl");
  test::write_binary_stl(path, test::box_mesh(Vec3(0, 0, 0), Vec3(1, 2, 3)));
  std::string bytes = slurp(path);
  bytes.replace(0, 12, "solid cube  ");  // what some CAD exporters write into the header
  EXPECT_EQ(sniff_mesh_format(bytes), MeshFormat::StlBinary);
  const MeshData d = import_mesh(write("solid_header.stl", bytes));
  EXPECT_EQ(d.triangles.size(), 12u);
  EXPECT_EQ(d.vertices.size(), 8u);
  EXPECT_EQ(sniff_mesh_format(ascii_cube()), MeshFormat::StlAscii);
  // Several solids in one ASCII file are one mesh; upper-case keywords are read.
  std::string two = ascii_cube() + ascii_cube();
  EXPECT_EQ(parse_surface_mesh(two, MeshFormat::StlAscii).triangles.size(), 24u);
  std::string upper = ascii_cube();
  for (char& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  EXPECT_EQ(parse_surface_mesh(upper, MeshFormat::StlAscii).triangles.size(), 12u);
}

TEST(MeshReaders, ObjPolygonsNegativeIndicesAndSkippedStatements) {
  const std::string path = write("quad_box.obj",
                                 "# a unit cube of quads\nmtllib never_opened.mtl\no cube\n"
                                 "v 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\nv 0 0 1\nv 1 0 1 1.0\n"
                                 "v 1 1 1\nv 0 1 1\nvn 0 0 1\nvt 0 0\ng sides\ns off\n"
                                 "usemtl grey\nf 1 4 3 2\nf 5 6 7 8\nf 1//1 2//1 6//1 5//1\n"
                                 "f 2/1 3/1 7/1 6/1\nf 3 4 8 7\nf -8 -4 -1 -5\n");
  const MeshData d = import_mesh(path);
  EXPECT_EQ(d.vertices.size(), 8u);
  EXPECT_EQ(d.triangles.size(), 12u);
  expect_refused(write("bad_ref.obj", "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 4\n"),
                 "line 4: a face refers to vertex 4, the file has 3 vertices", false);
  expect_refused(write("bad_v.obj", "v 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n"),
                 "line 1: a vertex holds 3 to 7 numbers", false);
  expect_refused(write("curve.obj", "v 0 0 0\ncstype bspline\n"), "line 2: 'cstype'", false);
}

// --- one-line messages ----------------------------------------------------------------------

TEST(OneLineErrors, NulByteInATomlStringIsEscaped) {
  const std::string text =
      "[simulation]\ndt = 0.001\nduration = 0.01\n\n[[material]]\nname = \"m\"\n"
      "density = 1000.0\nrestitution = 0.5\nfriction = 0.3\n\n[[shape]]\nname = \"x\"\n"
      "type = \"polyhedron\"\nfile = \"cube\\u0000.stl\"\n";
  try {
    (void)parse_scenario(text, "nul.toml");
    FAIL() << "no error";
  } catch (const std::exception& e) {
    const std::string msg = e.what();
    EXPECT_EQ(msg.find('\n'), std::string::npos) << msg;
    EXPECT_NE(msg.find("shape[0].file"), std::string::npos) << msg;
    EXPECT_NE(msg.find("\\x00.stl"), std::string::npos) << msg;  // the value after the NUL
  }
  const std::string sc = write("nul.toml", text);
  const Cli r = run_cli("check '" + sc + "'");
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(lines(r.err), 1) << r.err;
  EXPECT_NE(r.err.find(".stl\")"), std::string::npos) << r.err;
}

TEST(OneLineErrors, DirectoryAsMeshInAScenario) {
  const std::string dir = test::temp_path("mesh_dir.msh");
  fs::create_directories(dir);
  const Cli r = run_cli("check '" + compound_scenario("dir_scenario.toml", dir) + "'");
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(lines(r.err), 1) << r.err;
  EXPECT_NE(r.err.find("is a directory"), std::string::npos) << r.err;
}

TEST(OneLineErrors, ScenarioThatIsADirectoryOrADevice) {
  const std::string dir = test::temp_path("a_scenario_dir.toml");
  fs::create_directories(dir);
  Cli r = run_cli("check '" + dir + "'");
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.err, dir + ": file: is a directory, not a scenario file\n");
  if (fs::exists("/dev/zero")) {
    r = run_cli("check /dev/zero");  // used to read forever
    EXPECT_EQ(r.code, 2);
    EXPECT_NE(r.err.find("/dev/zero: file: is not a regular file"), std::string::npos) << r.err;
  }
}

TEST(OneLineErrors, BadThreadsIsOneLineNamingTheOptionAndFile) {
  const std::string sc = std::string(ETDEM_SOURCE_DIR) + "/examples/drop_box.toml";
  const Cli r = run_cli("run '" + sc + "' --threads abc -o '" + test::temp_path("never") + "'");
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(lines(r.err), 1) << r.err;
  EXPECT_NE(r.err.find("--threads"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("abc"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find(sc), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(test::temp_path("never")));
}

TEST(OneLineErrors, OutputDirectoryIsCheckedBeforeAnythingIsWritten) {
  const std::string dir = test::temp_path("blocked_output");
  fs::remove_all(dir);
  fs::create_directories(dir + "/energy.csv");
  const std::string sc = std::string(ETDEM_SOURCE_DIR) + "/examples/drop_box.toml";
  const Cli r = run_cli("run '" + sc + "' -o '" + dir + "' --set simulation.duration=0.01");
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_EQ(lines(r.err), 1) << r.err;
  EXPECT_NE(r.err.find(dir + "/energy.csv: is a directory"), std::string::npos) << r.err;
  int entries = 0;
  for (const auto& e : fs::directory_iterator(dir)) entries += e.path().filename() != "energy.csv";
  EXPECT_EQ(entries, 0) << "something was written to " << dir;
}

}  // namespace
}  // namespace etdem
