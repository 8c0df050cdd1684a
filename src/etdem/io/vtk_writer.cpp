#include "etdem/io/vtk_writer.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <stdexcept>

#include <fmt/format.h>

#include "etdem/io/shape_kinds.hpp"
#include "etdem/world/world.hpp"

namespace etdem {
namespace {

/// The blocks, in VtkBlock order: the name in the .vtm files and the prefix of its files.
constexpr std::string_view kVtkBlocks[] = {
    "spheres",           // VtkBlock::Spheres
    "boxes",             // VtkBlock::Boxes
    "polyhedra",         // VtkBlock::Polyhedra
    "compounds",         // VtkBlock::Compounds
    "compound_spheres",  // VtkBlock::CompoundSpheres
    "level_sets",        // VtkBlock::LevelSets
    "walls",             // VtkBlock::Walls
    "meshes",            // VtkBlock::Meshes
    "terrain",           // VtkBlock::Terrain
    "nets",              // VtkBlock::Nets
};
static_assert(std::size(kVtkBlocks) == static_cast<std::size_t>(VtkBlock::Count),
              "one name per block");

/// File prefixes of earlier versions of the output (one file per part, listed in the .pvd).
constexpr std::string_view kOldPrefixes[] = {"particles", "levelsets"};

int index(VtkBlock b) {
  return static_cast<int>(b);
}

std::string block_file(VtkBlock b, long step) {
  return fmt::format("{}_{:06d}.vtu", vtk_block_name(b), step);
}

void append(std::vector<double>& out, const Vec3& v) {
  out.insert(out.end(), {v.x(), v.y(), v.z()});
}

/// Per-body data of a cell block: the body id, its velocity, speed and angular velocity.
void body_cell_data(VtuPiece& piece, const std::vector<int>& owner, const Bodies& bodies) {
  const std::size_t n = owner.size();
  std::vector<std::int64_t> id(n);
  std::vector<double> v(3 * n), speed(n), w(3 * n);
  for (std::size_t k = 0; k < n; ++k) {
    const int i = owner[k];
    id[k] = i;
    speed[k] = bodies.velocity[i].norm();
    for (int c = 0; c < 3; ++c) {
      v[3 * k + c] = bodies.velocity[i][c];
      w[3 * k + c] = bodies.angular_velocity[i][c];
    }
  }
  piece.cell_data.vectors = "velocity";
  piece.cell_data.add("id", std::move(id));
  piece.cell_data.add("velocity", 3, std::move(v));
  piece.cell_data.add("speed", 1, std::move(speed));
  piece.cell_data.add("angular_velocity", 3, std::move(w));
}

/// Spheres as points with their radius and the motion of their centre (a compound part's
/// velocity includes its body's rotation).
VtuPiece sphere_piece(const std::vector<DrawPieces::Sphere>& spheres, const Bodies& bodies) {
  VtuPiece piece;
  const std::size_t n = spheres.size();
  std::vector<double> radius(n), v(3 * n), speed(n), w(3 * n), q(4 * n);
  std::vector<std::int64_t> id(n);
  for (std::size_t k = 0; k < n; ++k) {
    const DrawPieces::Sphere& s = spheres[k];
    const int i = s.body;
    append(piece.points, s.centre);
    radius[k] = s.radius;
    const Vec3 vk =
        bodies.velocity[i] + bodies.angular_velocity[i].cross(s.centre - bodies.position[i]);
    speed[k] = vk.norm();
    const Quat& o = bodies.orientation[i];
    for (int c = 0; c < 3; ++c) {
      v[3 * k + c] = vk[c];
      w[3 * k + c] = bodies.angular_velocity[i][c];
    }
    q[4 * k] = o.w();
    for (int c = 0; c < 3; ++c) q[4 * k + 1 + c] = o.vec()[c];
    id[k] = i;
  }
  piece.add_cells(n, 1, kVtkVertex);
  piece.point_data.scalars = "radius";
  piece.point_data.vectors = "velocity";
  piece.point_data.add("radius", 1, std::move(radius));
  piece.point_data.add("velocity", 3, std::move(v));
  piece.point_data.add("speed", 1, std::move(speed));
  piece.point_data.add("angular_velocity", 3, std::move(w));
  piece.point_data.add("orientation", 4, std::move(q));
  piece.point_data.add("id", std::move(id));
  return piece;
}

/// Boxes as hexahedra: VTK_HEXAHEDRON order, the -z face with its right-hand normal towards
/// +z, then the +z face.
VtuPiece box_piece(const std::vector<int>& boxes, const Bodies& bodies, const ShapeTable& shapes) {
  static const double kCorner[8][3] = {{-1, -1, -1}, {1, -1, -1}, {1, 1, -1}, {-1, 1, -1},
                                       {-1, -1, 1},  {1, -1, 1},  {1, 1, 1},  {-1, 1, 1}};
  VtuPiece piece;
  for (int i : boxes) {
    const Vec3& h = shapes.box(bodies.shape[i]).half_extents;
    const Mat3 r = bodies.orientation[i].toRotationMatrix();
    for (const auto& c : kCorner)
      append(piece.points, bodies.position[i] + r * Vec3(c[0] * h.x(), c[1] * h.y(), c[2] * h.z()));
  }
  piece.add_cells(boxes.size(), 8, kVtkHexahedron);
  body_cell_data(piece, boxes, bodies);
  return piece;
}

/// Convex hulls: one polygon cell per face, each hull's vertices once.
VtuPiece hull_piece(const std::vector<DrawPieces::Hull>& hulls, const Bodies& bodies) {
  VtuPiece piece;
  std::vector<int> owner;
  for (const DrawPieces::Hull& h : hulls) {
    const std::int64_t first = static_cast<std::int64_t>(piece.point_count());
    for (const Vec3& v : h.hull->vertices) append(piece.points, h.position + h.rotation * v);
    for (int f = 0; f < h.hull->face_count(); ++f) {
      for (int v : h.hull->face(f)) piece.connectivity.push_back(first + v);
      piece.offsets.push_back(static_cast<std::int64_t>(piece.connectivity.size()));
      piece.types.push_back(kVtkPolygon);
      owner.push_back(h.body);
    }
  }
  body_cell_data(piece, owner, bodies);
  return piece;
}

/// Appends the triangles of `mesh` (vertices in the frame of `rotation`, `position`) as
/// triangle cells of `body`.
void add_triangles(VtuPiece& piece, std::vector<int>& owner, int body, const Vec3& position,
                   const Mat3& rotation, const std::vector<Vec3>& vertices,
                   const std::vector<std::array<int, 3>>& triangles) {
  const std::int64_t first = static_cast<std::int64_t>(piece.point_count());
  for (const Vec3& v : vertices) append(piece.points, position + rotation * v);
  for (const auto& t : triangles) {
    for (int c = 0; c < 3; ++c) piece.connectivity.push_back(first + t[c]);
    piece.offsets.push_back(static_cast<std::int64_t>(piece.connectivity.size()));
    piece.types.push_back(kVtkTriangle);
    owner.push_back(body);
  }
}

/// Level-set grains: each grain's zero contour, posed.
VtuPiece surface_piece(const std::vector<DrawPieces::Surface>& surfaces, const Bodies& bodies) {
  VtuPiece piece;
  std::vector<int> owner;
  for (const DrawPieces::Surface& s : surfaces)
    add_triangles(piece, owner, s.body, s.position, s.rotation, s.mesh->vertices,
                  s.mesh->triangles);
  body_cell_data(piece, owner, bodies);
  return piece;
}

/// Mesh walls (static): their triangles, cell data id.
VtuPiece mesh_piece(const std::vector<int>& meshes, const Bodies& bodies,
                    const ShapeTable& shapes) {
  VtuPiece piece;
  std::vector<int> owner;
  for (int i : meshes) {
    const TriangleMesh& m = shapes.mesh(bodies.shape[i]);
    add_triangles(piece, owner, i, bodies.position[i], bodies.orientation[i].toRotationMatrix(),
                  m.vertices, m.triangles);
  }
  piece.cell_data.add("id", std::vector<std::int64_t>(owner.begin(), owner.end()));
  return piece;
}

/// Terrains (static): the surface triangles, two per raster cell split along the diagonal the
/// distance uses. A raster of more than kMaxTerrainNodes nodes is drawn every `stride` nodes
/// (the simulation uses all of them). Cell data id.
VtuPiece terrain_piece(const std::vector<int>& terrains, const Bodies& bodies,
                       const ShapeTable& shapes) {
  VtuPiece piece;
  std::vector<int> owner;
  for (int i : terrains) {
    const HeightMap& m = shapes.terrain(bodies.shape[i]).map;
    const double nodes = double(m.nx) * m.ny;
    const int stride =
        std::max(1, static_cast<int>(std::ceil(std::sqrt(nodes / VtkWriter::kMaxTerrainNodes))));
    std::vector<int> xs, ys;
    for (int a = 0; a < m.nx - 1; a += stride) xs.push_back(a);
    xs.push_back(m.nx - 1);
    for (int b = 0; b < m.ny - 1; b += stride) ys.push_back(b);
    ys.push_back(m.ny - 1);
    std::vector<Vec3> vertices;
    for (int b : ys)
      for (int a : xs) vertices.emplace_back(m.x0 + a * m.dx, m.y0 + b * m.dy, m.at(a, b));
    const int nx = static_cast<int>(xs.size());
    std::vector<std::array<int, 3>> triangles;
    for (int b = 0; b + 1 < static_cast<int>(ys.size()); ++b)
      for (int a = 0; a + 1 < nx; ++a) {
        const int c00 = b * nx + a, c10 = c00 + 1, c01 = c00 + nx, c11 = c01 + 1;
        triangles.push_back({c00, c10, c11});
        triangles.push_back({c00, c11, c01});
      }
    add_triangles(piece, owner, i, bodies.position[i], bodies.orientation[i].toRotationMatrix(),
                  vertices, triangles);
  }
  piece.cell_data.add("id", std::vector<std::int64_t>(owner.begin(), owner.end()));
  return piece;
}

/// Wall quads `which` of `quads`, cell data id.
VtuPiece wall_piece(const std::vector<WallQuad>& quads, const std::vector<int>& which) {
  VtuPiece piece;
  std::vector<std::int64_t> id;
  for (int k : which) {
    // Counter-clockwise about the plane's normal (towards the free side), so a viewer can cull
    // the walls it sees from behind (the near walls of a container).
    std::array<Vec3, 4> c = quads[k].corners;
    if ((c[1] - c[0]).cross(c[3] - c[0]).dot(quads[k].normal) < 0.0) std::swap(c[1], c[3]);
    for (const Vec3& p : c) append(piece.points, p);
    id.push_back(quads[k].body);
  }
  piece.add_cells(which.size(), 4, kVtkQuad);
  piece.cell_data.add("id", std::move(id));
  return piece;
}

/// The links of every net as lines between their nodes' centres (broken links left out): cell
/// data tension [N] (spring and dashpot, > 0 pulls), strain, net (index in World::nets);
/// point data id (the node's body id).
VtuPiece net_piece(const std::vector<Net>& nets, const Bodies& bodies) {
  VtuPiece piece;
  std::vector<std::int64_t> id, net_index;
  std::vector<double> tension, strain;
  for (std::size_t k = 0; k < nets.size(); ++k) {
    const Net& n = nets[k];
    std::vector<std::int64_t> point(bodies.count(), -1);  // body id -> point
    for (int i : n.nodes) {
      point[i] = static_cast<std::int64_t>(piece.point_count());
      append(piece.points, bodies.position[i]);
      id.push_back(i);
    }
    for (const NetLink& l : n.links) {
      if (l.broken) continue;
      piece.connectivity.push_back(point[l.a]);
      piece.connectivity.push_back(point[l.b]);
      piece.offsets.push_back(static_cast<std::int64_t>(piece.connectivity.size()));
      piece.types.push_back(kVtkLine);
      tension.push_back(l.tension);
      strain.push_back(l.strain);
      net_index.push_back(static_cast<std::int64_t>(k));
    }
  }
  piece.point_data.add("id", std::move(id));
  piece.cell_data.scalars = "tension";
  piece.cell_data.add("tension", 1, std::move(tension));
  piece.cell_data.add("strain", 1, std::move(strain));
  piece.cell_data.add("net", std::move(net_index));
  return piece;
}

/// A unit vector perpendicular to n (n unit).
Vec3 perpendicular(const Vec3& n) {
  const Vec3 a = std::abs(n.x()) < 0.9 ? Vec3::UnitX() : Vec3::UnitY();
  return (a - a.dot(n) * n).normalized();
}

}  // namespace

std::string_view vtk_block_name(VtkBlock b) {
  return kVtkBlocks[index(b)];
}

bool is_vtk_frame_file(std::string_view name) {
  // PREFIX_DIGITS.EXT
  auto numbered = [&](std::string_view prefix, std::string_view ext) {
    return name.size() > prefix.size() + 1 + ext.size() && name.starts_with(prefix) &&
           name[prefix.size()] == '_' && name.ends_with(ext) &&
           name.find_first_not_of("0123456789", prefix.size() + 1) == name.size() - ext.size();
  };
  if (numbered("frame", ".vtm")) return true;
  for (std::string_view p : kVtkBlocks)
    if (numbered(p, ".vtu")) return true;
  for (std::string_view p : kOldPrefixes)
    if (numbered(p, ".vtu")) return true;
  return false;
}

VtkWriter::VtkWriter(std::string directory, std::vector<WallQuad> walls, VtkEncoding encoding)
    : directory_(std::move(directory)), walls_(std::move(walls)), encoding_(encoding) {
  for (const WallQuad& w : walls_) {
    // The rectangle's axes: its edges, or for a plain plane (all corners at its point) two
    // directions in the plane.
    Floor f;
    f.origin = w.corners[0];
    const Vec3 e1 = w.corners[1] - w.corners[0], e3 = w.corners[3] - w.corners[0];
    const bool plain = !(e1.norm() > 0.0 && e3.norm() > 0.0);
    if (plain) {
      f.u = perpendicular(w.normal.normalized());
      f.v = w.normal.normalized().cross(f.u);
    } else {
      f.u = e1.normalized();
      f.v = e3.normalized();
    }
    // A rectangle starts as the quad; a plain plane's starts empty (only grains extend it).
    f.u_min = f.v_min = std::numeric_limits<double>::infinity();
    f.u_max = f.v_max = -std::numeric_limits<double>::infinity();
    if (!plain)
      for (const Vec3& c : w.corners) f.cover(c - f.origin, 0.0);
    floors_.push_back(f);
  }
}

void VtkWriter::grow_floors(const World& world) {
  const Bodies& bodies = world.bodies;
  const ShapeTable& shapes = world.shapes;
  for (std::size_t k = 0; k < walls_.size(); ++k) {
    if (!walls_[k].floor) continue;
    Floor& f = floors_[k];
    for (int i = 0; i < bodies.count(); ++i) {
      // Grains are the bodies with surface nodes (walls have none).
      if (!bodies.is_active(i) || !shape_kind(shapes.type[bodies.shape[i]]).nodes) continue;
      const double r = shapes.bounding_radius[bodies.shape[i]];
      const Vec3 d = bodies.position[i] - f.origin;
      if (!std::isfinite(r) || !d.allFinite()) continue;
      f.cover(d, r);
    }
  }
}

std::vector<WallQuad> VtkWriter::floor_quads() const {
  std::vector<WallQuad> out = walls_;
  for (std::size_t k = 0; k < out.size(); ++k) {
    if (!out[k].floor) continue;
    Floor f = floors_[k];
    if (!(f.u_min <= f.u_max && f.v_min <= f.v_max)) f.u_min = f.u_max = f.v_min = f.v_max = 0.0;
    out[k].corners = {
        f.origin + f.u_min * f.u + f.v_min * f.v, f.origin + f.u_max * f.u + f.v_min * f.v,
        f.origin + f.u_max * f.u + f.v_max * f.v, f.origin + f.u_min * f.u + f.v_max * f.v};
  }
  return out;
}

template <class Build>
std::string VtkWriter::static_file(VtkBlock b, const std::vector<int>& items, long step,
                                   Build build) {
  if (items.empty()) return {};
  std::vector<StaticVersion>& versions = versions_[index(b)];
  if (!versions.empty() && versions.back().items == items) return versions.back().file;
  versions.push_back({items, block_file(b, step)});
  write_vtu(directory_ + "/frames/" + versions.back().file, build(items), encoding_);
  return versions.back().file;
}

void VtkWriter::write_frame(const World& world) {
  const Bodies& bodies = world.bodies;
  const ShapeTable& shapes = world.shapes;
  // Each body's pieces come from its shape type (io/shape_kinds.cpp), each piece carrying the id
  // of its body.
  DrawPieces pieces;
  for (int i = 0; i < bodies.count(); ++i) {
    if (!bodies.is_active(i)) continue;
    const int s = bodies.shape[i];
    if (const auto draw = shape_kind(shapes.type[s]).draw)
      draw(shapes, s, i, bodies.position[i], bodies.orientation[i].toRotationMatrix(), pieces);
  }
  grow_floors(world);
  const long step = world.step_count();
  std::array<std::string, kVtkBlockCount> files;
  // Grain blocks: a file per frame when the frame has something of the kind.
  auto grains = [&](VtkBlock b, bool empty, auto build) {
    if (empty) return;
    files[index(b)] = block_file(b, step);
    write_vtu(directory_ + "/frames/" + files[index(b)], build(), encoding_);
  };
  grains(VtkBlock::Spheres, pieces.spheres.empty(),
         [&] { return sphere_piece(pieces.spheres, bodies); });
  grains(VtkBlock::Boxes, pieces.boxes.empty(),
         [&] { return box_piece(pieces.boxes, bodies, shapes); });
  grains(VtkBlock::Polyhedra, pieces.polyhedra.empty(),
         [&] { return hull_piece(pieces.polyhedra, bodies); });
  grains(VtkBlock::Compounds, pieces.compounds.empty(),
         [&] { return hull_piece(pieces.compounds, bodies); });
  grains(VtkBlock::CompoundSpheres, pieces.compound_spheres.empty(),
         [&] { return sphere_piece(pieces.compound_spheres, bodies); });
  grains(VtkBlock::LevelSets, pieces.surfaces.empty(),
         [&] { return surface_piece(pieces.surfaces, bodies); });
  grains(VtkBlock::Nets, world.nets.empty(), [&] { return net_piece(world.nets, bodies); });
  // Static blocks: a new file only when what they draw changes.
  std::vector<int> live_walls;
  for (std::size_t k = 0; k < walls_.size(); ++k)
    if (bodies.is_active(walls_[k].body)) live_walls.push_back(static_cast<int>(k));
  files[index(VtkBlock::Walls)] =
      static_file(VtkBlock::Walls, live_walls, step,
                  [&](const std::vector<int>& which) { return wall_piece(floor_quads(), which); });
  files[index(VtkBlock::Meshes)] =
      static_file(VtkBlock::Meshes, pieces.meshes, step,
                  [&](const std::vector<int>& which) { return mesh_piece(which, bodies, shapes); });
  files[index(VtkBlock::Terrain)] = static_file(
      VtkBlock::Terrain, pieces.terrains, step,
      [&](const std::vector<int>& which) { return terrain_piece(which, bodies, shapes); });

  std::vector<VtmBlock> blocks;
  for (int b = 0; b < kVtkBlockCount; ++b) blocks.push_back({std::string(kVtkBlocks[b]), files[b]});
  const std::string vtm = fmt::format("frames/frame_{:06d}.vtm", step);
  write_bytes(directory_ + "/" + vtm, encode_vtm(blocks));
  entries_.push_back({world.time(), vtm});
  ++frames_;
}

void VtkWriter::write_pvd() {
  // The floors now cover every grain of every frame: every frame's walls are redrawn with them.
  const std::vector<WallQuad> quads = floor_quads();
  for (const StaticVersion& v : versions_[index(VtkBlock::Walls)])
    write_vtu(directory_ + "/frames/" + v.file, wall_piece(quads, v.items), encoding_);
  write_bytes(directory_ + "/particles.pvd", encode_pvd(entries_));
}

void VtkWriter::save(ByteWriter& out) const {
  out.put(static_cast<std::uint64_t>(floors_.size()));
  for (const Floor& f : floors_)
    out.put(f.u_min), out.put(f.u_max), out.put(f.v_min), out.put(f.v_max);
  for (const auto& versions : versions_) {
    out.put(static_cast<std::uint64_t>(versions.size()));
    for (const StaticVersion& v : versions) out.put(v.items), out.put(v.file);
  }
  out.put(static_cast<std::uint64_t>(entries_.size()));
  for (const PvdEntry& e : entries_) out.put(e.time), out.put(e.file);
  out.put(frames_);
}

void VtkWriter::load(ByteReader& in) {
  if (in.count(32) != floors_.size())
    throw std::invalid_argument("frames: another number of walls than the scenario's");
  for (Floor& f : floors_) in.get(f.u_min), in.get(f.u_max), in.get(f.v_min), in.get(f.v_max);
  for (auto& versions : versions_) {
    versions.resize(in.count(16));
    for (StaticVersion& v : versions) in.get(v.items, sizeof(int)), in.get(v.file);
  }
  entries_.resize(in.count(16));
  for (PvdEntry& e : entries_) in.get(e.time), in.get(e.file);
  in.get(frames_);
}

}  // namespace etdem
