// One body's state as bytes, for a grain that migrates to another rank or is copied there as a
// ghost (distributed/grain_exchange: GrainRecord::state). Every stored field travels as its
// bits (the inverse mass and inertia too, not recomputed), so a body read back is the body
// written, bit for bit; the world-frame inverse inertia is derived from the orientation (the
// same bits wherever it is computed) and does not travel.
#pragma once

#include <string>
#include <string_view>

#include "etdem/core/bodies.hpp"
#include "etdem/core/byte_stream.hpp"

namespace etdem {

/// Body i of `bodies` with `extra` (a per-body value of the world's, e.g. its rest time [s]).
std::string write_body_record(const Bodies& bodies, int i, double extra = 0.0);
/// Appends the record of body i to `out` as one string value: the bytes of
/// out.put(write_body_record(bodies, i, extra)), without the record's own copy.
void put_body_record(ByteWriter& out, const Bodies& bodies, int i, double extra = 0.0);

/// Overwrites body i of `bodies` from a record (a ghost refreshed); returns its `extra`.
/// Throws ByteStreamError for a truncated or overlong record.
double read_body_record(std::string_view record, Bodies& bodies, int i);

/// Appends the body of a record (a grain arriving); returns its index. `extra` receives the
/// record's extra value when not null.
int append_body_record(std::string_view record, Bodies& bodies, double* extra = nullptr);

}  // namespace etdem
