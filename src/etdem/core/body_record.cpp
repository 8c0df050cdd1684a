#include "etdem/core/body_record.hpp"

#include <cstddef>
#include <cstdint>

#include "etdem/core/byte_stream.hpp"

namespace etdem {

namespace {

/// The bytes of body i's record: its fields' (the name's length and characters included).
std::size_t record_bytes(const Bodies& b, int i) {
  // position, orientation, velocity, spin, inverse mass and inertia, mass, inertia, extra
  constexpr std::size_t kFixed = (3 + 4 + 3 + 3 + 1 + 3 + 1 + 3 + 1) * sizeof(double) +
                                 2 * sizeof(std::int32_t) + sizeof(std::uint8_t) +
                                 sizeof(std::uint64_t);  // shape, material, flags, name's length
  return kFixed + b.name[static_cast<std::size_t>(i)].size();
}

void put_fields(ByteWriter& w, const Bodies& b, int i, double extra) {
  w.put(b.position[i]);
  w.put(b.orientation[i]);
  w.put(b.velocity[i]);
  w.put(b.angular_velocity[i]);
  w.put(b.inv_mass[i]);
  w.put(b.inv_inertia[i]);
  w.put(static_cast<std::int32_t>(b.shape[i]));
  w.put(static_cast<std::int32_t>(b.material[i]));
  w.put(b.flags[i]);
  w.put(b.mass[i]);
  w.put(b.inertia[i]);
  w.put(b.name[i]);
  w.put(extra);
}

}  // namespace

std::string write_body_record(const Bodies& b, int i, double extra) {
  ByteWriter w;
  w.reserve(record_bytes(b, i));
  put_fields(w, b, i, extra);
  return w.take();
}

void put_body_record(ByteWriter& out, const Bodies& b, int i, double extra) {
  out.put(static_cast<std::uint64_t>(record_bytes(b, i)));
  put_fields(out, b, i, extra);
}

double read_body_record(std::string_view record, Bodies& b, int i) {
  ByteReader r(record);
  r.get(b.position[i]);
  r.get(b.orientation[i]);
  r.get(b.velocity[i]);
  r.get(b.angular_velocity[i]);
  b.inv_mass[i] = r.get<double>();
  r.get(b.inv_inertia[i]);
  b.shape[i] = r.get<std::int32_t>();
  b.material[i] = r.get<std::int32_t>();
  b.flags[i] = r.get<std::uint8_t>();
  b.mass[i] = r.get<double>();
  r.get(b.inertia[i]);
  r.get(b.name[i]);
  const double extra = r.get<double>();
  if (!r.done()) throw ByteStreamError("a body record longer than its fields");
  b.inv_inertia_world[i] = world_inverse_inertia(b.orientation[i], b.inv_inertia[i]);
  return extra;
}

int append_body_record(std::string_view record, Bodies& b, double* extra) {
  const int i = b.add(Vec3::Zero(), Quat::Identity(), Vec3::Zero(), Vec3::Zero(), 0.0, Vec3::Zero(),
                      0, 0, true);
  try {
    const double e = read_body_record(record, b, i);
    if (extra) *extra = e;
  } catch (...) {  // leave the bodies as they were
    b.pop_back();
    throw;
  }
  return i;
}

}  // namespace etdem
