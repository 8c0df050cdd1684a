#include "etdem/distributed/decomposition.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

namespace etdem::distributed {

double DomainBox::distance(const Vec3& x) const {
  double d2 = 0;
  for (int k = 0; k < 3; ++k) {
    const double below = lo[k] - x[k], above = x[k] - hi[k];
    const double d = std::max({below, above, 0.0});
    d2 += d * d;
  }
  return std::sqrt(d2);
}

namespace {
constexpr double kInf = std::numeric_limits<double>::infinity();
}

Decomposition::Decomposition() {
  nodes_.push_back({-1, 0, -1, -1, 0, {Vec3::Constant(-kInf), Vec3::Constant(kInf)}});
  boxes_.push_back({Vec3::Constant(-kInf), Vec3::Constant(kInf)});
}

Decomposition Decomposition::bisect(std::span<const Vec3> points, std::span<const double> weights,
                                    int ranks) {
  if (ranks < 1)
    throw std::invalid_argument("bisect: ranks must be >= 1, not " + std::to_string(ranks));
  if (!weights.empty() && weights.size() != points.size())
    throw std::invalid_argument("bisect: " + std::to_string(weights.size()) + " weights for " +
                                std::to_string(points.size()) + " points");
  for (std::size_t i = 0; i < points.size(); ++i) {
    if (!points[i].allFinite())
      throw std::invalid_argument("bisect: point " + std::to_string(i) + " is not finite");
    if (!weights.empty() && !(weights[i] >= 0 && std::isfinite(weights[i])))
      throw std::invalid_argument("bisect: weight " + std::to_string(i) + " is not >= 0");
  }
  Decomposition d;
  d.nodes_.clear();
  d.boxes_.assign(ranks, {});
  std::vector<int> ids(points.size());
  for (std::size_t i = 0; i < ids.size(); ++i) ids[i] = static_cast<int>(i);
  d.build(points, weights, ids, 0, static_cast<int>(ids.size()), 0, ranks,
          {Vec3::Constant(-kInf), Vec3::Constant(kInf)});
  return d;
}

int Decomposition::build(std::span<const Vec3> points, std::span<const double> weights,
                         std::vector<int>& ids, int begin, int end, int first_rank, int ranks,
                         DomainBox box) {
  const int self = static_cast<int>(nodes_.size());
  nodes_.push_back({});
  nodes_[self].box = box;
  if (ranks == 1) {
    nodes_[self].rank = first_rank;
    boxes_[first_rank] = box;
    return self;
  }
  // The longest side of the points' bounding box (of the box itself when it holds no point).
  Vec3 lo = Vec3::Constant(kInf), hi = Vec3::Constant(-kInf);
  for (int i = begin; i < end; ++i) {
    lo = lo.cwiseMin(points[ids[i]]);
    hi = hi.cwiseMax(points[ids[i]]);
  }
  int axis = 0;
  if (begin < end) {
    const Vec3 extent = hi - lo;
    for (int k = 1; k < 3; ++k)
      if (extent[k] > extent[axis]) axis = k;
  }
  const int left_ranks = ranks / 2;
  // Sort by the coordinate (ties by index: the input order) and cut where the weight on the
  // left comes closest to its share; the cut lies halfway between the two points it separates.
  std::sort(ids.begin() + begin, ids.begin() + end, [&](int a, int b) {
    const double xa = points[a][axis], xb = points[b][axis];
    return xa < xb || (xa == xb && a < b);
  });
  auto weight = [&](int id) { return weights.empty() ? 1.0 : weights[id]; };
  double total = 0;
  for (int i = begin; i < end; ++i) total += weight(ids[i]);
  const double target = total * left_ranks / ranks;
  int split = begin;  // points [begin, split) go left
  double left = 0, best = std::abs(target);
  for (int i = begin; i < end; ++i) {
    left += weight(ids[i]);
    // A cut must fall between distinct coordinates, or equal points would sit on both sides.
    if (i + 1 < end && points[ids[i + 1]][axis] == points[ids[i]][axis]) continue;
    if (std::abs(left - target) < best) best = std::abs(left - target), split = i + 1;
  }
  double cut;
  if (begin == end) {
    cut = 0.0;  // no point: any cut will do
  } else if (split == begin) {
    cut = points[ids[begin]][axis];  // everything right of (or on) the first point
  } else if (split == end) {
    cut = std::nextafter(points[ids[end - 1]][axis], kInf);
  } else {
    cut = 0.5 * (points[ids[split - 1]][axis] + points[ids[split]][axis]);
    if (!(cut > points[ids[split - 1]][axis])) cut = points[ids[split]][axis];  // adjacent doubles
  }
  DomainBox lbox = box, rbox = box;
  lbox.hi[axis] = cut;
  rbox.lo[axis] = cut;
  nodes_[self].axis = axis;
  nodes_[self].cut = cut;
  const int l = build(points, weights, ids, begin, split, first_rank, left_ranks, lbox);
  const int r =
      build(points, weights, ids, split, end, first_rank + left_ranks, ranks - left_ranks, rbox);
  nodes_[self].left = l;
  nodes_[self].right = r;
  return self;
}

int Decomposition::owner_of(const Vec3& x) const {
  int n = 0;
  for (std::size_t depth = 0; depth <= nodes_.size(); ++depth) {  // a path visits each node once
    const Node& node = nodes_[n];
    if (node.axis < 0) return node.rank;
    n = x[node.axis] < node.cut ? node.left : node.right;
  }
  throw std::logic_error("Decomposition::owner_of: the tree has a cycle");
}

void Decomposition::ghost_ranks(const Vec3& x, double halo, int owner,
                                std::vector<int>& out) const {
  out.clear();
  // A point deeper inside the owner's box than the halo on every side is within the halo of no
  // other box (the boxes tile space): most grains of a rank, found without the walk.
  if (owner >= 0 && owner < ranks()) {
    const DomainBox& b = boxes_[static_cast<std::size_t>(owner)];
    if (((x - b.lo).array() > halo).all() && ((b.hi - x).array() > halo).all()) return;
  }
  collect_ghosts(0, x, halo, owner, out);
}

void Decomposition::collect_ghosts(int node, const Vec3& x, double halo, int owner,
                                   std::vector<int>& out) const {
  // Left before right: leaves come in ascending rank order (each node's ranks are a contiguous
  // range, its left child's first). The depth is that of the tree, about log2 ranks.
  const Node& n = nodes_[node];
  if (n.box.distance(x) > halo) return;
  if (n.axis < 0) {
    if (n.rank != owner) out.push_back(n.rank);
    return;
  }
  collect_ghosts(n.left, x, halo, owner, out);
  collect_ghosts(n.right, x, halo, owner, out);
}

double draw_halo(double need, double last, double step) {
  if (!(step > 0.0)) return need;
  if (last >= need && last - need <= 2.0 * step) return last;
  return std::ceil(need / step) * step;
}

Rebalance rebalance_rule(const BalanceFigures& f, int ranks, double work_limit, double busy_limit) {
  if (ranks < 2 || !(f.total_work > 0.0)) return Rebalance::kNone;
  // (Every rank's busy time is positive where it worked: a grain's weight is never zero.)
  if (f.shared && busy_limit > 0.0 && f.least_busy > 0.0)
    return f.most_busy > busy_limit * f.mean_busy ? Rebalance::kByTime : Rebalance::kNone;
  const double mean = f.total_work / ranks;
  return f.most_work > work_limit * mean && f.most_work > std::ceil(mean) ? Rebalance::kByWork
                                                                          : Rebalance::kNone;
}

}  // namespace etdem::distributed
