// ParaView output: one VTK XML file per part and frame in DIR/frames/ plus DIR/particles.pvd,
// a Collection listing every file with its time (part 0 spheres, 1 boxes, 2 container walls,
// 3 polyhedra, 4 mesh walls, 5 level-set grains, 6 terrains).
//
// Format choice: VTK XML *UnstructuredGrid* (.vtu), ASCII. The initial design named PolyData
// (.vtp); ParaView reads both alike, but the independent reader the tests use (meshio, Debian
// python3-meshio) reads only .vtu, so .vtu it is (recorded in docs/scenario.md). ASCII with 10
// significant digits: frames are for viewing; state.csv carries full precision.
//   particles_SSSSSS.vtu  spheres as points (VTK_VERTEX cells) with point data radius,
//                         velocity, angular_velocity, orientation (w, x, y, z), id
//   boxes_SSSSSS.vtu      boxes as hexahedra (8 points each) with cell data id, velocity,
//                         angular_velocity
//   walls_SSSSSS.vtu      the faces of box containers still present, as quads, cell data id
//   polyhedra_SSSSSS.vtu  every face of every polyhedron as a polygon cell (VTK_POLYGON), each
//                         body's vertices listed once; cell data id, velocity, angular_velocity
//                         (of the face's body)
//   meshes_SSSSSS.vtu     the triangles of every mesh wall (VTK_TRIANGLE), cell data id; meshes
//                         are static, so this file is written once, with the first frame (a mesh
//                         removed by an event stays drawn)
//   terrain_SSSSSS.vtu    the surface of every terrain (two VTK_TRIANGLE cells per raster cell),
//                         cell data id; written once, with the first frame; rasters above
//                         kMaxTerrainNodes nodes are drawn every few nodes
// SSSSSS is the step number. Fixed bodies are included; removed ones are not.
#pragma once

#include <array>
#include <string>
#include <vector>

#include "etdem/core/math.hpp"

namespace etdem {

class World;

/// A finite quad drawn for a plane body (the planes of a box container).
struct WallQuad {
  int body = -1;
  std::array<Vec3, 4> corners;
};

class VtkWriter {
 public:
  /// `directory` is the run directory; frames go to directory/frames (created by the caller).
  VtkWriter(std::string directory, std::vector<WallQuad> walls);

  /// Writes the frame files of the current state and records them for the .pvd.
  void write_frame(const World& world);
  /// (Re)writes directory/particles.pvd listing every frame written so far.
  void write_pvd() const;
  int frames() const { return frames_; }
  /// Terrains with more raster nodes are drawn with a stride (about this many nodes).
  static constexpr double kMaxTerrainNodes = 1e6;

 private:
  struct Entry {
    double time;
    int part;
    std::string file;  // relative to the run directory
  };
  void write_terrain(const World& world, const std::vector<int>& bodies);
  std::string directory_;
  std::vector<WallQuad> walls_;
  std::vector<Entry> entries_;
  int frames_ = 0;
  bool has_spheres_ = false, has_boxes_ = false, has_walls_ = false, has_polyhedra_ = false,
       has_surfaces_ = false;
};

}  // namespace etdem
