// Narrow-phase dispatch: a shape-type x shape-type table of pure functions. Each function
// fills a Manifold with every point closer than `margin` and touches no world state, so every
// pair can be tested and benchmarked alone. Registering (A, B) fills (B, A) by swapping the
// arguments and flipping the normal. A missing pair fails loudly.
#pragma once

#include "etdem/collision/contact.hpp"
#include "etdem/collision/near_node_list.hpp"
#include "etdem/shapes/shape.hpp"

namespace etdem {

using CollideFn = void (*)(const ShapeTable& shapes, int shape_a, const Pose& pose_a, int shape_b,
                           const Pose& pose_b, double margin, Manifold& out);

/// Contact points between two shapes: normal from B to A, points with gap < margin.
/// Throws std::logic_error for a pair without a narrow-phase function.
void collide(const ShapeTable& shapes, int shape_a, const Pose& pose_a, int shape_b,
             const Pose& pose_b, double margin, Manifold& out);

/// True when the table has a function for this pair of types.
bool has_collider(ShapeType a, ShapeType b);

// The pair functions (normal from the second to the first argument).
void collide_sphere_sphere(const ShapeTable&, int, const Pose&, int, const Pose&, double,
                           Manifold&);
void collide_sphere_plane(const ShapeTable&, int, const Pose&, int, const Pose&, double, Manifold&);
void collide_box_plane(const ShapeTable&, int, const Pose&, int, const Pose&, double, Manifold&);
void collide_sphere_box(const ShapeTable&, int, const Pose&, int, const Pose&, double, Manifold&);
void collide_box_box(const ShapeTable&, int, const Pose&, int, const Pose&, double, Manifold&);
void collide_sphere_polyhedron(const ShapeTable&, int, const Pose&, int, const Pose&, double,
                               Manifold&);
void collide_polyhedron_plane(const ShapeTable&, int, const Pose&, int, const Pose&, double,
                              Manifold&);
void collide_box_polyhedron(const ShapeTable&, int, const Pose&, int, const Pose&, double,
                            Manifold&);
void collide_polyhedron_polyhedron(const ShapeTable&, int, const Pose&, int, const Pose&, double,
                                   Manifold&);
/// A compound (first) against any shape, a compound included: loops over the
/// compound's parts (collide_compound.cpp). Points carry their own normals (Manifold::mixed).
void collide_compound_any(const ShapeTable&, int, const Pose&, int, const Pose&, double, Manifold&);
// Against a static triangle mesh (always B).
void collide_sphere_mesh(const ShapeTable&, int, const Pose&, int, const Pose&, double, Manifold&);
void collide_box_mesh(const ShapeTable&, int, const Pose&, int, const Pose&, double, Manifold&);
void collide_polyhedron_mesh(const ShapeTable&, int, const Pose&, int, const Pose&, double,
                             Manifold&);

// Level-set grains (collide_level_set.cpp): node-to-surface.
void collide_level_set_plane(const ShapeTable&, int, const Pose&, int, const Pose&, double,
                             Manifold&);
void collide_sphere_level_set(const ShapeTable&, int, const Pose&, int, const Pose&, double,
                              Manifold&);
/// A level set against a box or a polyhedron (through the shape table's hull).
void collide_level_set_convex(const ShapeTable&, int, const Pose&, int, const Pose&, double,
                              Manifold&);
void collide_level_set_level_set(const ShapeTable&, int, const Pose&, int, const Pose&, double,
                                 Manifold&);
void collide_level_set_mesh(const ShapeTable&, int, const Pose&, int, const Pose&, double,
                            Manifold&);
/// collide_level_set_level_set through the pair's near-node lists (near_node_list.hpp), which it
/// keeps up to date: the same manifold, bit for bit, with fewer grid lookups while the two grains
/// move little against each other. `skin` [m] widens a list beyond the margin.
void collide_level_set_level_set_listed(const ShapeTable& shapes, int sa, const Pose& pa, int sb,
                                        const Pose& pb, double margin, double skin,
                                        LevelSetPairLists& lists, NearNodeCounts& counts,
                                        Manifold& out);

// The terrain (collide_terrain.cpp): always B; the grain's points in its signed distance.
void collide_sphere_terrain(const ShapeTable&, int, const Pose&, int, const Pose&, double,
                            Manifold&);
void collide_level_set_terrain(const ShapeTable&, int, const Pose&, int, const Pose&, double,
                               Manifold&);
/// A box or a polyhedron (through the shape table's hull) against the terrain.
void collide_convex_terrain(const ShapeTable&, int, const Pose&, int, const Pose&, double,
                            Manifold&);

}  // namespace etdem
