#include "etdem/collision/contact_record.hpp"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <type_traits>

namespace etdem {

namespace {

// a, b, point, normal, gap, ra, rb, restitution, friction, stiffness, normal impulse, tangent
// impulse, rolling, rolling impulse.
template <class B, class C>
void fields(B& k, C& c) {
  auto vec = [&](auto& v) { k.field(v.data(), 3 * sizeof(double)); };
  k.field(&c.a, sizeof(int)), k.field(&c.b, sizeof(int)), vec(c.point), vec(c.normal);
  k.field(&c.gap, sizeof(double)), vec(c.ra), vec(c.rb), k.field(&c.restitution, sizeof(double));
  k.field(&c.friction, sizeof(double)), k.field(&c.stiffness, sizeof(double));
  k.field(&c.normal_impulse, sizeof(double)), vec(c.tangent_impulse);
  k.field(&c.rolling, sizeof(double)), vec(c.rolling_impulse);
}

}  // namespace

void put_contact(ByteWriter& out, const Contact& c) {
  char bytes[kContactBytes];
  FieldBlock<char*> k{bytes};
  fields(k, c);
  out.put_bytes(bytes, kContactBytes);
}

void get_contact(ByteReader& in, Contact& c) {
  FieldBlock<const char*> k{in.take(kContactBytes).data()};
  fields(k, c);
}

std::string write_contact_record(std::span<const Contact> contacts) {
  ByteWriter out;
  out.put(static_cast<std::uint64_t>(contacts.size()));
  for (const Contact& c : contacts) put_contact(out, c);
  return out.take();
}

namespace {

/// A record of `count` contacts as one string value: its length, then the count (the contacts
/// follow).
void put_record_head(ByteWriter& out, std::size_t count) {
  // Room for the whole record first: a large one is written once, not copied as it grows.
  const std::size_t need = out.bytes().size() + contact_record_bytes(count);
  if (out.bytes().capacity() < need) out.reserve(std::max(need, 2 * out.bytes().capacity()));
  out.put(static_cast<std::uint64_t>(sizeof(std::uint64_t) + count * kContactBytes));
  out.put(static_cast<std::uint64_t>(count));
}

}  // namespace

void put_contact_record(ByteWriter& out, std::span<const Contact> contacts) {
  put_record_head(out, contacts.size());
  for (const Contact& c : contacts) put_contact(out, c);
}

void put_contact_record(ByteWriter& out, std::span<const Contact> cs, std::span<const int> which,
                        std::span<const std::int64_t> name) {
  put_record_head(out, which.size());
  for (const int k : which) {
    const Contact& c = cs[static_cast<std::size_t>(k)];
    char bytes[kContactBytes];
    FieldBlock<char*> block{bytes};
    fields(block, c);
    const int ids[2] = {static_cast<int>(name[static_cast<std::size_t>(c.a)]),
                        static_cast<int>(name[static_cast<std::size_t>(c.b)])};
    std::memcpy(bytes, ids, sizeof ids);  // a and b lead the block
    out.put_bytes(bytes, kContactBytes);
  }
}

ContactRecordView::ContactRecordView(std::string_view record) {
  reset(record);
}

void ContactRecordView::reset(std::string_view record) {
  first_ = nullptr;
  count_ = 0;
  ByteReader in(record);
  const std::uint64_t n = in.count(kContactBytes);
  if (in.left() != n * kContactBytes)
    throw ByteStreamError("a contact record of " + std::to_string(record.size()) +
                          " bytes does not hold " + std::to_string(n) + " contacts");
  first_ = in.take(n * kContactBytes).data();
  count_ = static_cast<std::size_t>(n);
}

int ContactRecordView::a(std::size_t k) const {
  int id;
  std::memcpy(&id, at(k), sizeof id);
  return id;
}

int ContactRecordView::b(std::size_t k) const {
  int id;
  std::memcpy(&id, at(k) + sizeof(int), sizeof id);
  return id;
}

void ContactRecordView::get(std::size_t k, Contact& c) const {
  FieldBlock<const char*> block{at(k)};
  fields(block, c);
}

void read_contact_record(std::string_view record, std::vector<Contact>& out) {
  const ContactRecordView view(record);
  // Each contact built and read in one pass over its memory (a resize first would write every
  // contact twice). Growth stays geometric when records are appended one after another.
  const std::size_t n = view.size();
  if (out.capacity() < out.size() + n) out.reserve(std::max(out.size() + n, 2 * out.capacity()));
  for (std::size_t k = 0; k < n; ++k) view.get(k, out.emplace_back());
}

}  // namespace etdem
