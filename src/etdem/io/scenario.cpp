// The scenario loader: TOML tree -> overrides -> typed, range-checked plain data. Cross
// references (material and shape names, event targets, duplicate names) are resolved here; the
// geometric checks of the initial state live in scenario_check.cpp.
#include "etdem/io/scenario.hpp"
#include "etdem/io/scenario_tree.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <limits>
#include <map>
#include <stdexcept>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "etdem/io/fill.hpp"
#include "etdem/io/mesh_import.hpp"
#include "etdem/io/net_input.hpp"
#include "etdem/io/scenario_check.hpp"
#include "etdem/io/settings_schema.hpp"
#include "etdem/io/shape_kinds.hpp"
#include "etdem/io/terrain_import.hpp"
#include "etdem/io/toml_reader.hpp"
#include "etdem/shapes/terrain_build.hpp"
#include "etdem/world/world.hpp"

namespace etdem {
namespace {

/// Looks a name up in a list of named things; an unknown name is an error that lists the known.
template <class T>
int find_named(const TomlReader& r, std::string_view key, const std::vector<T>& items,
               std::string_view what) {
  const std::string name = r.string(key);
  std::vector<std::string> known;
  for (std::size_t i = 0; i < items.size(); ++i) {
    if (items[i].name == name) return static_cast<int>(i);
    known.push_back(fmt::format("'{}'", items[i].name));
  }
  r.fail(key, known.empty()
                  ? fmt::format("no {} is defined", what)
                  : fmt::format("unknown {} name (known: {})", what, fmt::join(known, ", ")));
}

class Parser {
 public:
  Parser(Scenario& sc, const TomlSource& src) : sc_(sc), src_(src) {}

  void parse(const toml::table& root) {
    TomlReader r(src_, root, "");
    auto sim = r.table("simulation");
    if (!sim) r.fail("simulation", "required table [simulation] is missing");
    simulation(*sim);
    for (auto& t : r.tables("material")) material(t);
    for (auto& t : r.tables("shape")) shape(t);
    for (auto& t : r.tables("body")) body(t);
    for (auto& t : r.tables("fill")) fill(t);
    solver_shapes(*sim);
    for (auto& t : r.tables("wall")) wall(t);
    for (auto& t : r.tables("net")) sc_.nets.push_back(read_net(t, sc_, nets_seen_));
    for (auto& t : r.tables("event")) event(t);
    if (auto out = r.table("output")) output(*out);
    r.finish();
    if (sc_.bodies.empty() && sc_.fills.empty() && sc_.nets.empty())
      throw ScenarioError(input_message(src_.file, 0, "body",
                                        "no [[body]] or [[fill]]: there is nothing to simulate"));
  }

 private:
  /// [simulation] and its sub-tables, through the settings schema; then the conditions that
  /// involve two keys.
  void simulation(const TomlReader& r) {
    read_settings(r, *find_simulation_table("simulation"), sc_);
    const WorldSettings& s = sc_.settings;
    if (sc_.duration / s.dt > 1e12) r.fail("duration", "more than 1e12 steps of dt");
    if (s.damping * s.dt > 1.0) r.fail("damping", "damping * dt must be in [0, 1] (Eq. 49)");
    if (auto pgs = r.table("pgs")) {
      read_settings(*pgs, *find_simulation_table("simulation.pgs"), sc_);
      pgs->finish();
    }
    for (const SolverInfo& info : solver_registry())
      if (auto t = r.table(info.settings_table)) {
        read_settings(*t, *find_simulation_table(fmt::format("simulation.{}", info.settings_table)),
                      sc_);
        t->finish();
      }
    r.finish();
  }

