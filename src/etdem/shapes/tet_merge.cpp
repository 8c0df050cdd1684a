#include "etdem/shapes/tet_merge.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <stdexcept>
#include <string>

#include <fmt/format.h>

#include "etdem/shapes/polyhedron.hpp"
#include "etdem/shapes/shape.hpp"

namespace etdem {

double tet_volume(const TetMesh& m, int t) {
  const auto& k = m.tets[t];
  const Vec3& a = m.nodes[k[0]];
  return std::abs((m.nodes[k[1]] - a).dot((m.nodes[k[2]] - a).cross(m.nodes[k[3]] - a))) / 6.0;
}

void check_tet_mesh(const TetMesh& m) {
  if (m.tets.empty()) throw std::invalid_argument("the mesh has no tetrahedra");
  for (std::size_t i = 0; i < m.nodes.size(); ++i)
    if (!m.nodes[i].allFinite())
      throw std::invalid_argument(fmt::format("node {} has a non-finite coordinate", i));
  const int n = static_cast<int>(m.nodes.size());
  for (std::size_t t = 0; t < m.tets.size(); ++t) {
    const auto& k = m.tets[t];
    for (int a = 0; a < 4; ++a) {
      if (k[a] < 0 || k[a] >= n)
        throw std::invalid_argument(
            fmt::format("tetrahedron {}: node index {} out of range [0, {})", t, k[a], n));
      for (int b = 0; b < a; ++b)
        if (k[a] == k[b])
          throw std::invalid_argument(
              fmt::format("tetrahedron {}: node {} appears twice", t, k[a]));
    }
    double edge = 0.0;
    for (int a = 0; a < 4; ++a)
      for (int b = 0; b < a; ++b) edge = std::max(edge, (m.nodes[k[a]] - m.nodes[k[b]]).norm());
    if (!(tet_volume(m, static_cast<int>(t)) > 1e-9 * edge * edge * edge))
      throw std::invalid_argument(
          fmt::format("tetrahedron {} is flat (volume {:.3g} for a longest edge of {:.3g})", t,
                      tet_volume(m, static_cast<int>(t)), edge));
  }
}

std::vector<Vec3> part_points(const TetMesh& m, std::span<const int> group) {
  std::vector<int> ids;
  for (int t : group) ids.insert(ids.end(), m.tets[t].begin(), m.tets[t].end());
  std::sort(ids.begin(), ids.end());
  ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
  std::vector<Vec3> pts;
  pts.reserve(ids.size());
  for (int i : ids) pts.push_back(m.nodes[i]);
  return pts;
}

std::vector<std::vector<int>> convex_parts(const TetMesh& m, bool merge, double tolerance) {
  check_tet_mesh(m);
  const int nt = static_cast<int>(m.tets.size());
  std::vector<std::vector<int>> groups;
  if (!merge) {
    for (int t = 0; t < nt; ++t) groups.push_back({t});
    return groups;
  }
  // Face adjacency: a face (sorted node triple) of two tetrahedra joins them.
  std::map<std::array<int, 3>, std::vector<int>> faces;
  for (int t = 0; t < nt; ++t)
    for (int skip = 0; skip < 4; ++skip) {
      std::array<int, 3> f{};
      for (int a = 0, j = 0; a < 4; ++a)
        if (a != skip) f[j++] = m.tets[t][a];
      std::sort(f.begin(), f.end());
      faces[f].push_back(t);
    }
  std::vector<std::vector<int>> adjacent(nt);
  for (const auto& [f, ts] : faces)
    for (int a : ts)
      for (int b : ts)
        if (a != b) adjacent[a].push_back(b);
  std::vector<char> used(nt, 0);
  for (int seed = 0; seed < nt; ++seed) {
    if (used[seed]) continue;
    std::vector<int> group{seed};
    used[seed] = 1;
    double volume = tet_volume(m, seed);
    // Candidates: unused neighbours of the group. A refused candidate stays in the list and is
    // tried again after the group grows; the loop ends when a full pass accepts nothing, so it
    // makes at most (group size + 1) passes over at most 4 * group size candidates.
    std::vector<int> candidates = adjacent[seed];
    for (bool grew = true; grew;) {
      grew = false;
      for (std::size_t c = 0; c < candidates.size(); ++c) {
        const int u = candidates[c];
        if (used[u]) continue;
        std::vector<int> trial = group;
        trial.push_back(u);
        const double together = volume + tet_volume(m, u);
        const std::vector<Vec3> pts = part_points(m, trial);
        double hull = 0.0;
        try {
          hull = ConvexPolyhedron::from_points(pts).volume;
        } catch (const std::invalid_argument&) {
          continue;  // not a solid hull (cannot happen for valid tetrahedra): do not merge
        }
        if (std::abs(hull - together) > tolerance * together) continue;
        group.push_back(u);
        used[u] = 1;
        volume = together;
        for (int w : adjacent[u])
          if (!used[w]) candidates.push_back(w);
        grew = true;
      }
      candidates.erase(
          std::remove_if(candidates.begin(), candidates.end(), [&](int u) { return used[u] != 0; }),
          candidates.end());
      std::sort(candidates.begin(), candidates.end());
      candidates.erase(std::unique(candidates.begin(), candidates.end()), candidates.end());
    }
    groups.push_back(std::move(group));
  }
  // Second pass: neighbouring parts whose union is convex are joined (the first pass grows one
  // part at a time, so its later parts can be pieces of a convex block it had already cut).
  // Each join removes a part, so at most (parts - 1) joins; a pass without one ends the loop.
  std::vector<int> part_of(nt);
  std::vector<double> part_volume;
  for (std::size_t g = 0; g < groups.size(); ++g) {
    double v = 0.0;
    for (int t : groups[g]) {
      part_of[t] = static_cast<int>(g);
      v += tet_volume(m, t);
    }
    part_volume.push_back(v);
  }
  for (bool joined = true; joined;) {
    joined = false;
    for (std::size_t a = 0; a < groups.size() && !joined; ++a) {
      if (groups[a].empty()) continue;
      std::vector<int> next;
      for (int t : groups[a])
        for (int u : adjacent[t])
          if (part_of[u] != static_cast<int>(a)) next.push_back(part_of[u]);
      std::sort(next.begin(), next.end());
      next.erase(std::unique(next.begin(), next.end()), next.end());
      for (int b : next) {
        std::vector<int> both = groups[a];
        both.insert(both.end(), groups[b].begin(), groups[b].end());
        const double together = part_volume[a] + part_volume[b];
        double hull = 0.0;
        try {
          hull = ConvexPolyhedron::from_points(part_points(m, both)).volume;
        } catch (const std::invalid_argument&) {
          continue;
        }
        if (std::abs(hull - together) > tolerance * together) continue;
        for (int t : groups[b]) part_of[t] = static_cast<int>(a);
        groups[a] = std::move(both);
        groups[b].clear();
        part_volume[a] = together;
        joined = true;
        break;
      }
    }
  }
  groups.erase(std::remove_if(groups.begin(), groups.end(),
                              [](const std::vector<int>& g) { return g.empty(); }),
               groups.end());
  return groups;
}

std::vector<CompoundPart> add_part_hulls(ShapeTable& shapes, const std::string& prefix,
                                         const TetMesh& mesh,
                                         const std::vector<std::vector<int>>& groups) {
  std::vector<CompoundPart> parts;
  for (std::size_t g = 0; g < groups.size(); ++g) {
    ConvexPolyhedron hull;
    try {
      hull = ConvexPolyhedron::from_points(part_points(mesh, groups[g]));
    } catch (const std::invalid_argument& e) {
      throw std::invalid_argument(fmt::format("part {}: {}", g, e.what()));
    }
    CompoundPart part;
    part.position = hull.input_centre;       // the hull is re-centred at its centre of mass
    part.orientation = hull.input_rotation;  // and turned to its principal axes
    part.shape = shapes.add_polyhedron(fmt::format("{}.part{}", prefix, g), std::move(hull));
    parts.push_back(part);
  }
  return parts;
}

}  // namespace etdem
