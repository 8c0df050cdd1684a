// The position projection of a split run (distributed/decomposed_world.hpp): each contact's
// corrections sent to its grains' owners, which sum them in the serial contact order.

#include <algorithm>
#include <map>
#include <tuple>

#include "etdem/distributed/decomposed_world.hpp"
#include "etdem/distributed/rank_records.hpp"
#include "etdem/world/projection.hpp"

namespace etdem::distributed {
/// One contact's position correction of one grain (World::correct_positions), sent to the
/// grain's owner, which sums them in the serial contact order: by the contact's order key, then
/// by the point's place among its pair's points.
struct DecomposedWorld::Contribution {
  std::int64_t gid = -1;
  ContactOrderKey key;
  int point = 0;
  Vec3 d = Vec3::Zero();  // weighted correction [m]
  double weight = 0.0;
  bool operator<(const Contribution& o) const {
    return std::tie(gid, key, point) < std::tie(o.gid, o.key, o.point);
  }
};

namespace {

void put_contribution(ByteWriter& o, std::int64_t gid, const ContactOrderKey& key, int point,
                      const Vec3& d, double weight) {
  put_contact_place(o, gid, key, point);
  o.put(d);
  o.put(weight);
}

DecomposedWorld::Contribution read_contribution(ByteReader& in) {
  DecomposedWorld::Contribution c;
  read_contact_place(in, c.gid, c.key, c.point);
  in.get(c.d);
  in.get(c.weight);
  return c;
}

}  // namespace

void DecomposedWorld::collect_contributions(std::vector<Contribution>& mine, long& penetrating) {
  // Every contact's contributions from the rank that detected it, after the results (its
  // grains' sleep flags as the hosts left them); those of other ranks' grains to their owners.
  World& w = local_;
  const double kp = w.settings.projection;
  const std::span<const Contact> contacts = w.contacts();  // the narrow phase's, this rank's
  std::map<int, ByteWriter> out;
  auto send = [&](int body, const Contribution& c) {
    if (owned_[body])
      mine.push_back(c);
    else
      put_contribution(out[owner_[body]], c.gid, c.key, c.point, c.d, c.weight);
  };
  int point = 0;
  for (std::size_t k = 0; k < contacts.size(); ++k) {
    const Contact& c = contacts[k];
    point = k > 0 && contacts[k - 1].a == c.a && contacts[k - 1].b == c.b ? point + 1 : 0;
    const double ia = w.bodies.is_awake(c.a) ? w.bodies.inv_mass[c.a] : 0.0;
    const double ib = w.bodies.is_awake(c.b) ? w.bodies.inv_mass[c.b] : 0.0;
    const ProjectionShare s =
        projection_share(c.gap, c.normal, ia, ib, kp, w.settings.penetration_slop);
    if (!s.moves) continue;
    ++penetrating;
    const ContactOrderKey key{w.shapes.tested_apart(w.bodies.shape[c.b]), gid_[c.a], gid_[c.b]};
    // a - x and a + (-x) are the same bits: the owner only adds.
    if (ia > 0.0) send(c.a, {gid_[c.a], key, point, s.to_a, s.weight});
    if (ib > 0.0) send(c.b, {gid_[c.b], key, point, -s.to_b, s.weight});
  }
  std::vector<Message> outgoing;
  for (auto& [rank, o] : out) outgoing.push_back({rank, o.take()});
  for (const Message& m : t_.exchange(std::move(outgoing))) {
    ByteReader in(m.bytes);
    while (!in.done()) mine.push_back(read_contribution(in));
  }
}

void DecomposedWorld::correct_positions(World& w, SubstepLists lists) {
  // World::correct_positions over ranks: a grain moves by its corrections' weighted mean, summed
  // in the serial contact order (by the contact's order key, then by its place among its pair's
  // points): the serial sums' bits.
  if (w.settings.projection <= 0.0) return;
  auto move = [&](std::int64_t gid, const Vec3& sum, double weight) {
    if (!(weight > 0.0)) return;  // a weight that underflowed moves nothing
    const int l = local_of_[gid];
    const Vec3 dx = sum / weight;
    w.bodies.position[l] += dx;
    lists.sums.correction_work += w.bodies.mass[l] * w.settings.gravity.dot(dx);
  };
  // Whether any contact anywhere penetrated decides whether the serial step books the work.
  if (contributions_hosted_) {  // the hosts summed them: one record per grain owned here
    for (const GrainSum& g : hosted_sums_) move(g.gid, g.sum, g.weight);
    lists.sums.penetrating = hosted_penetrating_;
    return;
  }
  std::vector<Contribution> mine;
  long penetrating = 0;
  collect_contributions(mine, penetrating);
  std::sort(mine.begin(), mine.end());
  for (std::size_t k = 0; k < mine.size();) {
    Vec3 sum = Vec3::Zero();
    double weight = 0.0;
    const std::int64_t gid = mine[k].gid;
    for (; k < mine.size() && mine[k].gid == gid; ++k) {
      sum += mine[k].d;
      weight += mine[k].weight;
    }
    move(gid, sum, weight);
  }
  lists.sums.penetrating = penetrating;
}

}  // namespace etdem::distributed