  /// Every body and fill must have a shape the solver handles (the jolt method: spheres, as
  /// particles). Checked here so the error names the file before anything is built.
  void solver_shapes(const TomlReader& sim) {
    const SolverInfo& info = *find_solver(sc_.settings.solver);
    auto check = [&](int shape, std::string_view what, int line) {
      const ShapeType type = sc_.shapes.type[shape];
      if (info.supports(type)) return;
      const std::string where =
          line > 0 ? fmt::format("{} (line {})", what, line) : std::string(what);
      sim.fail("solver", fmt::format("the {} method handles {} only; {} uses shape '{}' of type {}",
                                     info.name, supported_shapes_text(info), where,
                                     sc_.shapes.name[shape], shape_type_name(type)));
    };
    for (std::size_t i = 0; i < sc_.bodies.size(); ++i)
      check(sc_.bodies[i].shape, fmt::format("body[{}]", i), sc_.bodies[i].line);
    for (std::size_t i = 0; i < sc_.fills.size(); ++i)
      check(sc_.fills[i].shape, fmt::format("fill[{}]", i), sc_.fills[i].line);
  }

  void material(const TomlReader& r) {
    Material m;
    read_settings(r, material_schema(), m);
    if (m.name.empty()) r.fail("name", "must not be empty");
    if (!materials_seen_.insert(m.name).second) r.fail("name", "duplicate material name");
    if (m.rolling_friction > 0.0 && sc_.settings.resting != "pgs")
      r.fail("rolling_friction",
             fmt::format("acts in the resting pass only: needs simulation.resting = \"pgs\" "
                         "(it is \"{}\")",
                         sc_.settings.resting));
    r.finish();
    sc_.materials.push_back(m);
  }

  /// name and type here; the other keys by the shape type's reader (io/shape_kinds.cpp).
  void shape(const TomlReader& r) {
    ShapeSource src;
    src.line = r.line();
    const std::string name = unique_name(r, "name", shapes_seen_, "shape");
    const std::string type = r.string("type");
    const ShapeReader* reader = find_shape_reader(type);
    const std::string known = fmt::format("{}", fmt::join(shape_reader_names(), ", "));
    if (!reader && type == "mesh")
      r.fail("type",
             "a mesh is a static wall: use [[wall]] type = \"mesh\" (a body can take the "
             "hull of a mesh file: type = \"polyhedron\", file = ...)");
    if (!reader && type == "terrain")
      r.fail("type",
             "a terrain is a static wall: use [[wall]] type = \"terrain\" with a height map");
    if (!reader) r.fail("type", fmt::format("unknown shape type (known: {})", known));
    ShapeReadContext ctx{sc_.shapes, shapes_seen_, src_.file};
    reader->read(r, name, src, ctx);
    r.finish();
    // Hidden parts added on the way (a compound from a mesh) share the table's line.
    sc_.shape_sources.resize(sc_.shapes.size() - 1, ShapeSource{"", {}, src.line});
    sc_.shape_sources.push_back(std::move(src));
  }

  void body(const TomlReader& r) {
    BodySpec b;
    b.line = r.line();
    b.shape = read_shape_name(sc_.shapes, r, "shape");
    b.material = find_named(r, "material", sc_.materials, "material");
    b.position = r.vec3("position");
    if (b.position.cwiseAbs().maxCoeff() > kMaxCoordinate)
      r.fail("position", fmt::format("lies beyond {:g} m of the origin", kMaxCoordinate));
    b.orientation = r.unit_quaternion("orientation", b.orientation);
    b.velocity = r.vec3("velocity", b.velocity);
    b.angular_velocity = r.vec3("angular_velocity", b.angular_velocity);
    b.fixed = r.boolean("fixed", false);
    if (r.has("name")) b.name = unique_name(r, "name", bodies_seen_, "body or wall");
    r.finish();
    sc_.bodies.push_back(b);
  }

