// Ranks as threads of one process: runs a collective function on N threads, each with its own
// Transport, exchanging messages through shared mailboxes. The distributed algorithms are
// tested this way on every machine; the MPI transport runs the same code across processes.
#pragma once

#include <functional>

#include "etdem/distributed/transport.hpp"

namespace etdem::distributed {

/// Runs `body(transport)` on `ranks` threads (ranks 0..ranks-1) and waits for all. An exception
/// on any rank is rethrown here (the lowest rank's) after every thread has ended; the other
/// ranks see the failed rank leave and each of their collective calls then throws too, so
/// nothing waits forever.
void run_local_ranks(int ranks, const std::function<void(Transport&)>& body);

}  // namespace etdem::distributed
