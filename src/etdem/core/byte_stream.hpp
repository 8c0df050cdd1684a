// Little binary streams for checkpoints (io/checkpoint.hpp): a writer that appends values to a
// byte string and a reader that takes them back in the same order, checking every read against
// the bytes left. Values are written as their bytes (host order, little endian: the VTK writer's
// static_assert), so a double comes back bit for bit.
#pragma once

#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "etdem/core/math.hpp"

namespace etdem {

/// Thrown by ByteReader when a read runs past the end or a count is implausible; the checkpoint
/// reader turns it into a one-line error naming the file and the section.
struct ByteStreamError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

class ByteWriter {
 public:
  ByteWriter() = default;
  /// A writer into `room`'s storage, emptied first: a string refilled often (a record written
  /// every step) keeps its allocation when it is taken back.
  explicit ByteWriter(std::string room) : bytes_(std::move(room)) { bytes_.clear(); }
  template <class T>
  requires std::is_arithmetic_v<T>
  void put(T value) {
    const char* p = reinterpret_cast<const char*>(&value);
    bytes_.append(p, sizeof(T));
  }
  void put(const Vec3& v) { put_bytes(v.data(), 3 * sizeof(double)); }  // x, y, z
  void put(const Quat& q) { put(q.w()), put(q.x()), put(q.y()), put(q.z()); }
  void put(std::string_view s) {
    put(static_cast<std::uint64_t>(s.size()));
    bytes_.append(s.data(), s.size());
  }
  void put(const char* s) { put(std::string_view(s)); }
  /// `n` bytes as they are (a block laid out by the caller, e.g. a record of fixed size).
  void put_bytes(const void* p, std::size_t n) { bytes_.append(static_cast<const char*>(p), n); }
  void put(const std::string& s) { put(std::string_view(s)); }
  /// A vector: its length, then each element through put() (numbers in one append: the same
  /// bytes).
  template <class T>
  void put(const std::vector<T>& values) {
    put(static_cast<std::uint64_t>(values.size()));
    if constexpr (std::is_arithmetic_v<T> && !std::is_same_v<T, bool>)  // (vector<bool>: bits)
      put_bytes(values.data(), values.size() * sizeof(T));
    else
      for (const T& v : values) put(v);
  }

  /// Room for `n` bytes in all without growing (a writer that was taken starts empty).
  void reserve(std::size_t n) { bytes_.reserve(n); }
  const std::string& bytes() const { return bytes_; }
  std::string take() { return std::move(bytes_); }
  /// Emptied, its room kept (a writer refilled often grows once, not from nothing each time).
  void clear() { bytes_.clear(); }
  /// A copy of the bytes at their own size, the writer emptied with its room kept: take() for
  /// a writer refilled often (a message per phase).
  std::string take_copy() {
    std::string copy = bytes_;
    bytes_.clear();
    return copy;
  }

 private:
  std::string bytes_;
};

class ByteReader {
 public:
  explicit ByteReader(std::string_view bytes) : bytes_(bytes) {}

  template <class T>
  requires std::is_arithmetic_v<T> T get() {
    need(sizeof(T));
    T value;
    std::memcpy(&value, bytes_.data() + pos_, sizeof(T));
    pos_ += sizeof(T);
    return value;
  }
  template <class T>
  requires std::is_arithmetic_v<T>
  void get(T& value) { value = get<T>(); }
  void get(Vec3& v) { std::memcpy(v.data(), take(3 * sizeof(double)).data(), 3 * sizeof(double)); }
  void get(Quat& q) {
    const double w = get<double>(), x = get<double>(), y = get<double>(), z = get<double>();
    q = Quat(w, x, y, z);
  }
  void get(std::string& s) {
    const std::uint64_t n = count(1);
    s.assign(bytes_.data() + pos_, n);
    pos_ += n;
  }
  /// A string written by ByteWriter::put(string), as a view into the bytes read (valid as long
  /// as they are), without a copy.
  std::string_view view() {
    const std::uint64_t n = count(1);
    const std::string_view s = bytes_.substr(pos_, n);
    pos_ += n;
    return s;
  }
  /// A vector written by ByteWriter::put(vector); `min_bytes` is the least an element takes, so
  /// a corrupted length is refused before anything is allocated.
  template <class T>
  void get(std::vector<T>& values, std::size_t min_bytes = 1) {
    const std::uint64_t n = count(min_bytes);
    values.resize(n);
    for (T& v : values) get(v);
  }
  /// A length followed by elements of at least `min_bytes` each, checked against the bytes left.
  std::uint64_t count(std::size_t min_bytes) {
    const auto n = get<std::uint64_t>();
    if (min_bytes > 0 && n > (bytes_.size() - pos_) / min_bytes)
      throw ByteStreamError("a count of " + std::to_string(n) + " exceeds the bytes left");
    return n;
  }

  /// The next `n` bytes as they are, as a view into the bytes read.
  std::string_view take(std::size_t n) {
    need(n);
    const std::string_view s = bytes_.substr(pos_, n);
    pos_ += n;
    return s;
  }

  bool done() const { return pos_ == bytes_.size(); }
  std::size_t left() const { return bytes_.size() - pos_; }

 private:
  void need(std::size_t n) const {
    if (bytes_.size() - pos_ < n) throw ByteStreamError("ends early");
  }
  std::string_view bytes_;
  std::size_t pos_ = 0;
};

/// A fixed record's fields laid into (Bytes = char*) or read from (const char*) one block of
/// bytes, each as its bytes, in the order a fields function visits them: one append or one
/// bounds check per record instead of one per field, and the layout written once for both
/// directions (a `fields(block, record)` template called with either block).
template <class Bytes>
struct FieldBlock {
  Bytes at;
  void field(const void* from, std::size_t n) requires std::is_same_v<Bytes, char*> {
    std::memcpy(at, from, n);
    at += n;
  }
  void field(void* to, std::size_t n) requires std::is_same_v<Bytes, const char*> {
    std::memcpy(to, at, n);
    at += n;
  }
};

}  // namespace etdem
