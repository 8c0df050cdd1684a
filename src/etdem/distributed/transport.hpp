// How ranks talk: a small collective interface under the distributed algorithms, so that they
// run the same on MPI ranks (mpi/mpi_transport) and on threads of one process standing in for
// ranks (local_transport, for tests on any machine). Every call is collective: all ranks make
// the same calls in the same order.
#pragma once

#include <array>
#include <chrono>
#include <cstdint>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "etdem/core/exact_sum.hpp"

namespace etdem::distributed {

/// One message: to `peer` when sent, from `peer` when received. The payload is a byte string
/// written and read with core/byte_stream.hpp.
struct Message {
  int peer = -1;
  std::string bytes;
};

/// What a rank sent, for the scaling model (bench/): counted by every transport the same way.
struct TransportCounters {
  long exchanges = 0;    // calls of exchange()
  long collects = 0;     // calls of collect() (point to point: no rank waits for all)
  long messages = 0;     // messages sent
  long bytes = 0;        // payload bytes sent
  long reductions = 0;   // calls of sum() and max()
  double seconds = 0.0;  // [s] wall time inside exchanges and reductions, waiting included
};

class Transport {
 public:
  virtual ~Transport() = default;
  virtual int rank() const = 0;
  virtual int size() const = 0;

  /// Sparse exchange: each message goes to its peer (any rank, itself included; several to one
  /// peer allowed). Returns the messages sent to this rank, ordered by source rank and, from one
  /// source, in the order they were sent. A rank that sends nothing and expects nothing still
  /// calls it: no rank needs to know in advance who will write to it.
  std::vector<Message> exchange(std::vector<Message> outgoing) {
    const Clock clock(counters_);
    ++counters_.exchanges;
    for (const Message& m : outgoing) {
      ++counters_.messages;
      counters_.bytes += static_cast<long>(m.bytes.size());
    }
    return do_exchange(std::move(outgoing));
  }
  /// Point to point with known peers, not collective: `post` sends each message to its peer (not
  /// this rank) and returns at once; the peer takes it with `collect`, which waits for the next
  /// message posted to this rank by each rank of `from` (ascending, not this rank) and returns
  /// them in that order. Both sides must know who writes to whom: a rank that expects a message
  /// waits for it (up to the transport's bound, then it throws), so a sender with nothing to say
  /// posts an empty one. One source's messages are taken in the order it posted them.
  /// Throws std::invalid_argument for a peer outside the ranks or this rank itself.
  void post(std::vector<Message> outgoing) {
    const Clock clock(counters_);
    for (const Message& m : outgoing) {
      check_peer(m.peer, "posted message to");
      ++counters_.messages;
      counters_.bytes += static_cast<long>(m.bytes.size());
    }
    do_post(std::move(outgoing));
  }
  std::vector<Message> collect(std::span<const int> from) {
    for (const int r : from) check_peer(r, "collect from");
    const Clock clock(counters_);
    ++counters_.collects;
    return do_collect(from);
  }
  /// The sum of `value` over all ranks, the same on every rank.
  long sum(long value) {
    const Clock clock(counters_);
    ++counters_.reductions;
    return do_sum(value);
  }
  /// Element-wise sums of integers over all ranks, in place (the same on every rank).
  void sum(std::span<std::int64_t> values) {
    const Clock clock(counters_);
    ++counters_.reductions;
    do_sum(values);
  }
  /// The largest `value` over all ranks.
  double max(double value) {
    const Clock clock(counters_);
    ++counters_.reductions;
    return do_max(value);
  }
  /// Element-wise maxima over all ranks, in place (the same on every rank): several maxima of a
  /// step in one reduction.
  void max(std::span<double> values) {
    const Clock clock(counters_);
    ++counters_.reductions;
    do_max(values);
  }
  /// The exact sum of every rank's partial sum (through the limbs: no rounding, no order), the
  /// same bits on every rank and for any number of ranks.
  ExactSum sum(const ExactSum& partial) {
    std::array<std::int64_t, ExactSum::kPacked> packed{};
    partial.pack(packed.data());
    sum(std::span<std::int64_t>(packed));
    return ExactSum::unpack(packed.data());
  }

  const TransportCounters& counters() const { return counters_; }

 protected:
  virtual std::vector<Message> do_exchange(std::vector<Message> outgoing) = 0;
  virtual void do_post(std::vector<Message> outgoing) = 0;
  virtual std::vector<Message> do_collect(std::span<const int> from) = 0;
  virtual long do_sum(long value) = 0;
  virtual void do_sum(std::span<std::int64_t> values) = 0;
  virtual double do_max(double value) = 0;
  virtual void do_max(std::span<double> values) = 0;

 private:
  void check_peer(int peer, const char* what) const {
    if (peer < 0 || peer >= size() || peer == rank())
      throw std::invalid_argument(std::string(what) + " rank " + std::to_string(peer) +
                                  " on rank " + std::to_string(rank()) + " of " +
                                  std::to_string(size()));
  }
  /// Adds the wall time of one collective call to the counters.
  class Clock {
   public:
    explicit Clock(TransportCounters& c) : c_(c), t0_(std::chrono::steady_clock::now()) {}
    ~Clock() {
      c_.seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0_).count();
    }

   private:
    TransportCounters& c_;
    std::chrono::steady_clock::time_point t0_;
  };
  TransportCounters counters_;
};

}  // namespace etdem::distributed
