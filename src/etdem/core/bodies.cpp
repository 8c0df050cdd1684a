#include "etdem/core/bodies.hpp"

#include "etdem/core/parallel.hpp"

namespace etdem {

int Bodies::add(const Vec3& x, const Quat& q, const Vec3& v, const Vec3& w, double m,
                const Vec3& principal_inertia, int shape_id, int material_id, bool fixed,
                const std::string& nm) {
  const bool is_fixed = fixed || m <= 0.0;
  position.push_back(x);
  orientation.push_back(q.normalized());
  velocity.push_back(is_fixed ? Vec3(Vec3::Zero()) : v);
  angular_velocity.push_back(is_fixed ? Vec3(Vec3::Zero()) : w);
  inv_mass.push_back(is_fixed ? 0.0 : 1.0 / m);
  inv_inertia.push_back(is_fixed ? Vec3(Vec3::Zero()) : Vec3(principal_inertia.cwiseInverse()));
  inv_inertia_world.push_back(Mat3::Zero());
  shape.push_back(shape_id);
  material.push_back(material_id);
  flags.push_back(is_fixed ? kBodyFixed : 0);
  mass.push_back(is_fixed ? 0.0 : m);
  inertia.push_back(is_fixed ? Vec3(Vec3::Zero()) : principal_inertia);
  name.push_back(nm);
  const int i = count() - 1;
  inv_inertia_world[i] = world_inverse_inertia(orientation[i], inv_inertia[i]);
  return i;
}

int Bodies::append_copy(const Bodies& from, int i) {
  for_each_field(*this, from, [i](auto& to, const auto& field) { to.push_back(field[i]); });
  return count() - 1;
}

void Bodies::append_copies(const Bodies& from, int first, int n) {
  for_each_field(*this, from, [first, n](auto& to, const auto& field) {
    to.insert(to.end(), field.begin() + first, field.begin() + first + n);
  });
}

void Bodies::copy(int to, const Bodies& from, int i) {
  for_each_field(*this, from, [to, i](auto& into, const auto& field) { into[to] = field[i]; });
}

void Bodies::reserve(std::size_t n) {
  for_each_field(*this, *this, [n](auto& field, auto&) { field.reserve(n); });
}

void Bodies::pop_back() {
  for_each_field(*this, *this, [](auto& field, auto&) { field.pop_back(); });
}

void Bodies::update_world_inertia() {
  parallel_for(static_cast<std::size_t>(count()), [&](std::size_t i) {
    if (inv_mass[i] > 0.0)
      inv_inertia_world[i] = world_inverse_inertia(orientation[i], inv_inertia[i]);
  });
}

double Bodies::kinetic_energy(int i) const {
  if (inv_mass[i] == 0.0) return 0.0;
  const Vec3 lw = world_inertia(orientation[i], inertia[i]) * angular_velocity[i];
  return 0.5 * mass[i] * velocity[i].squaredNorm() + 0.5 * angular_velocity[i].dot(lw);
}

}  // namespace etdem
