#include "etdem/io/state_csv.hpp"

#include <cstdio>
#include <fstream>
#include <sstream>

#include <fmt/format.h>

#include "etdem/io/scenario_error.hpp"
#include "etdem/world/world.hpp"

namespace etdem {

const char* const kStateCsvHeader =
    "id,x,y,z,qw,qx,qy,qz,vx,vy,vz,wx,wy,wz,shape,radius,hx,hy,hz,shape_name";

void write_state_csv(const std::string& path, const World& world) {
  const Bodies& b = world.bodies;
  const ShapeTable& shapes = world.shapes;
  fmt::memory_buffer out;
  fmt::format_to(std::back_inserter(out), "{}\n", kStateCsvHeader);
  for (int i = 0; i < b.count(); ++i) {
    if (!b.is_dynamic(i)) continue;
    const int s = b.shape[i];
    const Vec3& x = b.position[i];
    const Quat& q = b.orientation[i];
    const Vec3& v = b.velocity[i];
    const Vec3& w = b.angular_velocity[i];
    // A ball's radius, else the bounding radius; a box's half extents, else zero.
    const double r = shapes.is_ball(s) ? shapes.ball_radius(s) : shapes.bounding_radius[s];
    const auto half_extents = shapes.kind(s).half_extents;
    const Vec3 h = half_extents ? half_extents(shapes, s) : Vec3::Zero();
    fmt::format_to(std::back_inserter(out),
                   "{},{:.17g},{:.17g},{:.17g},{:.17g},{:.17g},{:.17g},{:.17g},{:.17g},{:.17g},"
                   "{:.17g},{:.17g},{:.17g},{:.17g},{},{:.17g},{:.17g},{:.17g},{:.17g},{}\n",
                   i, x.x(), x.y(), x.z(), q.w(), q.x(), q.y(), q.z(), v.x(), v.y(), v.z(), w.x(),
                   w.y(), w.z(), shape_type_name(shapes.type[s]), r, h.x(), h.y(), h.z(),
                   shapes.name[s]);
  }
  std::FILE* f = std::fopen(path.c_str(), "w");
  if (!f) throw InputError(path + ": cannot open for writing");
  const std::size_t n = std::fwrite(out.data(), 1, out.size(), f);
  std::fclose(f);
  if (n != out.size()) throw InputError(path + ": write failed (disk full?)");
}

std::vector<double> StateTable::top_offsets() const {
  std::vector<double> out(size());
  for (std::size_t k = 0; k < size(); ++k) {
    if (shape[k] != "box") {
      out[k] = radius[k];
      continue;
    }
    // Support of the box along +z: sum over body axes of |h_a (R e_a) . z|.
    const Mat3 r = orientation[k].toRotationMatrix();
    out[k] = (half_extents[k].array() * r.row(2).transpose().array().abs()).sum();
  }
  return out;
}

StateTable read_state_csv(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw InputError(path + ": cannot open (is this a run directory?)");
  std::string line;
  if (!std::getline(in, line) || line.rfind("id,x,y,z,qw,qx,qy,qz", 0) != 0)
    throw InputError(path + ":1: unexpected header (expected " + kStateCsvHeader + ")");
  // 14 columns (positions and velocities only), 19 (with the shape type and size, as written
  // before shape_name was added) or all 20.
  const std::string header = kStateCsvHeader;
  const std::string with_type = header.substr(0, header.rfind(",shape_name"));
  const bool named = line == kStateCsvHeader;
  const bool full = named || line == with_type;
  const std::size_t columns = named ? 20 : full ? 19 : 14;
  StateTable t;
  int ln = 1;
  while (std::getline(in, line)) {
    ++ln;
    if (line.empty()) continue;
    std::vector<std::string> cells;
    std::istringstream ss(line);
    for (std::string c; std::getline(ss, c, ',');) cells.push_back(c);
    if (cells.size() < 14 || (full && cells.size() != columns))
      throw InputError(
          fmt::format("{}:{}: expected {} columns, got {}", path, ln, columns, cells.size()));
    double v[19] = {};
    for (std::size_t k = 0; k < cells.size() && k < 19; ++k) {
      if (k == 14) continue;  // shape name
      char* end = nullptr;
      v[k] = std::strtod(cells[k].c_str(), &end);
      if (end == cells[k].c_str())
        throw InputError(fmt::format("{}:{}: column {} is not a number", path, ln, k + 1));
    }
    t.id.push_back(static_cast<long>(v[0]));
    t.position.emplace_back(v[1], v[2], v[3]);
    t.orientation.emplace_back(v[4], v[5], v[6], v[7]);
    t.velocity.emplace_back(v[8], v[9], v[10]);
    t.angular_velocity.emplace_back(v[11], v[12], v[13]);
    t.shape.push_back(full ? cells[14] : "sphere");
    t.radius.push_back(v[15]);
    t.half_extents.emplace_back(v[16], v[17], v[18]);
    t.shape_name.push_back(named ? cells[19] : "");
  }
  return t;
}

}  // namespace etdem
