// Plain-data contact and manifold types. Conventions: n points from B to A, u = u_A - u_B,
// u_n < 0 approaching, gap > 0 apart.
#pragma once

#include "etdem/core/math.hpp"

namespace etdem {

/// Position and orientation of a body (rotation cached for the narrow phase).
struct Pose {
  Vec3 position{0, 0, 0};
  Quat orientation{1, 0, 0, 0};
  Mat3 rotation = Mat3::Identity();

  Pose() = default;
  Pose(const Vec3& p, const Quat& q)
      : position(p), orientation(q), rotation(q.toRotationMatrix()) {}
};

/// Result of one narrow-phase test: every contact point between two convex shapes. ETM needs
/// every point of a face contact, so nothing is pruned. Usually all points share `normal`; a pair
/// that reports two features at once (box-box: an edge-edge point and, while the bodies are
/// apart, the face points a fast rotation may bring into contact within the step) gives each
/// point its own normal and sets `mixed`. Read normals with normal_at(k).
struct Manifold {
  static constexpr int kMaxPoints = 16;
  Vec3 normal{0, 0, 1};  // unit, from B to A
  int count = 0;
  bool mixed = false;      // points carry their own normals (point_normal)
  Vec3 point[kMaxPoints];  // world, midway between the two surfaces
  double gap[kMaxPoints];  // m, signed distance along normal (negative = penetration)
  Vec3 point_normal[kMaxPoints];

  void clear() {
    count = 0;
    mixed = false;
  }
  /// A point on `normal` (which must be set first).
  void add(const Vec3& p, double g) {
    if (count < kMaxPoints) {
      point[count] = p;
      gap[count] = g;
      point_normal[count] = normal;
      ++count;
    }
  }
  /// A point with a normal of its own.
  void add(const Vec3& p, double g, const Vec3& n) {
    if (count < kMaxPoints) {
      point[count] = p;
      gap[count] = g;
      point_normal[count] = n;
      mixed = true;
      ++count;
    }
  }
  const Vec3& normal_at(int k) const { return mixed ? point_normal[k] : normal; }
  /// Swaps the roles of A and B: every normal flips.
  void flip() {
    normal = -normal;
    if (mixed)
      for (int k = 0; k < count; ++k) point_normal[k] = -point_normal[k];
  }
};

/// One contact point between bodies a and b, as the solvers consume it.
struct Contact {
  int a = -1;                // body A; in an island's local numbering, -1 means a static body
  int b = -1;                // body B
  Vec3 point{0, 0, 0};       // world contact point, m
  Vec3 normal{0, 0, 1};      // unit, from B to A
  double gap = 0.0;          // m
  Vec3 ra{0, 0, 0};          // from A's centre of mass to the point, m
  Vec3 rb{0, 0, 0};          // from B's centre of mass to the point, m
  double restitution = 0.0;  // normal restitution e of the pair (Stronge, energetic)
  double friction = 0.0;     // Coulomb coefficient mu of the pair
  double stiffness = 1.0;    // contact stiffness K of the pair (LZB 2009; only ratios matter)
  // Rolling resistance of the pair, mu_r R_eff [m]: the resting pass bounds the angular impulse
  // opposing the relative rolling w_A - w_B (about the tangents) by this times the normal
  // impulse. 0 = none (docs/design.md "Rolling resistance").
  double rolling = 0.0;
  // Impulses of the resting-contact pass, applied +to A / -to B [N s]. On input the values the
  // same contact carried last step (warm start), on output this step's.
  double normal_impulse = 0.0;
  Vec3 tangent_impulse{0, 0, 0};
  Vec3 rolling_impulse{0, 0, 0};  // angular impulse, +to A / -to B [N m s]
};

}  // namespace etdem