  void fill(const TomlReader& r) {
    FillSpec f;
    f.line = r.line();
    f.shape = read_shape_name(sc_.shapes, r, "shape");
    f.material = find_named(r, "material", sc_.materials, "material");
    f.count = r.integer("count");
    if (f.count < 1 || f.count > 100'000'000) r.fail("count", "must be in [1, 1e8]");
    auto region = r.table("region");
    if (!region) r.fail("region", "required key is missing ({ min = [..], max = [..] })");
    f.min = region->vec3("min");
    f.max = region->vec3("max");
    if (!(f.min.array() < f.max.array()).all())
      region->fail("max", "must exceed min on every axis");
    region->finish();
    const long seed = r.integer("seed", 1);
    if (seed < 0) r.fail("seed", "must be >= 0");
    f.seed = static_cast<std::uint64_t>(seed);
    const double size = 2.0 * sc_.shapes.bounding_radius[f.shape];
    f.spacing = r.number("spacing", 1.2 * size);
    if (!(f.spacing >= size))
      r.fail("spacing", fmt::format("must be >= the grain's bounding diameter {} m", size));
    f.jitter = r.number("jitter", f.jitter);
    if (f.jitter < 0.0 || f.jitter > 1.0) r.fail("jitter", "must be in [0, 1]");
    f.random_orientation = r.boolean("random_orientation", true);
    f.velocity = r.vec3("velocity", f.velocity);
    r.finish();
    const Eigen::Vector3i n = fill_lattice(f);
    if (fill_capacity(f) < f.count)
      r.fail("count", fmt::format("the region holds only {} x {} x {} = {} grains at spacing {} m",
                                  n[0], n[1], n[2], fill_capacity(f), f.spacing));
    sc_.fills.push_back(f);
  }

  void wall(const TomlReader& r) {
    WallSpec w;
    w.line = r.line();
    const std::string type = r.string("type");
    if (type == "plane") {
      w.type = WallSpec::Type::Plane;
      w.point = r.vec3("point");
      w.normal = r.vec3("normal");
      if (!(w.normal.norm() > 1e-12)) r.fail("normal", "must not be zero");
      w.normal.normalize();
    } else if (type == "box") {
      w.type = WallSpec::Type::Box;
      w.min = r.vec3("min");
      w.max = r.vec3("max");
      if (!(w.min.array() < w.max.array()).all()) r.fail("max", "must exceed min on every axis");
      w.closed = r.boolean("closed", false);
    } else if (type == "mesh") {
      w.type = WallSpec::Type::Mesh;
      if (const SolverInfo& info = *find_solver(sc_.settings.solver);
          !info.supports(ShapeType::Mesh))
        r.fail("type",
               fmt::format("the {} method handles {} only; a mesh wall needs another solver",
                           info.name, supported_shapes_text(info)));
      w.file = r.string("file");
      w.scale = r.number("scale", w.scale);
      if (!(w.scale > 0.0 && std::isfinite(w.scale))) r.fail("scale", "must be finite and > 0");
      w.offset = r.vec3("offset", w.offset);
      w.inward = r.boolean("inward", w.inward);
      const std::string path = resolve(w.file);
      MeshData data;
      try {
        data = import_mesh(path, {w.scale, w.offset});
      } catch (const std::runtime_error& e) {
        r.fail("file", e.what());
      }
      try {
        w.mesh = std::make_shared<const TriangleMesh>(TriangleMesh::build(
            data.vertices, data.triangles,
            w.inward ? TriangleMesh::Facing::Inward : TriangleMesh::Facing::Outward));
      } catch (const std::invalid_argument& e) {
        r.fail("file", fmt::format("{}: {}", path, e.what()));
      }
    } else if (type == "terrain") {
      terrain_wall(r, w);
    } else {
      r.fail("type", "unknown wall type (known: plane, box, mesh, terrain)");
    }
    w.material = find_named(r, "material", sc_.materials, "material");
    const std::string fallback =
        w.type == WallSpec::Type::Box
            ? (boxes_ == 0 ? "container" : fmt::format("container{}", boxes_))
            : fmt::format("wall{}", sc_.walls.size());
    w.name = r.has("name") ? r.string("name") : fallback;
    if (w.name.empty()) r.fail("name", "must not be empty");
    if (w.type == WallSpec::Type::Box) ++boxes_;
    // The wall's own name (a container is addressable as a whole) and every plane name.
    std::vector<std::string> names = wall_plane_names(w);
    if (w.type == WallSpec::Type::Box) names.push_back(w.name);
    for (const std::string& n : names)
      if (!bodies_seen_.insert(n).second)
        r.fail(r.has("name") ? "name" : "type", fmt::format("duplicate body or wall name '{}'", n));
    r.finish();
    sc_.walls.push_back(w);
  }

