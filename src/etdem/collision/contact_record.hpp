// One contact as bytes: every field one step hands to the next (the warm start), bit for bit.
// Checkpoints write last step's contacts with it (world/world_checkpoint.cpp), and a grain that
// migrates to another rank carries the contacts of the pairs it detects
// (World::carried_contacts).
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "etdem/collision/contact.hpp"
#include "etdem/core/byte_stream.hpp"

namespace etdem {

void put_contact(ByteWriter& out, const Contact& c);
/// Throws ByteStreamError when the bytes end early.
void get_contact(ByteReader& in, Contact& c);

/// The bytes put_contact writes.
inline constexpr std::size_t kContactBytes = 2 * 4 + 24 * 8;
/// The bytes put_contact_record appends for `count` contacts (its length, its count, the
/// contacts).
constexpr std::size_t contact_record_bytes(std::size_t count) {
  return 2 * sizeof(std::uint64_t) + count * kContactBytes;
}

/// A list of contacts as one record (their count, then each contact), in their order.
std::string write_contact_record(std::span<const Contact> contacts);
/// Appends the record of `contacts` to `out` as one string value: the bytes of
/// out.put(write_contact_record(contacts)), without the record's own copy.
void put_contact_record(ByteWriter& out, std::span<const Contact> contacts);
/// The record of the contacts cs[which[k]], in that order, each with its bodies renamed a ->
/// name[a] and b -> name[b]: the bytes put_contact_record writes for those contacts so renamed,
/// without copying them first.
void put_contact_record(ByteWriter& out, std::span<const Contact> cs, std::span<const int> which,
                        std::span<const std::int64_t> name);
/// Appends the contacts of a record to `out`, in their order. Throws ByteStreamError for a
/// truncated or overlong record, and then appends nothing.
void read_contact_record(std::string_view record, std::vector<Contact>& out);

/// A record's contacts read in place: their bodies without reading the rest, and each contact
/// read where its reader wants it. Throws ByteStreamError for a truncated or overlong record.
class ContactRecordView {
 public:
  ContactRecordView() = default;  // no contacts
  explicit ContactRecordView(std::string_view record);
  /// The view of another record, as the constructor makes it; on a damaged record it throws
  /// and views no contacts.
  void reset(std::string_view record);
  std::size_t size() const { return count_; }
  int a(std::size_t k) const;  // contact k's body A, k < size()
  int b(std::size_t k) const;
  void get(std::size_t k, Contact& c) const;

 private:
  const char* at(std::size_t k) const { return first_ + k * kContactBytes; }
  const char* first_ = nullptr;
  std::size_t count_ = 0;
};

}  // namespace etdem
