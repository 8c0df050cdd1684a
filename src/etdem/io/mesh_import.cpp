#include "etdem/io/mesh_import.hpp"

#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <map>
#include <stdexcept>
#include <vector>

#include <fmt/format.h>

namespace etdem {

namespace {

using Point = std::array<float, 3>;

/// Joins corners at exactly the same position (first appearance order) into a MeshData.
class Welder {
 public:
  explicit Welder(const MeshImportOptions& o) : options_(o) {}
  void add(const Point& a, const Point& b, const Point& c) {
    out_.triangles.push_back({id(a), id(b), id(c)});
  }
  MeshData take() { return std::move(out_); }

 private:
  int id(const Point& p) {
    const auto [it, fresh] = index_.insert({p, static_cast<int>(out_.vertices.size())});
    if (fresh) out_.vertices.push_back(options_.scale * Vec3(p[0], p[1], p[2]) + options_.offset);
    return it->second;
  }
  const MeshImportOptions& options_;
  std::map<Point, int> index_;
  MeshData out_;
};

/// A coordinate read as a double and stored in single precision (as STL stores them).
float coordinate(TextCursor& c, std::string_view what) {
  const double v = c.number(what);
  const float f = static_cast<float>(v);
  if (!std::isfinite(f)) c.fail(fmt::format("{} {} is too large for single precision", what, v));
  return f;
}

MeshData parse_ascii_stl(std::string_view text, const MeshImportOptions& options) {
  TextCursor c(text);
  Welder weld(options);
  while (!c.at_end()) {
    c.expect("solid", true);
    c.rest_of_line();  // the solid's name
    for (;;) {
      const std::string_view t = c.token();
      if (iequals(t, "endsolid")) {
        c.rest_of_line();
        break;
      }
      if (t.empty()) c.fail("the file ends inside a solid: no 'endsolid' (a truncated file?)");
      if (!iequals(t, "facet")) c.fail_found("'facet' or 'endsolid'", t);
      c.expect("normal", true);
      for (int k = 0; k < 3; ++k) (void)c.any_number("a normal coordinate");
      c.expect("outer", true);
      c.expect("loop", true);
      Point p[3];
      for (auto& q : p) {
        c.expect("vertex", true);
        for (float& x : q) x = coordinate(c, "a vertex coordinate (3 per vertex)");
      }
      c.expect("endloop", true);
      c.expect("endfacet", true);
      weld.add(p[0], p[1], p[2]);
    }
  }
  return weld.take();
}

MeshData parse_binary_stl(std::string_view bytes, const MeshImportOptions& options) {
  if (bytes.size() < 84) throw std::invalid_argument("a binary STL needs at least 84 bytes");
  std::uint32_t n = 0;
  const auto* u = reinterpret_cast<const unsigned char*>(bytes.data() + 80);
  n = std::uint32_t{u[0]} | std::uint32_t{u[1]} << 8 | std::uint32_t{u[2]} << 16 |
      std::uint32_t{u[3]} << 24;
  if (bytes.size() != 84 + 50 * std::uint64_t{n})
    throw std::invalid_argument(
        fmt::format("the header declares {} triangles, which take {} bytes, but the file has {} "
                    "bytes (truncated, or bytes added)",
                    n, 84 + 50 * std::uint64_t{n}, bytes.size()));
  Welder weld(options);
  for (std::uint32_t t = 0; t < n; ++t) {
    const char* rec = bytes.data() + 84 + 50 * std::size_t{t};
    Point p[3];
    for (int k = 0; k < 3; ++k)
      for (int a = 0; a < 3; ++a) {
        std::uint32_t bits = 0;
        const auto* b = reinterpret_cast<const unsigned char*>(rec + 12 + 12 * k + 4 * a);
        bits = std::uint32_t{b[0]} | std::uint32_t{b[1]} << 8 | std::uint32_t{b[2]} << 16 |
               std::uint32_t{b[3]} << 24;
        std::memcpy(&p[k][a], &bits, 4);
        if (!std::isfinite(p[k][a]))
          throw std::invalid_argument(
              fmt::format("triangle {} has a non-finite vertex coordinate", t));
      }
    weld.add(p[0], p[1], p[2]);
  }
  return weld.take();
}

/// One corner "v", "v/vt", "v//vn" or "v/vt/vn" of an OBJ face: the vertex index, 0-based.
/// Negative indices count back from the last vertex read so far.
[[noreturn]] void fail_at(int line, const std::string& message) {
  throw std::invalid_argument(fmt::format("line {}: {}", line, message));
}

long long obj_corner(int line, std::string_view ref, std::size_t vertices_so_far) {
  const std::string_view v = ref.substr(0, ref.find('/'));
  long long i = 0;
  const auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), i);
  if (v.empty() || end != v.data() + v.size() || ec != std::errc() || i == 0)
    fail_at(line,
            fmt::format("a face corner must start with a vertex number (1, 2, ... or -1, -2, ...), "
                        "found '{}'",
                        printable(ref, 30)));
  if (i < 0) {
    if (static_cast<unsigned long long>(-i) > vertices_so_far)
      fail_at(line, fmt::format("face corner {} refers to a vertex before the first", i));
    return static_cast<long long>(vertices_so_far) + i;
  }
  return i - 1;
}

