// Which rank owns which part of space: recursive coordinate bisection of the grains' centres,
// weighted (e.g. by contacts per grain), into as many boxes as ranks; the boxes tile all of space
// (the outer faces lie at infinity, so a grain never leaves the domain). A grain at x is owned by
// the box holding x and held as a ghost by every other rank whose box lies within the halo of x.
// With halo = the largest bounding diameter plus what a grain moves in a step, the owner of either
// grain of any pair that can touch holds the other one.
#pragma once

#include <span>
#include <vector>

#include "etdem/core/math.hpp"

namespace etdem::distributed {

struct DomainBox {
  Vec3 lo = Vec3::Zero(),
       hi = Vec3::Zero();  // half-open [lo, hi) per axis; +-infinity on the domain's outer faces
  /// Distance from x to the box (0 inside).
  double distance(const Vec3& x) const;
};

class Decomposition {
 public:
  /// One box, everything on rank 0.
  Decomposition();

  /// Splits `points` (weights >= 0, same length; all 1 if `weights` is empty) into `ranks`
  /// boxes: each cut is across the longest side of the points' bounding box, at the point where
  /// the weight to its left is closest to ranks_left / ranks of the node's weight. The result
  /// depends only on the points, their order (which breaks ties) and `ranks`.
  static Decomposition bisect(std::span<const Vec3> points, std::span<const double> weights,
                              int ranks);

  int ranks() const { return static_cast<int>(boxes_.size()); }
  const DomainBox& box(int rank) const { return boxes_[rank]; }
  /// The rank whose box holds x.
  int owner_of(const Vec3& x) const;
  /// The ranks other than `owner` whose boxes lie within `halo` of x, ascending. Walks the tree:
  /// the cost grows with the ranks found, not with all ranks.
  void ghost_ranks(const Vec3& x, double halo, int owner, std::vector<int>& out) const;

 private:
  struct Node {
    int axis = -1;   // -1: a leaf
    double cut = 0;  // left: x[axis] < cut
    int left = -1, right = -1;
    int rank = -1;  // leaves
    DomainBox box;  // the region of the node's ranks
  };
  void collect_ghosts(int node, const Vec3& x, double halo, int owner, std::vector<int>& out) const;
  int build(std::span<const Vec3> points, std::span<const double> weights, std::vector<int>& ids,
            int begin, int end, int first_rank, int ranks, DomainBox box);
  std::vector<Node> nodes_;
  std::vector<DomainBox> boxes_;
};

/// [m] The halo the ghosts are drawn with when the pairs that can touch need `need` and the last
/// exchange drew `last`: `last` while it holds `need` with at most two `step`s to spare, else
/// `need` rounded up to a whole number of steps (`need` itself for a step <= 0). `need` follows
/// the fastest grain and changes every step, and with it which grains lie within it of a box;
/// drawn so, the ghosts change only as grains cross the halo, and a rank's bodies mostly stay
/// the same from one sub-step to the next. A halo wider than `need` holds ghosts no pair reads.
double draw_halo(double need, double last, double step);

/// What the ranks measured since the last rebalance check, reduced over them: the work (a
/// grain's work is 1 plus the contacts it detects) of the largest rank and of all, the busy
/// seconds (step phases less the time in collectives) of the busiest rank, the least busy and
/// their mean, and whether some rank solved a pile together with the others.
struct BalanceFigures {
  double most_work = 0.0, total_work = 0.0;
  double most_busy = 0.0, least_busy = 0.0, mean_busy = 0.0;
  bool shared = false;
};

/// Whether a check draws the rank boxes again, and how each grain is weighted then.
enum class Rebalance { kNone, kByWork, kByTime };

/// A rebalance check's decision over `ranks` ranks, with `work_limit` and `busy_limit` the
/// largest rank's work and busy time over their means above which the boxes are drawn again
/// (busy_limit 0: never by time). Where piles were solved together the busy time alone decides:
/// boxes drawn for the time leave the work uneven by design, and drawn again for the work they
/// would undo the time's balance at the next check. Otherwise the work decides (a hosted pile's
/// solve belongs to its host whatever the boxes: drawing them again for its time only moves
/// grains), and only where the largest rank has more than a bisection would give it.
Rebalance rebalance_rule(const BalanceFigures& f, int ranks, double work_limit, double busy_limit);

}  // namespace etdem::distributed
