// Contact graphs for the distributed-island tests (threads as ranks, and MPI ranks): a global
// graph, its serial answer and each rank's view of it.
#pragma once

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>
#include <random>
#include <set>
#include <vector>

#include "etdem/distributed/island_labels.hpp"

namespace etdem::distributed::test_graphs {

struct GlobalGraph {
  int bodies = 0;
  std::vector<int> owner;                  // per body
  std::vector<std::pair<int, int>> edges;  // body ids, both dynamic
  std::vector<char> wall;                  // touches a static body (a wall)
  std::vector<std::set<int>> extra_ghost;  // per rank: halo bodies without contacts there
};

/// The serial answer: islands by union-find, each labelled by its smallest body.
inline std::vector<IslandLabel> serial_labels(const GlobalGraph& g) {
  std::vector<int> parent(g.bodies);
  std::iota(parent.begin(), parent.end(), 0);
  auto find = [&](int x) {
    while (parent[x] != x) x = parent[x] = parent[parent[x]];
    return x;
  };
  for (auto [a, b] : g.edges) {
    const int ra = find(a), rb = find(b);
    parent[std::max(ra, rb)] = std::min(ra, rb);
  }
  std::vector<char> touched = g.wall;
  for (auto [a, b] : g.edges) touched[a] = touched[b] = 1;
  std::vector<IslandLabel> out(g.bodies);
  for (int i = 0; i < g.bodies; ++i)
    if (touched[i]) out[i] = {find(i), g.owner[find(i)]};
  return out;
}

/// Rank r's view: its own bodies, ghosts of the far ends of the contacts it detects (a contact
/// is detected by the owner of its smaller body) and some halo ghosts without contacts.
inline LocalContactGraph local_view(const GlobalGraph& g, int r) {
  LocalContactGraph local;
  std::map<int, int> index;
  auto add = [&](int body) {
    auto [it, inserted] = index.emplace(body, static_cast<int>(local.gid.size()));
    if (inserted) {
      local.gid.push_back(body);
      local.owner.push_back(g.owner[body]);
      local.touched.push_back(0);
    }
    return it->second;
  };
  for (int i = 0; i < g.bodies; ++i)
    if (g.owner[i] == r) {
      // Touched here if it touches a wall or a contact of it is detected here (below); a body
      // whose contacts are all detected elsewhere is untouched on its owner.
      local.touched[add(i)] = g.wall[i];
    }
  for (auto [a, b] : g.edges) {
    if (g.owner[std::min(a, b)] != r) continue;
    const int la = add(a), lb = add(b);
    local.touched[la] = local.touched[lb] = 1;
    local.edges.emplace_back(la, lb);
  }
  for (int body : g.extra_ghost[r]) add(body);
  return local;
}

/// A random geometric graph in the unit square, owners by vertical slabs.
inline GlobalGraph random_graph(int bodies, double reach, int ranks, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> u(0, 1);
  GlobalGraph g;
  g.bodies = bodies;
  std::vector<double> x(bodies), y(bodies);
  for (int i = 0; i < bodies; ++i) x[i] = u(rng), y[i] = u(rng);
  g.owner.resize(bodies);
  for (int i = 0; i < bodies; ++i) g.owner[i] = std::min(ranks - 1, static_cast<int>(x[i] * ranks));
  for (int i = 0; i < bodies; ++i)
    for (int j = i + 1; j < bodies; ++j)
      if (std::hypot(x[i] - x[j], y[i] - y[j]) < reach) g.edges.emplace_back(i, j);
  g.wall.assign(bodies, 0);
  for (int i = 0; i < bodies; ++i) g.wall[i] = y[i] < 0.05;  // on the floor
  g.extra_ghost.resize(ranks);
  for (int i = 0; i < bodies; ++i)  // halo ghosts near slab boundaries, without contacts there
    for (int r = 0; r < ranks; ++r)
      if (r != g.owner[i] && std::abs(x[i] * ranks - (r + 0.5)) < 0.5 + reach * ranks)
        g.extra_ghost[r].insert(i);
  return g;
}

}  // namespace etdem::distributed::test_graphs
