#include "etdem/io/fill.hpp"

#include <cmath>

namespace etdem {

Quat PortableRandom::orientation() {
  const double u1 = uniform(), u2 = uniform(), u3 = uniform();
  const double a = std::sqrt(1.0 - u1), b = std::sqrt(u1);
  const double t2 = 2.0 * M_PI * u2, t3 = 2.0 * M_PI * u3;
  Quat q(b * std::cos(t3), a * std::sin(t2), a * std::cos(t2), b * std::sin(t3));  // w, x, y, z
  q.normalize();
  return q;
}

Eigen::Vector3i fill_lattice(const FillSpec& fill) {
  Eigen::Vector3i n;
  for (int a = 0; a < 3; ++a) {
    // A small tolerance so that a region of exactly k spacings holds k sites despite round-off.
    const double sites = (fill.max[a] - fill.min[a]) / fill.spacing * (1.0 + 1e-12);
    n[a] = sites > 0.0 ? static_cast<int>(std::min(std::floor(sites), 2.0e9)) : 0;
  }
  return n;
}

long fill_capacity(const FillSpec& fill) {
  const Eigen::Vector3i n = fill_lattice(fill);
  const double c = static_cast<double>(n[0]) * n[1] * n[2];
  return c > 9.0e18 ? static_cast<long>(9.0e18) : static_cast<long>(c);
}

std::vector<Placement> generate_fill(const FillSpec& fill, double size) {
  const Eigen::Vector3i n = fill_lattice(fill);
  const double s = fill.spacing;
  const double reach = 0.5 * fill.jitter * std::max(0.0, s - size);
  PortableRandom rng(fill.seed);
  std::vector<Placement> out;
  out.reserve(static_cast<std::size_t>(fill.count));
  for (long k = 0; k < fill.count; ++k) {
    const long ix = k % n[0];
    const long iy = (k / n[0]) % n[1];
    const long iz = k / (static_cast<long>(n[0]) * n[1]);
    Placement p;
    p.position = fill.min + s * Vec3(ix + 0.5, iy + 0.5, iz + 0.5);
    for (int a = 0; a < 3; ++a) p.position[a] += reach * (2.0 * rng.uniform() - 1.0);
    if (fill.random_orientation) p.orientation = rng.orientation();
    out.push_back(p);
  }
  return out;
}

}  // namespace etdem
