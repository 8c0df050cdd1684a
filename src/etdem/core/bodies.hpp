// Rigid-body state in structure-of-arrays form. Bodies are addressed by index; nothing keeps a
// pointer into these vectors. This is the only copy of body state in the engine.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "etdem/core/math.hpp"

namespace etdem {

enum BodyFlags : std::uint8_t {
  kBodyFixed = 1 << 0,     // static: zero inverse mass and inertia, never moves
  kBodyDisabled = 1 << 1,  // removed from the simulation (e.g. a wall removed by an event)
  kBodyAsleep = 1 << 2,    // dynamic but at rest in a sleeping island: no kick, no solve, no
                           // motion until a moving body joins its island (world/sleep.cpp)
};

struct Bodies {
  // Hot data, length = count(). Units in brackets.
  std::vector<Vec3> position;           // centre of mass, world [m]
  std::vector<Quat> orientation;        // body -> world, unit quaternion
  std::vector<Vec3> velocity;           // [m/s]
  std::vector<Vec3> angular_velocity;   // world frame [rad/s]
  std::vector<double> inv_mass;         // [1/kg], 0 for fixed bodies
  std::vector<Vec3> inv_inertia;        // principal inverse moments, body frame [1/(kg m^2)]
  std::vector<Mat3> inv_inertia_world;  // derived from orientation each step [1/(kg m^2)]
  std::vector<int> shape;               // index into ShapeTable
  std::vector<int> material;            // index into the material table
  std::vector<std::uint8_t> flags;      // BodyFlags
  // Cold data.
  std::vector<double> mass;       // [kg], 0 for fixed bodies
  std::vector<Vec3> inertia;      // principal moments, body frame [kg m^2]
  std::vector<std::string> name;  // optional, for walls and named bodies

  int count() const { return static_cast<int>(position.size()); }
  bool is_dynamic(int i) const { return (flags[i] & (kBodyFixed | kBodyDisabled)) == 0; }
  bool is_active(int i) const { return (flags[i] & kBodyDisabled) == 0; }
  bool is_asleep(int i) const { return (flags[i] & kBodyAsleep) != 0; }
  /// Dynamic and not asleep: kicked, solved and moved this step.
  bool is_awake(int i) const { return is_dynamic(i) && !is_asleep(i); }

  /// Appends a body; mass <= 0 makes it fixed. Returns its index.
  int add(const Vec3& x, const Quat& q, const Vec3& v, const Vec3& w, double m,
          const Vec3& principal_inertia, int shape_id, int material_id, bool fixed,
          const std::string& nm = "");

  /// Appends a copy of body i of `from`, every field's bits. Returns its index.
  int append_copy(const Bodies& from, int i);
  /// Appends copies of bodies first .. first + n - 1 of `from`, in order: append_copy of each.
  void append_copies(const Bodies& from, int first, int n);
  /// Overwrites body `to` with body i of `from`, every field's bits.
  void copy(int to, const Bodies& from, int i);
  /// Room for n bodies in every field.
  void reserve(std::size_t n);
  /// Removes the last body.
  void pop_back();
  /// f(field of a, the same field of b) for every per-body field: the one list of them, which
  /// the copies, reserve and pop_back go through.
  template <class A, class B, class F>
  static void for_each_field(A& a, B& b, F&& f) {
    f(a.position, b.position), f(a.orientation, b.orientation), f(a.velocity, b.velocity);
    f(a.angular_velocity, b.angular_velocity), f(a.inv_mass, b.inv_mass);
    f(a.inv_inertia, b.inv_inertia), f(a.inv_inertia_world, b.inv_inertia_world);
    f(a.shape, b.shape), f(a.material, b.material), f(a.flags, b.flags), f(a.mass, b.mass);
    f(a.inertia, b.inertia), f(a.name, b.name);
  }

  /// Recomputes inv_inertia_world from the orientations.
  void update_world_inertia();

  /// Kinetic energy of body i (translational + rotational) [J].
  double kinetic_energy(int i) const;
};

}  // namespace etdem
