#include "etdem/shapes/shape_kind.hpp"

#include <limits>

#include "etdem/shapes/shape.hpp"

namespace etdem {
namespace {

// ---- mass properties and thinnest extent -------------------------------------------------

MassProperties sphere_mass(const ShapeTable& t, int s, double density) {
  return sphere_mass_properties(t.sphere(s).radius, density);
}
MassProperties box_mass(const ShapeTable& t, int s, double density) {
  return box_mass_properties(t.box(s).half_extents, density);
}
MassProperties polyhedron_mass(const ShapeTable& t, int s, double density) {
  return t.polyhedron(s).mass_properties(density);
}
MassProperties compound_mass(const ShapeTable& t, int s, double density) {
  const Compound& c = t.compound(s);
  return {c.volume, density * c.volume, density * c.unit_inertia};
}
MassProperties level_set_mass(const ShapeTable& t, int s, double density) {
  const LevelSet& l = t.level_set(s);
  return {l.volume, density * l.volume, density * l.unit_inertia};
}

double sphere_thickness(const ShapeTable& t, int s) {
  return 2.0 * t.sphere(s).radius;
}
double box_thickness(const ShapeTable& t, int s) {
  return 2.0 * t.box(s).half_extents.minCoeff();
}
double polyhedron_thickness(const ShapeTable& t, int s) {
  return t.polyhedron(s).min_width;
}
double compound_thickness(const ShapeTable& t, int s) {
  return t.compound(s).min_thickness;
}
double level_set_thickness(const ShapeTable& t, int s) {
  return t.level_set(s).min_thickness;
}

// ---- walls tested apart, balls -----------------------------------------------------------

/// A plane: the distance of the centre above it.
bool plane_may_reach(const ShapeTable&, int, const Vec3& position, const Quat& orientation,
                     const Vec3& centre, double reach) {
  return (centre - position).dot(orientation * Vec3::UnitZ()) < reach;
}
/// A terrain: the box of its surface.
bool terrain_may_reach(const ShapeTable& t, int s, const Vec3& position, const Quat& orientation,
                       const Vec3& centre, double reach) {
  return t.terrain(s).may_touch(orientation.conjugate() * (centre - position), reach);
}

double sphere_radius(const ShapeTable& t, int s) {
  return t.sphere(s).radius;
}

// ---- input frames, half extents ----------------------------------------------------------

Quat identity_frame(const ShapeTable&, int) {
  return Quat::Identity();
}
Quat polyhedron_frame(const ShapeTable& t, int s) {
  return t.polyhedron(s).input_rotation;
}
Quat compound_frame(const ShapeTable& t, int s) {
  return t.compound(s).input_rotation;
}
Quat level_set_frame(const ShapeTable& t, int s) {
  return t.level_set(s).input_rotation;
}

Vec3 box_half_extents(const ShapeTable& t, int s) {
  return t.box(s).half_extents;
}

// ---- surface nodes -----------------------------------------------------------------------

void sphere_nodes(const ShapeTable& t, int s, const Vec3& at, const Mat3&, SurfaceNodes& out) {
  out.balls.emplace_back(at, t.sphere(s).radius);
}
void hull_nodes(const ShapeTable& t, int s, const Vec3& at, const Mat3& turn, SurfaceNodes& out) {
  for (const Vec3& v : t.hull(s).vertices) out.nodes.push_back(at + turn * v);
}
void compound_nodes(const ShapeTable& t, int s, const Vec3& at, const Mat3& turn,
                    SurfaceNodes& out) {
  for (const CompoundPart& p : t.compound(s).parts)
    shape_kind(t.type[p.shape]).nodes(t, p.shape, at + turn * p.position, turn * p.rotation, out);
}
void level_set_nodes(const ShapeTable& t, int s, const Vec3& at, const Mat3& turn,
                     SurfaceNodes& out) {
  for (const Vec3& v : t.level_set(s).nodes) out.nodes.push_back(at + turn * v);
}

// ---- drawing -----------------------------------------------------------------------------

void draw_sphere(const ShapeTable& t, int s, const Vec3& x, const Mat3&, ShapeDrawing& out) {
  out.balls.push_back({x, t.sphere(s).radius});
}
void draw_box(const ShapeTable& t, int s, const Vec3& x, const Mat3& r, ShapeDrawing& out) {
  out.boxes.push_back({x, r, t.box(s).half_extents});
}
void draw_polyhedron(const ShapeTable& t, int s, const Vec3& x, const Mat3& r, ShapeDrawing& out) {
  out.hulls.push_back({&t.polyhedron(s), x, r});
}
/// A compound's sphere parts as balls, its box and polyhedron parts as hulls.
void draw_compound(const ShapeTable& t, int s, const Vec3& x, const Mat3& r, ShapeDrawing& out) {
  for (const CompoundPart& p : t.compound(s).parts) {
    const Vec3 at = x + r * p.position;
    if (t.type[p.shape] == ShapeType::Sphere)
      out.balls.push_back({at, t.sphere(p.shape).radius});
    else
      out.hulls.push_back({&t.hull(p.shape), at, r * p.rotation});
  }
}
/// A level-set grain's zero contour.
void draw_level_set(const ShapeTable& t, int s, const Vec3& x, const Mat3& r, ShapeDrawing& out) {
  out.surfaces.push_back({&t.level_set(s).surface, x, r});
}

}  // namespace

// The records: one per shape type, in ShapeType order; a field left out is null (false).
extern constexpr std::array<ShapeKind, kShapeTypeCount> kShapeKinds = {{
    {.type = ShapeType::Sphere,
     .name = "sphere",
     .mass_properties = sphere_mass,
     .min_thickness = sphere_thickness,
     .ball_radius = sphere_radius,
     .part = true,
     .input_rotation = identity_frame,
     .nodes = sphere_nodes,
     .draw = draw_sphere},
    {.type = ShapeType::Plane,
     .name = "plane",
     .may_reach = plane_may_reach,
     .flat = true,
     .input_rotation = identity_frame},
    {.type = ShapeType::Box,
     .name = "box",
     .mass_properties = box_mass,
     .min_thickness = box_thickness,
     .part = true,
     .input_rotation = identity_frame,
     .half_extents = box_half_extents,
     .nodes = hull_nodes,
     .draw = draw_box},
    {.type = ShapeType::Polyhedron,
     .name = "polyhedron",
     .mass_properties = polyhedron_mass,
     .min_thickness = polyhedron_thickness,
     .part = true,
     .input_rotation = polyhedron_frame,
     .nodes = hull_nodes,
     .draw = draw_polyhedron},
    {.type = ShapeType::Compound,
     .name = "compound",
     .mass_properties = compound_mass,
     .min_thickness = compound_thickness,
     .input_rotation = compound_frame,
     .nodes = compound_nodes,
     .draw = draw_compound},
    {.type = ShapeType::Mesh, .name = "mesh", .input_rotation = identity_frame},
    {.type = ShapeType::LevelSet,
     .name = "levelset",
     .mass_properties = level_set_mass,
     .min_thickness = level_set_thickness,
     .node_lists = true,
     .input_rotation = level_set_frame,
     .nodes = level_set_nodes,
     .draw = draw_level_set},
    {.type = ShapeType::Terrain,
     .name = "terrain",
     .may_reach = terrain_may_reach,
     .input_rotation = identity_frame},
}};

static_assert(
    [] {
      for (int t = 0; t < kShapeTypeCount; ++t)
        if (kShapeKinds[static_cast<std::size_t>(t)].type != static_cast<ShapeType>(t))
          return false;
      return true;
    }(),
    "one record per shape type, in ShapeType order");

const char* shape_type_name(ShapeType t) {
  const int k = static_cast<int>(t);
  return k >= 0 && k < kShapeTypeCount ? kShapeKinds[static_cast<std::size_t>(k)].name : "unknown";
}

}  // namespace etdem
