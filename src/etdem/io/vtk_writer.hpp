// ParaView output of a run: DIR/particles.pvd, a time collection that lists one multiblock file
// per frame (DIR/frames/frame_SSSSSS.vtm, SSSSSS the step). Every frame has the same named blocks
// in the same order, so a block selected by name or by index is the same thing at every time (and
// in every run); a block the frame has nothing for is empty (a null block under its name). The
// blocks, in order, what each holds and its files (NAME_SSSSSS.vtu) are the table kBlocks of
// vtk_writer.cpp (docs/scenario.md "ParaView").
//
// A grain's pieces come from its shape's record (ShapeKind::draw, shapes/shape_kind.hpp): balls,
// boxes, convex hulls, triangle surfaces, each list to the block of its shape type and kind. Grain
// blocks are written every frame. Walls and meshes are static: their file is written when what
// they draw changes (an event removes a wall), named by the step it was first written at, and
// every frame in between refers to the same file; the wall files are rewritten at the end with
// the floors' extent over the whole run. Fixed bodies are drawn; removed ones are not.
//
// Adding a block: its line at the end of kBlocks (vtk_writer.cpp), naming the shape type and the
// kind of pieces it draws; a new kind of piece (or of wall) is a builder of its VtuPiece in
// write_frame too.
//
// Encoding (io/vtk_xml.hpp): appended raw binary, optionally zlib-compressed, or ASCII with 10
// significant digits ([output] vtk_format, vtk_compression). Format decision: VTK XML
// UnstructuredGrid (.vtu) pieces, because the independent reader the tests use (meshio) reads
// .vtu but not .vtp, and ParaView reads both alike; the .vtm per frame gives the blocks their
// names, which ParaView 5.11 shows and selects by.
#pragma once

#include <algorithm>
#include <array>
#include <string>
#include <string_view>
#include <vector>

#include "etdem/core/byte_stream.hpp"
#include "etdem/core/math.hpp"
#include "etdem/io/vtk_xml.hpp"

namespace etdem {

class World;

/// The names of the blocks of every frame ("spheres", "boxes", ...), in file order.
std::vector<std::string_view> vtk_block_names();

/// True for a file name the writer produces in frames/ (a frame's .vtm, a block's .vtu, and the
/// names of earlier versions of the output), so a new run can clear what an old one left.
bool is_vtk_frame_file(std::string_view filename);

/// A finite quad drawn for a plane body (the planes of a box container, plain planes).
struct WallQuad {
  int body = -1;
  std::array<Vec3, 4> corners;  // a rectangle in the plane, corners in order around it
  /// A floor grows to cover the footprint of every grain the frames show over the run (grains
  /// run out beyond a container's floor onto the infinite plane). A plain plane has no extent of
  /// its own: its corners are all its point.
  bool floor = false;
  /// The plane's normal, towards its free side: the quad is written counter-clockwise about it.
  Vec3 normal = Vec3::UnitZ();
};

class VtkWriter {
 public:
  /// Terrains with more raster nodes are drawn with a stride (about this many nodes).
  static constexpr double kMaxTerrainNodes = 1e6;
  /// `directory` is the run directory; frames go to directory/frames (created by the caller).
  VtkWriter(std::string directory, std::vector<WallQuad> walls, VtkEncoding encoding = {});

  /// Writes the frame's block files and its .vtm, and records it for the .pvd.
  void write_frame(const World& world);
  /// Rewrites the wall files with the floors' final extent and directory/particles.pvd listing
  /// every frame written so far.
  void write_pvd();
  int frames() const { return frames_; }
  /// The writer's state for a checkpoint (io/checkpoint.cpp): the floors' extents, the static
  /// files written and the frames listed so far. load() takes it into a writer made with the
  /// same walls and throws ByteStreamError or std::invalid_argument when it does not fit.
  void save(ByteWriter& out) const;
  void load(ByteReader& in);

 private:
  /// A floor's rectangle: origin and in-plane axes, and its extent along them.
  struct Floor {
    Vec3 origin, u, v;
    double u_min, u_max, v_min, v_max;
    /// Grows the rectangle to cover a ball of radius r at `d` from the origin.
    void cover(const Vec3& d, double r) {
      u_min = std::min(u_min, d.dot(u) - r);
      u_max = std::max(u_max, d.dot(u) + r);
      v_min = std::min(v_min, d.dot(v) - r);
      v_max = std::max(v_max, d.dot(v) + r);
    }
  };
  /// A version of a static block: what it draws (body ids; for walls, indices of wall quads)
  /// and the file holding it.
  struct StaticVersion {
    std::vector<int> items;
    std::string file;  // relative to frames/
  };
  void grow_floors(const World& world);
  std::vector<WallQuad> floor_quads() const;
  /// The file of static block `b` drawing `items`: the last one if they are unchanged, else a
  /// new one written by `build(items)` (named after the block and `step`).
  template <class Build>
  std::string static_file(int b, const std::vector<int>& items, long step, Build build);

  std::string directory_;
  std::vector<WallQuad> walls_;
  std::vector<Floor> floors_;  // one per wall quad; only those with floor = true grow
  VtkEncoding encoding_;
  std::vector<std::vector<StaticVersion>> versions_;  // per block (static ones only grow)
  std::vector<PvdEntry> entries_;
  int frames_ = 0;
};

}  // namespace etdem