  /// [[wall]] type = "terrain": the height map read with GDAL (io/terrain_import.hpp), the
  /// band's spacing and width resolved from the raster and the grains, the band built.
  void terrain_wall(const TomlReader& r, WallSpec& w) {
    w.type = WallSpec::Type::Terrain;
    if (const SolverInfo& info = *find_solver(sc_.settings.solver);
        !info.supports(ShapeType::Terrain))
      r.fail("type", fmt::format("the {} method handles {} only; a terrain needs another solver",
                                 info.name, supported_shapes_text(info)));
    w.file = r.string("file");
    w.scale = r.number("scale", w.scale);
    if (!(std::isfinite(w.scale) && w.scale != 0.0)) r.fail("scale", "must be finite and not 0");
    w.offset = r.vec3("offset", w.offset);
    if (w.offset.cwiseAbs().maxCoeff() > kMaxCoordinate)
      r.fail("offset", fmt::format("lies beyond {:g} m of the origin", kMaxCoordinate));
    const long raster_band = r.integer("raster_band", 1);
    if (raster_band < 1 || raster_band > 65535) r.fail("raster_band", "must lie in [1, 65535]");
    w.raster_band = static_cast<int>(raster_band);
    HeightMapRequest req{resolve(w.file), w.raster_band, std::nullopt, w.scale, w.offset};
    if (r.has("crop")) {
      const std::vector<double> c = r.numbers("crop", 4);
      std::array<long, 4> window{};
      for (int k = 0; k < 4; ++k) {
        if (!(c[k] == std::floor(c[k]) && c[k] >= 0.0 && c[k] < 2e9))
          r.fail("crop",
                 "must be four whole numbers >= 0: [first column, first row, columns, rows]");
        window[k] = static_cast<long>(c[k]);
      }
      w.crop = req.crop = window;
    }
    HeightMap map;
    try {
      map = read_height_map(req);
    } catch (const HeightMapError& e) {
      r.fail(e.key, e.what());
    }
    for (const Vec3& corner : {Vec3(map.x0, map.y0, 0.0), Vec3(map.x_max(), map.y_max(), 0.0)})
      if (corner.cwiseAbs().maxCoeff() > kMaxCoordinate)
        r.fail("offset", fmt::format("the raster lies beyond {:g} m of the origin (its "
                                     "georeferenced position plus offset)",
                                     kMaxCoordinate));
    for (double z : map.z)
      if (std::abs(z) > kMaxCoordinate)
        r.fail("scale", fmt::format("a height of {:.3g} m lies beyond {:g} m", z, kMaxCoordinate));
    // Spacing: the raster's pixel (the surface holds no finer detail). Band: what the grains
    // need (docs/scenario.md): the largest grain's bounding radius plus what the fastest grain
    // can move in a step, its speed bounded by its start speed and a fall from its height to the
    // terrain's lowest point; by default just that.
    w.spacing = r.number("spacing", std::min(map.dx, map.dy));
    if (!(w.spacing > 0.0 && std::isfinite(w.spacing))) r.fail("spacing", "must be finite and > 0");
    double radius = 0.0, speed = 0.0;
    const WorldSettings& s = sc_.settings;
    const double g = s.gravity.norm();
    const Vec3 up = g > 0.0 ? Vec3(-s.gravity / g) : Vec3::UnitZ();
    double lowest = std::numeric_limits<double>::infinity();
    for (int c = 0; c < 8; ++c)
      lowest = std::min(lowest,
                        up.dot(Vec3((c & 1) ? map.x_max() : map.x0, (c & 2) ? map.y_max() : map.y0,
                                    (c & 4) ? *std::max_element(map.z.begin(), map.z.end())
                                            : *std::min_element(map.z.begin(), map.z.end()))));
    auto grain = [&](int shape, const Vec3& top, const Vec3& v, const Vec3& omega) {
      const double R = sc_.shapes.bounding_radius[shape];
      radius = std::max(radius, R);
      const double fall = std::max(0.0, up.dot(top) - lowest);
      speed = std::max(speed, std::sqrt(v.squaredNorm() + 2.0 * g * fall) + omega.norm() * R);
    };
    for (const BodySpec& b : sc_.bodies)
      if (!b.fixed) grain(b.shape, b.position, b.velocity, b.angular_velocity);
    for (const FillSpec& f : sc_.fills)
      for (int c = 0; c < 8; ++c)
        grain(f.shape,
              Vec3((c & 1) ? f.max.x() : f.min.x(), (c & 2) ? f.max.y() : f.min.y(),
                   (c & 4) ? f.max.z() : f.min.z()),
              f.velocity, Vec3::Zero());
    const double move = speed * s.dt;
    const double needed = radius + move;
    w.band = r.number("band", radius > 0.0 ? needed : 4.0 * w.spacing);
    if (!(w.band > 0.0 && std::isfinite(w.band))) r.fail("band", "must be finite and > 0");
    if (w.band < needed)
      r.fail("band",
             fmt::format("{} m is thinner than the largest grain's bounding radius {:.4g} m "
                         "plus what a step can move, {:.4g} m ({:.4g} m/s x dt)",
                         w.band, radius, move, speed));
    try {
      auto t = std::make_shared<Terrain>(build_terrain(std::move(map), {w.spacing, w.band}));
      t->source = req.path;
      w.terrain = std::move(t);
    } catch (const std::invalid_argument& e) {
      r.fail("spacing", e.what());
    }
  }

