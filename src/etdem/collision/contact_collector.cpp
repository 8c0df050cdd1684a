#include "etdem/collision/contact_collector.hpp"

#include <algorithm>
#include <limits>

namespace etdem {

void ContactCollector::emit(Manifold& out) {
  const int n = size();
  const int room = Manifold::kMaxPoints - out.count;
  if (n <= room) {
    for (int k = 0; k < n; ++k) put(out, k);
    return;
  }
  if (room <= 0) return;
  int pick = 0;
  for (int k = 1; k < n; ++k)
    if (gap_[k] < gap_[pick]) pick = k;
  dist2_.assign(n, std::numeric_limits<double>::infinity());
  for (int kept = 0; kept < room; ++kept) {
    put(out, pick);
    int next = -1;
    double far = -1.0;
    for (int k = 0; k < n; ++k) {
      const double d2 = std::min(dist2_[k], (point_[k] - point_[pick]).squaredNorm());
      dist2_[k] = d2;
      if (d2 > far) far = d2, next = k;
    }
    if (next < 0 || far <= 0.0) break;  // every remaining candidate coincides with a kept one
    pick = next;
  }
}

}  // namespace etdem
