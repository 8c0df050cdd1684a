// One contact as bytes: every field one step hands to the next (the warm start), bit for bit.
// Checkpoints write last step's contacts with it (world/world_checkpoint.cpp), and a grain that
// migrates to another rank carries the contacts of the pairs it detects
// (World::carried_contacts).
#pragma once

#include <cstddef>
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
/// Appends the contacts of a record to `out`, in their order. Throws ByteStreamError for a
/// truncated or overlong record, and then appends nothing.
void read_contact_record(std::string_view record, std::vector<Contact>& out);

}  // namespace etdem
