#include "etdem/collision/contact_record.hpp"

#include <cstdint>
#include <string>

namespace etdem {

void put_contact(ByteWriter& out, const Contact& c) {
  out.put(c.a), out.put(c.b), out.put(c.point), out.put(c.normal), out.put(c.gap);
  out.put(c.ra), out.put(c.rb), out.put(c.restitution), out.put(c.friction), out.put(c.stiffness);
  out.put(c.normal_impulse), out.put(c.tangent_impulse);
  out.put(c.rolling), out.put(c.rolling_impulse);
}

void get_contact(ByteReader& in, Contact& c) {
  in.get(c.a), in.get(c.b), in.get(c.point), in.get(c.normal), in.get(c.gap);
  in.get(c.ra), in.get(c.rb), in.get(c.restitution), in.get(c.friction), in.get(c.stiffness);
  in.get(c.normal_impulse), in.get(c.tangent_impulse);
  in.get(c.rolling), in.get(c.rolling_impulse);
}

std::string write_contact_record(std::span<const Contact> contacts) {
  ByteWriter out;
  out.put(static_cast<std::uint64_t>(contacts.size()));
  for (const Contact& c : contacts) put_contact(out, c);
  return out.take();
}

void put_contact_record(ByteWriter& out, std::span<const Contact> contacts) {
  const std::uint64_t record = sizeof(std::uint64_t) + contacts.size() * kContactBytes;
  out.put(record);
  out.put(static_cast<std::uint64_t>(contacts.size()));
  for (const Contact& c : contacts) put_contact(out, c);
}

void read_contact_record(std::string_view record, std::vector<Contact>& out) {
  ByteReader in(record);
  const std::uint64_t n = in.count(kContactBytes);
  if (in.left() != n * kContactBytes)
    throw ByteStreamError("a contact record of " + std::to_string(record.size()) +
                          " bytes does not hold " + std::to_string(n) + " contacts");
  const std::size_t start = out.size();
  out.resize(start + n);
  for (std::size_t k = start; k < out.size(); ++k) get_contact(in, out[k]);
}

}  // namespace etdem
