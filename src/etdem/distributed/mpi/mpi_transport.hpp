// The Transport over MPI (OpenMPI from Debian). Built into its own library, etdem_mpi, so that
// the rest of the engine and its tests never link MPI.
#pragma once

#include <mpi.h>

#include <list>
#include <string>

#include "etdem/distributed/transport.hpp"

namespace etdem::distributed {

/// MPI_Init on construction, MPI_Finalize on destruction (when this object initialised MPI).
class MpiSession {
 public:
  MpiSession(int& argc, char**& argv);
  ~MpiSession();
  MpiSession(const MpiSession&) = delete;
  MpiSession& operator=(const MpiSession&) = delete;

 private:
  bool owns_ = false;
};

class MpiTransport final : public Transport {
 public:
  /// Works on a duplicate of `comm`, so its messages never meet the caller's.
  explicit MpiTransport(MPI_Comm comm = MPI_COMM_WORLD, double timeout_seconds = 600.0);
  ~MpiTransport() override;
  MpiTransport(const MpiTransport&) = delete;
  MpiTransport& operator=(const MpiTransport&) = delete;

  int rank() const override { return rank_; }
  int size() const override { return size_; }

  /// Ends every rank: prints `message` (one line, from the rank that calls it) and calls
  /// MPI_Abort with `exit_code`. For an error on one rank that the others cannot know of.
  [[noreturn]] void abort(const char* message, int exit_code) const;

 protected:
  std::vector<Message> do_exchange(std::vector<Message> outgoing) override;
  void do_post(std::vector<Message> outgoing) override;
  std::vector<Message> do_collect(std::span<const int> from) override;
  long do_sum(long value) override;
  void do_sum(std::span<std::int64_t> values) override;
  double do_max(double value) override;
  void do_max(std::span<double> values) override;

 private:
  MPI_Comm comm_ = MPI_COMM_NULL;
  int rank_ = 0, size_ = 1;
  double timeout_ = 600.0;
  int round_ = 0;  // exchanges so far: alternates the tag (see do_exchange)
  /// Posted messages not yet known to be sent: each keeps its bytes until its request completes
  /// (a list: the bytes never move).
  struct Posted {
    std::string bytes;
    MPI_Request request = MPI_REQUEST_NULL;
  };
  std::list<Posted> posted_;
  void reap_posted();  // drops the posted messages whose sends completed
};

}  // namespace etdem::distributed