MeshData parse_obj(std::string_view text, const MeshImportOptions& options) {
  TextCursor c(text);
  std::vector<Point> v;
  struct Face {
    std::array<long long, 3> corner;
    int line;
  };
  std::vector<Face> faces;
  std::vector<long long> poly;
  while (!c.at_end()) {
    const int line = c.line();
    const std::string_view kw = c.token();
    if (kw.starts_with('#')) {
      c.rest_of_line();
      continue;
    }
    if (kw == "v") {
      // x y z, then an optional weight or colour (checked to be numbers, dropped).
      TextCursor rest(c.rest_of_line());
      std::vector<std::string_view> tokens;
      while (!rest.at_end() && tokens.size() < 8) tokens.push_back(rest.token());
      if (tokens.size() < 3 || tokens.size() > 7)
        fail_at(line, fmt::format("a vertex holds 3 to 7 numbers (x y z first), found {}{}",
                                  tokens.size(), tokens.size() > 7 ? " or more" : ""));
      Point p;
      for (std::size_t k = 0; k < tokens.size(); ++k) {
        std::string_view t = tokens[k];
        if (t.starts_with('+')) t.remove_prefix(1);
        double x = 0.0;
        const auto [end, ec] = std::from_chars(t.data(), t.data() + t.size(), x);
        if (t.empty() || end != t.data() + t.size() || ec != std::errc() || !std::isfinite(x))
          fail_at(line, fmt::format("a vertex holds finite numbers, found '{}'",
                                    printable(tokens[k], 30)));
        if (k < 3) {
          p[k] = static_cast<float>(x);
          if (!std::isfinite(p[k]))
            fail_at(line, fmt::format("vertex coordinate {} is too large for single precision", x));
        }
      }
      v.push_back(p);
    } else if (kw == "f") {
      TextCursor rest(c.rest_of_line());
      poly.clear();
      while (!rest.at_end()) poly.push_back(obj_corner(line, rest.token(), v.size()));
      if (poly.size() < 3)
        fail_at(line, fmt::format("a face needs 3 corners or more, found {}", poly.size()));
      for (std::size_t k = 1; k + 1 < poly.size(); ++k)
        faces.push_back({{poly[0], poly[k], poly[k + 1]}, line});
    } else if (kw == "vt" || kw == "vn" || kw == "vp" || kw == "o" || kw == "g" || kw == "s" ||
               kw == "usemtl" || kw == "mtllib" || kw == "l" || kw == "p") {
      c.rest_of_line();  // texture, normals, groups, materials (never opened), lines, points
    } else {
      c.fail(
          fmt::format("'{}' is not an OBJ statement etdem reads (v, f; vt, vn, vp, o, g, s, "
                      "usemtl, mtllib, l, p are skipped)",
                      printable(kw, 30)));
    }
  }
  Welder weld(options);
  for (const Face& f : faces) {
    for (long long k : f.corner)
      if (k >= static_cast<long long>(v.size()))
        throw std::invalid_argument(
            fmt::format("line {}: a face refers to vertex {}, the file has {} vertices", f.line,
                        k + 1, v.size()));
    weld.add(v[f.corner[0]], v[f.corner[1]], v[f.corner[2]]);
  }
  return weld.take();
}

}  // namespace

MeshData parse_surface_mesh(std::string_view bytes, MeshFormat format,
                            const MeshImportOptions& options) {
  switch (format) {
    case MeshFormat::StlAscii:
      return parse_ascii_stl(bytes, options);
    case MeshFormat::StlBinary:
      return parse_binary_stl(bytes, options);
    case MeshFormat::Obj:
      return parse_obj(bytes, options);
    default:
      throw std::invalid_argument(
          fmt::format("{} holds a volume mesh; a surface (.stl or .obj) is needed here",
                      mesh_format_name(format)));
  }
}

MeshData import_mesh(const std::string& path, const MeshImportOptions& options) {
  auto fail = [&](const std::string& why) {
    throw std::runtime_error(fmt::format("{}: {}", printable(path, 200), why));
  };
  if (!(std::isfinite(options.scale) && options.scale > 0.0)) fail("scale must be finite and > 0");
  if (!options.offset.allFinite()) fail("offset must be finite");
  const std::string bytes = read_mesh_file(path);
  MeshData out;
  try {
    const MeshFormat format = sniff_mesh_format(bytes);
    check_mesh_extension(path, format);
    out = parse_surface_mesh(bytes, format, options);
  } catch (const std::invalid_argument& e) {
    fail(e.what());
  }
  if (out.triangles.empty()) fail("the file holds no triangle");
  return out;
}

}  // namespace etdem
