#include "etdem/distributed/mpi/mpi_transport.hpp"

#include <algorithm>
#include <climits>
#include <cstdio>
#include <iterator>
#include <stdexcept>
#include <string>

namespace etdem::distributed {
namespace {

void check(int code, const char* what) {
  if (code == MPI_SUCCESS) return;
  char text[MPI_MAX_ERROR_STRING];
  int length = 0;
  MPI_Error_string(code, text, &length);
  throw std::runtime_error(std::string(what) + ": " + std::string(text, length));
}

/// The message a probe found (`status`), received whole.
Message receive_probed(MPI_Comm comm, const MPI_Status& status, int tag) {
  int count = 0;
  MPI_Get_count(&status, MPI_BYTE, &count);
  Message m{status.MPI_SOURCE, std::string(static_cast<std::size_t>(count), '\0')};
  check(MPI_Recv(m.bytes.data(), count, MPI_BYTE, status.MPI_SOURCE, tag, comm, MPI_STATUS_IGNORE),
        "MPI_Recv");
  return m;
}

}  // namespace

MpiSession::MpiSession(int& argc, char**& argv) {
  int initialised = 0;
  MPI_Initialized(&initialised);
  if (!initialised) {
    check(MPI_Init(&argc, &argv), "MPI_Init");
    owns_ = true;
  }
}

MpiSession::~MpiSession() {
  int finalised = 0;
  MPI_Finalized(&finalised);
  if (owns_ && !finalised) MPI_Finalize();
}

MpiTransport::MpiTransport(MPI_Comm comm, double timeout_seconds) : timeout_(timeout_seconds) {
  check(MPI_Comm_dup(comm, &comm_), "MPI_Comm_dup");
  MPI_Comm_rank(comm_, &rank_);
  MPI_Comm_size(comm_, &size_);
}

MpiTransport::~MpiTransport() {
  int finalised = 0;
  MPI_Finalized(&finalised);
  if (finalised) return;
  // Posted messages are taken by their peers; a run that ends normally has them all sent. Wait
  // for them a bounded time (a peer that failed never takes its own), then leave them.
  const double start = MPI_Wtime();
  while (!posted_.empty() && MPI_Wtime() - start < 10.0) reap_posted();
  for (Posted& p : posted_) MPI_Request_free(&p.request);
  if (comm_ != MPI_COMM_NULL) MPI_Comm_free(&comm_);
}

void MpiTransport::abort(const char* message, int exit_code) const {
  std::fprintf(stderr, "%s\n", message);
  std::fflush(stderr);
  MPI_Abort(comm_, exit_code);
  std::abort();  // MPI_Abort does not return
}

// Sparse exchange by non-blocking consensus (Hoefler, Siebert and Lumsdaine, PPoPP 2010): each
// message goes out with a synchronous send; a rank receives whatever arrives while its sends
// complete, then enters a non-blocking barrier, and stops once every rank has entered it (all
// sends everywhere were received). No rank learns the message counts first, so the cost grows
// with the messages, not with the number of ranks. A fast rank may start the next exchange
// while a slow one still probes this one; the tag alternates between consecutive exchanges so
// their messages never mix (two apart cannot overlap: the barrier separates them).
std::vector<Message> MpiTransport::do_exchange(std::vector<Message> outgoing) {
  const int tag = 17 + (round_++ % 2);
  std::vector<MPI_Request> sends(outgoing.size());
  for (std::size_t i = 0; i < outgoing.size(); ++i) {
    const Message& m = outgoing[i];
    if (m.peer < 0 || m.peer >= size_)
      throw std::invalid_argument("message to rank " + std::to_string(m.peer) + " of " +
                                  std::to_string(size_));
    if (m.bytes.size() > static_cast<std::size_t>(INT_MAX))
      throw std::length_error("message of " + std::to_string(m.bytes.size()) +
                              " bytes: over MPI's int count");
    check(MPI_Issend(m.bytes.data(), static_cast<int>(m.bytes.size()), MPI_BYTE, m.peer, tag, comm_,
                     &sends[i]),
          "MPI_Issend");
  }
  std::vector<Message> received;
  MPI_Request barrier = MPI_REQUEST_NULL;
  bool in_barrier = false;
  const double start = MPI_Wtime();
  for (long polls = 0;; ++polls) {
    int arrived = 0;
    MPI_Status status;
    check(MPI_Iprobe(MPI_ANY_SOURCE, tag, comm_, &arrived, &status), "MPI_Iprobe");
    if (arrived) {
      received.push_back(receive_probed(comm_, status, tag));
    }
    if (!in_barrier) {
      int sent = 0;
      check(MPI_Testall(static_cast<int>(sends.size()), sends.data(), &sent, MPI_STATUSES_IGNORE),
            "MPI_Testall");
      if (sent) {
        check(MPI_Ibarrier(comm_, &barrier), "MPI_Ibarrier");
        in_barrier = true;
      }
    } else {
      int done = 0;
      check(MPI_Test(&barrier, &done, MPI_STATUS_IGNORE), "MPI_Test");
      if (done) break;
    }
    // The bound: a rank that never reaches this exchange (it failed without MPI_Abort) would
    // leave the others polling forever.
    if ((polls & 1023) == 1023 && MPI_Wtime() - start > timeout_)
      throw std::runtime_error("rank " + std::to_string(rank_) +
                               ": an exchange made no progress for " +
                               std::to_string(static_cast<int>(timeout_)) + " s");
  }
  // One source's messages arrive in the order it sent them (MPI's non-overtaking rule).
  std::stable_sort(received.begin(), received.end(),
                   [](const Message& a, const Message& b) { return a.peer < b.peer; });
  return received;
}

// Point to point with known peers: a standard send that returns at once (the bytes kept until
// it completes) and a receive of the next message from each named source, on a tag of its own
// (MPI's non-overtaking rule keeps one source's messages in order).
namespace {
constexpr int kPostedTag = 29;
}

void MpiTransport::reap_posted() {
  for (auto p = posted_.begin(); p != posted_.end();) {
    int done = 0;
    check(MPI_Test(&p->request, &done, MPI_STATUS_IGNORE), "MPI_Test");
    p = done ? posted_.erase(p) : std::next(p);
  }
}

void MpiTransport::do_post(std::vector<Message> outgoing) {
  reap_posted();
  for (Message& m : outgoing) {
    if (m.bytes.size() > static_cast<std::size_t>(INT_MAX))
      throw std::length_error("message of " + std::to_string(m.bytes.size()) +
                              " bytes: over MPI's int count");
    Posted& p = posted_.emplace_back(Posted{std::move(m.bytes), MPI_REQUEST_NULL});
    check(MPI_Isend(p.bytes.data(), static_cast<int>(p.bytes.size()), MPI_BYTE, m.peer, kPostedTag,
                    comm_, &p.request),
          "MPI_Isend");
  }
}

std::vector<Message> MpiTransport::do_collect(std::span<const int> from) {
  std::vector<Message> received;
  const double start = MPI_Wtime();
  for (const int source : from) {
    for (long polls = 0;; ++polls) {
      int arrived = 0;
      MPI_Status status;
      check(MPI_Iprobe(source, kPostedTag, comm_, &arrived, &status), "MPI_Iprobe");
      if (arrived) {
        received.push_back(receive_probed(comm_, status, kPostedTag));
        break;
      }
      // The bound, as the exchange's: a source that never posts (it failed without MPI_Abort).
      if ((polls & 1023) == 1023 && MPI_Wtime() - start > timeout_)
        throw std::runtime_error("rank " + std::to_string(rank_) + ": no message from rank " +
                                 std::to_string(source) + " for " +
                                 std::to_string(static_cast<int>(timeout_)) + " s");
    }
  }
  reap_posted();
  return received;
}

long MpiTransport::do_sum(long value) {
  long total = 0;
  check(MPI_Allreduce(&value, &total, 1, MPI_LONG, MPI_SUM, comm_), "MPI_Allreduce");
  return total;
}

void MpiTransport::do_sum(std::span<std::int64_t> values) {
  if (values.size() > static_cast<std::size_t>(INT_MAX))
    throw std::length_error("sum: too many values");
  check(MPI_Allreduce(MPI_IN_PLACE, values.data(), static_cast<int>(values.size()), MPI_INT64_T,
                      MPI_SUM, comm_),
        "MPI_Allreduce");
}

void MpiTransport::do_max(std::span<double> values) {
  if (values.size() > static_cast<std::size_t>(INT_MAX))
    throw std::length_error("max: too many values");
  check(MPI_Allreduce(MPI_IN_PLACE, values.data(), static_cast<int>(values.size()), MPI_DOUBLE,
                      MPI_MAX, comm_),
        "MPI_Allreduce");
}

double MpiTransport::do_max(double value) {
  double best = 0;
  check(MPI_Allreduce(&value, &best, 1, MPI_DOUBLE, MPI_MAX, comm_), "MPI_Allreduce");
  return best;
}

}  // namespace etdem::distributed
