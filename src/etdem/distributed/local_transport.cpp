#include "etdem/distributed/local_transport.hpp"

#include <algorithm>
#include <barrier>
#include <condition_variable>
#include <deque>
#include <exception>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>

namespace etdem::distributed {
namespace {

struct RankLeft : std::runtime_error {
  RankLeft() : std::runtime_error("another rank failed") {}
};

/// What the threads share: a mailbox per rank, a slot per rank for sums, and a barrier.
struct Shared {
  explicit Shared(int n)
      : inbox(n), posted(n), slots(n, 0), vectors(n), reals(n, 0.0), real_vectors(n), sync(n) {}
  std::mutex mutex;
  std::vector<std::vector<Message>> inbox;  // per destination; peer = source
  std::vector<std::deque<Message>> posted;  // per destination, point to point; peer = source
  std::condition_variable arrived;          // a message was posted, or a rank failed
  std::vector<long> slots;
  std::vector<std::vector<std::int64_t>> vectors;  // per rank, for element-wise sums
  std::vector<double> reals;
  std::vector<std::vector<double>> real_vectors;  // per rank, for element-wise maxima
  std::barrier<> sync;
  bool failed = false;  // a rank threw; read and written under the mutex
};

class LocalTransport final : public Transport {
 public:
  LocalTransport(Shared& shared, int rank, int size) : shared_(shared), rank_(rank), size_(size) {}
  int rank() const override { return rank_; }
  int size() const override { return size_; }

 protected:
  std::vector<Message> do_exchange(std::vector<Message> outgoing) override {
    {
      std::lock_guard lock(shared_.mutex);
      for (Message& m : outgoing) {
        if (m.peer < 0 || m.peer >= size_)
          throw std::invalid_argument("message to rank " + std::to_string(m.peer) + " of " +
                                      std::to_string(size_));
        shared_.inbox[m.peer].push_back({rank_, std::move(m.bytes)});
      }
    }
    wait();  // every rank has posted
    std::vector<Message> received;
    {
      std::lock_guard lock(shared_.mutex);
      received.swap(shared_.inbox[rank_]);
    }
    // Sources posted in any order; one source's messages keep their order.
    std::stable_sort(received.begin(), received.end(),
                     [](const Message& a, const Message& b) { return a.peer < b.peer; });
    wait();  // every rank has taken its mail before the next exchange posts
    return received;
  }

  void do_post(std::vector<Message> outgoing) override {
    {
      std::lock_guard lock(shared_.mutex);
      for (Message& m : outgoing) shared_.posted[m.peer].push_back({rank_, std::move(m.bytes)});
    }
    shared_.arrived.notify_all();
  }

  std::vector<Message> do_collect(std::span<const int> from) override {
    std::vector<Message> received;
    std::unique_lock lock(shared_.mutex);
    std::deque<Message>& box = shared_.posted[rank_];
    for (const int source : from) {
      auto next = [&] {
        return std::find_if(box.begin(), box.end(),
                            [&](const Message& m) { return m.peer == source; });
      };
      shared_.arrived.wait(lock, [&] { return shared_.failed || next() != box.end(); });
      if (shared_.failed) throw RankLeft();
      const auto it = next();
      received.push_back(std::move(*it));
      box.erase(it);
    }
    return received;
  }

  long do_sum(long value) override {
    shared_.slots[rank_] = value;
    wait();
    long total = 0;
    for (long v : shared_.slots) total += v;  // rank order on every rank
    wait();
    return total;
  }

  void do_sum(std::span<std::int64_t> values) override {
    shared_.vectors[rank_].assign(values.begin(), values.end());
    wait();
    for (std::size_t k = 0; k < values.size(); ++k) {
      std::int64_t total = 0;
      for (const auto& v : shared_.vectors) {
        if (v.size() != values.size())
          throw std::invalid_argument("sum: lengths differ between ranks");
        total += v[k];
      }
      values[k] = total;
    }
    wait();
  }

  void do_max(std::span<double> values) override {
    shared_.real_vectors[rank_].assign(values.begin(), values.end());
    wait();
    for (std::size_t k = 0; k < values.size(); ++k) {
      double best = values[k];
      for (const auto& v : shared_.real_vectors) {
        if (v.size() != values.size())
          throw std::invalid_argument("max: lengths differ between ranks");
        best = std::max(best, v[k]);
      }
      values[k] = best;
    }
    wait();
  }

  double do_max(double value) override {
    shared_.reals[rank_] = value;
    wait();
    double best = shared_.reals[0];
    for (double v : shared_.reals) best = std::max(best, v);
    wait();
    return best;
  }

 private:
  void wait() {
    shared_.sync.arrive_and_wait();
    std::lock_guard lock(shared_.mutex);
    if (shared_.failed) throw RankLeft();
  }

  Shared& shared_;
  int rank_, size_;
};

}  // namespace

void run_local_ranks(int ranks, const std::function<void(Transport&)>& body) {
  if (ranks < 1) throw std::invalid_argument("run_local_ranks: ranks must be >= 1");
  Shared shared(ranks);
  std::vector<std::exception_ptr> errors(ranks);
  std::vector<char> left(ranks, 0);  // the rank failed because another did
  std::vector<std::thread> threads;
  threads.reserve(ranks);
  for (int r = 0; r < ranks; ++r) {
    threads.emplace_back([&, r] {
      LocalTransport transport(shared, r, ranks);
      try {
        body(transport);
        shared.sync.arrive_and_drop();
      } catch (const RankLeft&) {
        left[r] = 1;
        shared.sync.arrive_and_drop();
      } catch (...) {
        errors[r] = std::current_exception();
        {
          std::lock_guard lock(shared.mutex);
          shared.failed = true;
        }
        shared.arrived.notify_all();  // a rank waiting for its messages leaves too
        shared.sync.arrive_and_drop();
      }
    });
  }
  for (std::thread& t : threads) t.join();
  for (const std::exception_ptr& e : errors)
    if (e) std::rethrow_exception(e);
  for (char l : left)
    if (l) throw std::logic_error("run_local_ranks: a rank left without an error");
}

}  // namespace etdem::distributed
