// Compound against any shape: every part of the compound, placed at its world pose, goes through
// the ordinary dispatch against the other shape (which, when it is a compound too, loops over its
// own parts in turn; compounds do not nest, so this recurses once). Parts whose bounding sphere
// is farther than the margin from the other shape's are skipped. All parts' points go into the one
// manifold with their own normals; when there are more than Manifold::kMaxPoints the deepest and
// then the farthest-spread points are kept (ContactCollector).
#include "etdem/collision/collide.hpp"
#include "etdem/collision/contact_collector.hpp"

namespace etdem {

void collide_compound_any(const ShapeTable& shapes, int a, const Pose& pa, int b, const Pose& pb,
                          double margin, Manifold& out) {
  const Compound& c = shapes.compound(a);
  const double rb = shapes.bounding_radius[b];
  // Compound against compound runs compound against part inside: one collector per level.
  thread_local ContactCollector collectors[2];
  ContactCollector& collector = collectors[shapes.type[b] == ShapeType::Compound ? 1 : 0];
  collector.clear();
  Manifold part;
  int deepest = -1;
  double deepest_gap = 0.0;
  Vec3 deepest_normal = Vec3::UnitZ();
  for (const CompoundPart& p : c.parts) {
    const Vec3 x = pa.position + pa.rotation * p.position;
    if ((x - pb.position).norm() > shapes.bounding_radius[p.shape] + rb + margin) continue;
    collide(shapes, p.shape, Pose(x, (pa.orientation * p.orientation).normalized()), b, pb, margin,
            part);
    for (int k = 0; k < part.count; ++k) {
      collector.add(part.point[k], part.gap[k], part.normal_at(k));
      if (deepest < 0 || part.gap[k] < deepest_gap) {
        deepest = collector.size() - 1;
        deepest_gap = part.gap[k];
        deepest_normal = part.normal_at(k);
      }
    }
  }
  out.normal = deepest_normal;
  collector.emit(out);
}

}  // namespace etdem
