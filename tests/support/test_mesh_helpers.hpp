// Small triangle meshes and mesh files for the mesh tests.
#pragma once

#include <array>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include <unistd.h>
#include <vector>

#include "etdem/core/math.hpp"

namespace etdem::test {

struct SimpleMesh {
  std::vector<Vec3> v;
  std::vector<std::array<int, 3>> t;
};

/// Axis-aligned box [lo, hi], 12 triangles, normals outward.
inline SimpleMesh box_mesh(const Vec3& lo, const Vec3& hi) {
  SimpleMesh m;
  for (int k = 0; k < 8; ++k)
    m.v.push_back(Vec3(k & 1 ? hi.x() : lo.x(), k & 2 ? hi.y() : lo.y(), k & 4 ? hi.z() : lo.z()));
  // Quads counter-clockwise from outside, each split in two.
  const int q[6][4] = {{0, 2, 3, 1}, {4, 5, 7, 6}, {0, 1, 5, 4},
                       {2, 6, 7, 3}, {0, 4, 6, 2}, {1, 3, 7, 5}};
  for (const auto& f : q) {
    m.t.push_back({f[0], f[1], f[2]});
    m.t.push_back({f[0], f[2], f[3]});
  }
  return m;
}

/// A flat floor z = h over [lo, hi] split into n x n squares of two triangles each, normal +z.
inline SimpleMesh floor_mesh(double lo, double hi, int n, double h = 0.0) {
  SimpleMesh m;
  for (int j = 0; j <= n; ++j)
    for (int i = 0; i <= n; ++i)
      m.v.push_back(Vec3(lo + (hi - lo) * i / n, lo + (hi - lo) * j / n, h));
  auto id = [&](int i, int j) { return j * (n + 1) + i; };
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < n; ++i) {
      m.t.push_back({id(i, j), id(i + 1, j), id(i + 1, j + 1)});
      m.t.push_back({id(i, j), id(i + 1, j + 1), id(i, j + 1)});
    }
  return m;
}

inline std::string temp_path(const std::string& name) {
  // One directory per process: ctest runs test programs side by side.
  const auto dir =
      std::filesystem::temp_directory_path() / ("etdem_mesh_tests_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  return (dir / name).string();
}

inline void write_ascii_stl(const std::string& path, const SimpleMesh& m) {
  std::ofstream f(path);
  f.precision(17);
  f << "solid test\n";
  for (const auto& t : m.t) {
    const Vec3 n = (m.v[t[1]] - m.v[t[0]]).cross(m.v[t[2]] - m.v[t[0]]).normalized();
    f << " facet normal " << n.x() << " " << n.y() << " " << n.z() << "\n  outer loop\n";
    for (int k : t)
      f << "   vertex " << m.v[k].x() << " " << m.v[k].y() << " " << m.v[k].z() << "\n";
    f << "  endloop\n endfacet\n";
  }
  f << "endsolid test\n";
}

inline void write_binary_stl(const std::string& path, const SimpleMesh& m) {
  std::ofstream f(path, std::ios::binary);
  char header[80] = "binary stl written by the etdem tests";
  f.write(header, 80);
  const std::uint32_t n = static_cast<std::uint32_t>(m.t.size());
  f.write(reinterpret_cast<const char*>(&n), 4);
  for (const auto& t : m.t) {
    const Vec3 nn = (m.v[t[1]] - m.v[t[0]]).cross(m.v[t[2]] - m.v[t[0]]).normalized();
    float x[12];
    for (int c = 0; c < 3; ++c) x[c] = static_cast<float>(nn[c]);
    for (int k = 0; k < 3; ++k)
      for (int c = 0; c < 3; ++c) x[3 + 3 * k + c] = static_cast<float>(m.v[t[k]][c]);
    f.write(reinterpret_cast<const char*>(x), sizeof x);
    const std::uint16_t attr = 0;
    f.write(reinterpret_cast<const char*>(&attr), 2);
  }
}

inline void write_obj(const std::string& path, const SimpleMesh& m) {
  std::ofstream f(path);
  f.precision(17);
  for (const Vec3& v : m.v) f << "v " << v.x() << " " << v.y() << " " << v.z() << "\n";
  for (const auto& t : m.t) f << "f " << t[0] + 1 << " " << t[1] + 1 << " " << t[2] + 1 << "\n";
}

}  // namespace etdem::test
