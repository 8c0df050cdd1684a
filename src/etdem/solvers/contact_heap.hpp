// The priority queue of the heap-ordered solvers (etm, etm-priority, sqm): contacts keyed by a
// number (u_n, a mass-weighted u_n, or -W), smallest first, ties broken by contact index so the
// order is deterministic.
//
// Lazy deletion: re-keying a contact bumps its version and pushes a new entry; entries of an
// older version are skipped when they come up. Every impulse re-keys all contacts of two bodies,
// so stale entries pile up; past 4 n + 64 entries they are dropped and the heap rebuilt, which
// keeps its memory proportional to the island. At most one entry per contact is current (it was
// pushed after the last bump), and the order of current entries is a strict total order on
// (key, contact), so pruning never changes which contact comes next.
//
// std::push_heap / pop_heap rather than an indexed heap with decrease-key: re-keying is a push
// (O(log n)) and the stale entries cost one comparison each when they surface.
#pragma once

#include <algorithm>
#include <cstddef>
#include <vector>

namespace etdem {

class ContactHeap {
 public:
  struct Entry {
    double key;
    int contact;
    int version;
  };

  /// Empties the heap and sets every contact's version to 0, for `contacts` contacts.
  void reset(std::size_t contacts) {
    heap_.clear();
    version_.assign(contacts, 0);
  }
  /// Drops every entry (versions are kept: entries pushed later stay valid).
  void clear() { heap_.clear(); }
  bool empty() const { return heap_.empty(); }

  /// Makes every entry of contact i stale.
  void touch(int i) { ++version_[i]; }
  /// Adds contact i with `key` at its current version (after a touch(), the only current one).
  void push(int i, double key) {
    heap_.push_back({key, i, version_[i]});
    std::push_heap(heap_.begin(), heap_.end(), Greater{});
    if (heap_.size() > 4 * version_.size() + 64) prune();
  }
  /// Adds contact i without restoring the heap order: call make() after a run of these.
  void append(int i, double key) { heap_.push_back({key, i, version_[i]}); }
  void make() { std::make_heap(heap_.begin(), heap_.end(), Greater{}); }

  /// The current entry with the smallest key, removed; false when none is left.
  bool pop(Entry& out) {
    while (!heap_.empty()) {
      std::pop_heap(heap_.begin(), heap_.end(), Greater{});
      out = heap_.back();
      heap_.pop_back();
      if (out.version == version_[out.contact]) return true;
    }
    return false;
  }
  /// Like pop(), but only if the smallest current key is <= limit.
  bool pop_if_at_most(double limit, Entry& out) {
    while (!heap_.empty()) {
      const Entry& front = heap_.front();
      if (front.version != version_[front.contact]) {
        std::pop_heap(heap_.begin(), heap_.end(), Greater{});
        heap_.pop_back();
        continue;
      }
      if (!(front.key <= limit)) return false;
      return pop(out);
    }
    return false;
  }

 private:
  // std heap functions build a max-heap on `less`; greater-than gives the smallest key first.
  struct Greater {
    bool operator()(const Entry& x, const Entry& y) const {
      return x.key > y.key || (x.key == y.key && x.contact > y.contact);
    }
  };
  void prune() {
    std::erase_if(heap_, [&](const Entry& e) { return e.version != version_[e.contact]; });
    make();
  }

  std::vector<Entry> heap_;
  std::vector<int> version_;  // per contact
};

}  // namespace etdem
