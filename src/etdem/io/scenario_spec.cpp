#include "etdem/io/scenario_spec.hpp"

#include <algorithm>
#include <cmath>

namespace etdem {

long steps_for(double duration, double dt) {
  const double n = duration / dt;
  const double r = std::round(n);
  const long s = std::abs(n - r) <= 1e-9 * std::max(1.0, r) ? static_cast<long>(r)
                                                            : static_cast<long>(std::ceil(n));
  return std::max(1L, s);
}

long Scenario::steps() const {
  return steps_for(duration, settings.dt);
}

long Scenario::grain_count() const {
  long n = static_cast<long>(bodies.size());
  for (const FillSpec& f : fills) n += f.count;
  return n;
}

int Scenario::plane_count() const {
  int n = 0;
  for (const WallSpec& w : walls) n += static_cast<int>(wall_plane_names(w).size());
  return n;
}

std::vector<BoxPlane> box_planes(const WallSpec& w) {
  const Vec3 l = w.min, h = w.max;
  std::vector<BoxPlane> out = {{w.name + ".floor",
                                l,
                                Vec3::UnitZ(),
                                {Vec3(l.x(), l.y(), l.z()), Vec3(h.x(), l.y(), l.z()),
                                 Vec3(h.x(), h.y(), l.z()), Vec3(l.x(), h.y(), l.z())}},
                               {w.name + ".left",
                                l,
                                Vec3::UnitX(),
                                {Vec3(l.x(), l.y(), l.z()), Vec3(l.x(), h.y(), l.z()),
                                 Vec3(l.x(), h.y(), h.z()), Vec3(l.x(), l.y(), h.z())}},
                               {w.name + ".right",
                                h,
                                -Vec3::UnitX(),
                                {Vec3(h.x(), l.y(), l.z()), Vec3(h.x(), h.y(), l.z()),
                                 Vec3(h.x(), h.y(), h.z()), Vec3(h.x(), l.y(), h.z())}},
                               {w.name + ".front",
                                l,
                                Vec3::UnitY(),
                                {Vec3(l.x(), l.y(), l.z()), Vec3(h.x(), l.y(), l.z()),
                                 Vec3(h.x(), l.y(), h.z()), Vec3(l.x(), l.y(), h.z())}},
                               {w.name + ".back",
                                h,
                                -Vec3::UnitY(),
                                {Vec3(l.x(), h.y(), l.z()), Vec3(h.x(), h.y(), l.z()),
                                 Vec3(h.x(), h.y(), h.z()), Vec3(l.x(), h.y(), h.z())}}};
  if (w.closed)
    out.push_back({w.name + ".top",
                   h,
                   -Vec3::UnitZ(),
                   {Vec3(l.x(), l.y(), h.z()), Vec3(h.x(), l.y(), h.z()), Vec3(h.x(), h.y(), h.z()),
                    Vec3(l.x(), h.y(), h.z())}});
  return out;
}

std::vector<std::string> wall_plane_names(const WallSpec& w) {
  if (w.type != WallSpec::Type::Box) return {w.name};
  std::vector<std::string> out;
  for (const BoxPlane& p : box_planes(w)) out.push_back(p.name);
  return out;
}

}  // namespace etdem
