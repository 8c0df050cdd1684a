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
/// The bytes of a contact written slim: its bodies, point, normal, gap, levers and rolling
/// resistance, what a member of a team reads of a row it does not build (docs/distributed.md,
/// "The pile's solve across ranks").
inline constexpr std::size_t kSlimContactBytes = 2 * 4 + 14 * 8;
namespace contact_record_detail {
/// The head of a mixed record of `count` contacts (its length, to be set by end_mixed, then
/// the count), with room for them whole; returns where the length lies.
std::size_t begin_mixed(ByteWriter& out, std::size_t count);
/// Contact c, its bodies renamed a -> name[a] and b -> name[b], whole or slim.
void put_renamed(ByteWriter& out, const Contact& c, std::span<const std::int64_t> name, bool slim);
/// The kinds after the contacts (1 slim, 0 whole), and the record's length set.
void end_mixed(ByteWriter& out, std::size_t length_at, std::span<const char> kinds);
}  // namespace contact_record_detail

/// put_contact_record(out, cs, which, name) with contact which[k] written slim where
/// slim(cs[which[k]]) is true, each decided as it is written (one pass over the contacts): a
/// mixed record (its count, the contacts, then one byte per contact, 1 for slim). Returns the
/// contacts written slim. A slim contact reads back (ContactRecordView::Layout::kMixed) with
/// its restitution, friction, stiffness and impulses NaN.
template <class Slim>
long put_mixed_contact_record(ByteWriter& out, std::span<const Contact> cs,
                              std::span<const int> which, std::span<const std::int64_t> name,
                              Slim&& slim, std::vector<char>& kinds) {
  namespace d = contact_record_detail;
  const std::size_t length_at = d::begin_mixed(out, which.size());
  kinds.resize(which.size());
  long slim_count = 0;
  for (std::size_t k = 0; k < which.size(); ++k) {
    const Contact& c = cs[static_cast<std::size_t>(which[k])];
    const bool thin = slim(c);
    kinds[k] = thin ? 1 : 0;
    slim_count += thin ? 1 : 0;
    d::put_renamed(out, c, name, thin);
  }
  d::end_mixed(out, length_at, kinds);
  return slim_count;
}
/// Appends the contacts of a record to `out`, in their order. Throws ByteStreamError for a
/// truncated or overlong record, and then appends nothing.
void read_contact_record(std::string_view record, std::vector<Contact>& out);

/// A record's contacts read in place: their bodies without reading the rest, and each contact
/// read where its reader wants it. Throws ByteStreamError for a truncated or overlong record.
class ContactRecordView {
 public:
  /// kFull: put_contact_record's; kMixed: put_mixed_contact_record's.
  enum class Layout { kFull, kMixed };
  ContactRecordView() = default;  // no contacts
  explicit ContactRecordView(std::string_view record, Layout layout = Layout::kFull);
  /// The view of another record, as the constructor makes it (a mixed record's offsets reuse
  /// the room of the last); on a damaged record it throws and views no contacts.
  void reset(std::string_view record, Layout layout = Layout::kFull);
  std::size_t size() const { return count_; }
  int a(std::size_t k) const;  // contact k's body A, k < size()
  int b(std::size_t k) const;
  /// Whether contact k was written slim (its material values and impulses read as NaN).
  bool slim(std::size_t k) const { return mixed_ && kinds_[k] != 0; }
  void get(std::size_t k, Contact& c) const;

 private:
  const char* at(std::size_t k) const {
    return mixed_ ? first_ + offset_[k] : first_ + k * kContactBytes;
  }
  const char* first_ = nullptr;
  const char* kinds_ = nullptr;      // a mixed record's byte per contact
  std::vector<std::size_t> offset_;  // a mixed record's contacts' places after first_
  std::size_t count_ = 0;
  bool mixed_ = false;
};

}  // namespace etdem