  void event(const TomlReader& r) {
    EventSpec e;
    e.line = r.line();
    e.time = r.number("time");
    if (e.time < 0.0) r.fail("time", "must be >= 0");
    e.remove = r.string("remove");
    if (!bodies_seen_.count(e.remove))
      r.fail("remove", "no wall, container or named body has this name");
    r.finish();
    sc_.events.push_back(e);
  }

  void output(const TomlReader& r) {
    read_settings(r, output_schema(), sc_.output);
    if (sc_.output.vtk_compression == OutputSettings::VtkCompression::Zlib &&
        sc_.output.vtk_format != OutputSettings::VtkFormat::Binary)
      r.fail("vtk_compression", "zlib compresses binary frames only (vtk_format = \"binary\")");
    r.finish();
  }

  /// A file named in the scenario: relative paths are relative to the scenario file's directory.
  std::string resolve(const std::string& file) const {
    return resolve_scenario_path(src_.file, file);
  }

  std::string unique_name(const TomlReader& r, std::string_view key, std::set<std::string>& seen,
                          std::string_view what) {
    std::string name = r.string(key);
    if (name.empty()) r.fail(key, "must not be empty");
    if (!seen.insert(name).second) r.fail(key, fmt::format("duplicate {} name", what));
    return name;
  }

