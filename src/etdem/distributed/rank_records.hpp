// What a rank of a split run writes of an owned grain (distributed/decomposed_world.hpp).
#pragma once

#include <string>

#include "etdem/collision/contact.hpp"
#include "etdem/collision/contact_record.hpp"
#include "etdem/core/bodies.hpp"
#include "etdem/core/body_record.hpp"
#include "etdem/core/byte_stream.hpp"
#include "etdem/shapes/shape.hpp"
#include "etdem/world/world.hpp"

namespace etdem::distributed {

/// A contact's place in the serial order, for a share of it sent to a grain's owner: the
/// grain's global id, the contact's order key and the point's place among its pair's points.
inline void put_contact_place(ByteWriter& o, std::int64_t gid, const ContactOrderKey& key,
                              int point) {
  o.put(gid);
  o.put(static_cast<std::int8_t>(key.against_unbounded));
  o.put(key.a);
  o.put(key.b);
  o.put(static_cast<std::int32_t>(point));
}
inline void read_contact_place(ByteReader& in, std::int64_t& gid, ContactOrderKey& key,
                               int& point) {
  in.get(gid);
  key.against_unbounded = in.get<std::int8_t>() != 0;
  in.get(key.a);
  in.get(key.b);
  point = in.get<std::int32_t>();
}

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

/// A grain's record state (GrainRecord::state): its body and its sleep state. The warm start
/// of the pairs it detects (global ids) is the record's `carried` part, write_contact_record.
inline std::string grain_state(const Bodies& bodies, int i, const World::SleepState& sleep,
                               std::string room = {}) {
  ByteWriter w(std::move(room));  // (`room`'s storage reused: a record written every step)
  w.reserve(512);                 // a body's record and its sleep state: one allocation
  put_body_record(w, bodies, i);
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
