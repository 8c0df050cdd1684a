// What a rank of a split run writes of an owned grain (distributed/decomposed_world.hpp).
#pragma once

#include <span>
#include <string>

#include "etdem/collision/contact.hpp"
#include "etdem/collision/contact_record.hpp"
#include "etdem/core/bodies.hpp"
#include "etdem/core/body_record.hpp"
#include "etdem/core/byte_stream.hpp"
#include "etdem/shapes/shape.hpp"
#include "etdem/world/world.hpp"

namespace etdem::distributed {

/// A grain's sleep state (World::SleepState) in a record.
inline void put_sleep_state(ByteWriter& w, const World::SleepState& s) {
  w.put(s.rest_time);
  w.put(s.force);
  w.put(s.torque);
}
inline World::SleepState read_sleep_state(ByteReader& in) {
  World::SleepState s;
  in.get(s.rest_time);
  in.get(s.force);
  in.get(s.torque);
  return s;
}

/// A grain's record state: its body, the warm start of the pairs it detects (global ids) and
/// its sleep state.
inline std::string grain_state(const Bodies& bodies, int i, std::span<const Contact> contacts,
                               const World::SleepState& sleep) {
  ByteWriter w;
  w.put(write_body_record(bodies, i));
  w.put(write_contact_record(contacts));
  put_sleep_state(w, sleep);
  return w.take();
}

/// The fastest any surface point of a grain can move in the next step [m/s]: its speed and
/// spin now plus what gravity adds over the step (the broad phase's speed bound after the kick).
inline double next_speed(const Bodies& b, const ShapeTable& shapes, int i, double kick) {
  return b.velocity[i].norm() + kick +
         b.angular_velocity[i].norm() * shapes.bounding_radius[b.shape[i]];
}

}  // namespace etdem::distributed