  Scenario& sc_;
  const TomlSource& src_;
  std::set<std::string> materials_seen_, shapes_seen_, bodies_seen_, nets_seen_;
  int boxes_ = 0;
};

}  // namespace

Scenario parse_scenario_tree(toml::table& root, const std::string& file,
                             const std::vector<std::string>& overrides) {
  TomlSource src;
  src.file = file;
  for (const std::string& o : overrides) src.overridden.insert(apply_override(root, o, file));
  Scenario sc;
  sc.file = file;
  sc.stem = std::filesystem::path(file).stem().string();
  Parser(sc, src).parse(root);
  sc.content_hash = scenario_content_hash(root);
  return sc;
}

std::uint64_t scenario_content_hash(const toml::table& root) {
  // The tree as one TOML literal (tables sorted by key, floats in their shortest exact form),
  // without the keys a resumed run may change: the thread count (results are the same for any)
  // and how often checkpoints are written. FNV-1a over its bytes.
  toml::table tree = root;
  if (toml::table* sim = tree["simulation"].as_table()) sim->erase("threads");
  if (toml::table* out = tree["output"].as_table()) {
    out->erase("checkpoint_every");
    out->erase("checkpoint_keep");
  }
  std::uint64_t h = 14695981039346656037ull;
  for (const char c : toml_literal(tree)) {
    h ^= static_cast<unsigned char>(c);
    h *= 1099511628211ull;
  }
  return h;
}

Scenario load_scenario(const std::string& path, const std::vector<std::string>& overrides) {
  toml::table root = parse_toml_file(path);
  return parse_scenario_tree(root, path, overrides);
}

Scenario parse_scenario(const std::string& text, const std::string& file,
                        const std::vector<std::string>& overrides) {
  toml::table root = parse_toml_text(text, file);
  return parse_scenario_tree(root, file, overrides);
}

std::vector<BodyOrigin> build_world(const Scenario& sc, World& world) {
  world.settings = sc.settings;
  std::vector<int> material_id;
  for (const Material& m : sc.materials) material_id.push_back(world.add_material(m));
  // The scenario's shapes, built and checked by the loader, keep their indices in the world.
  world.shapes = sc.shapes;
  // A polyhedron's or compound's body frame is its principal frame; the orientation given in the
  // scenario turns the frame its vertices or parts were written in, so the body's is that times
  // the input rotation.
  auto turn = [&](const Quat& q, int s) {
    return (q * shape_kind(sc.shapes.type[s]).input_rotation(sc.shapes, s)).normalized();
  };
  std::vector<BodyOrigin> origin;
  for (std::size_t k = 0; k < sc.bodies.size(); ++k) {
    const BodySpec& b = sc.bodies[k];
    world.add_body(b.shape, material_id[b.material], b.position, turn(b.orientation, b.shape),
                   b.velocity, b.angular_velocity, b.fixed, b.name);
    origin.push_back({BodyOrigin::Kind::Body, static_cast<int>(k), 0});
  }
  for (std::size_t k = 0; k < sc.fills.size(); ++k) {
    const FillSpec& f = sc.fills[k];
    long grain = 0;
    for (const Placement& p : generate_fill(f, 2.0 * sc.shapes.bounding_radius[f.shape])) {
      world.add_body(f.shape, material_id[f.material], p.position, turn(p.orientation, f.shape),
                     f.velocity);
      origin.push_back({BodyOrigin::Kind::Fill, static_cast<int>(k), grain++});
    }
  }
  std::map<std::string, std::vector<int>> by_name;  // event targets
  for (int i = 0; i < world.bodies.count(); ++i)
    if (!world.bodies.name[i].empty()) by_name[world.bodies.name[i]].push_back(i);
  for (std::size_t k = 0; k < sc.walls.size(); ++k) {
    const WallSpec& w = sc.walls[k];
    const int m = material_id[w.material];
    const BodyOrigin from{BodyOrigin::Kind::Wall, static_cast<int>(k), 0};
    if (w.type == WallSpec::Type::Plane) {
      by_name[w.name].push_back(world.add_plane(w.point, w.normal, m, w.name));
      origin.push_back(from);
      continue;
    }
    if (w.type == WallSpec::Type::Mesh) {
      by_name[w.name].push_back(world.add_mesh(*w.mesh, m, w.name));
      origin.push_back(from);
      continue;
    }
    if (w.type == WallSpec::Type::Terrain) {
      by_name[w.name].push_back(world.add_terrain(w.terrain, m, w.name));
      origin.push_back(from);
      continue;
    }
    const std::vector<BoxPlane> planes = box_planes(w);
    for (std::size_t p = 0; p < planes.size(); ++p) {
      const int id = world.add_plane(planes[p].point, planes[p].normal, m, planes[p].name);
      by_name[planes[p].name].push_back(id);
      by_name[w.name].push_back(id);
      origin.push_back({BodyOrigin::Kind::Wall, static_cast<int>(k), static_cast<long>(p)});
    }
  }
  add_nets(sc, material_id, world, origin);
  for (const EventSpec& e : sc.events)
    for (int id : by_name.at(e.remove)) world.events.push_back({e.time, id});
  check_initial_overlaps(sc, world, origin);
  return origin;
}

}  // namespace etdem
