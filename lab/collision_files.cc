#include "lab/collision_files.h"

#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <mutex>
#include <set>
#include <sstream>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "framework/internal/read_file.h"
#include "framework/kinematics.h"
#include "framework/mjcf_loader.h"

namespace iklab {

namespace {

using nlohmann::json;

constexpr const char* kMatrixFormat = "iklab-self-collision-matrix";

[[noreturn]] void CollisionFileFail(const std::string& source, const std::string& where,
                       const std::string& what) {
  throw std::invalid_argument(source + ": " + where +
                              (where.empty() ? "" : ": ") + what);
}

std::string CollisionFileFolder(const std::string& path) {
  const auto slash = path.find_last_of('/');
  if (slash == std::string::npos) return ".";
  return slash == 0 ? "/" : path.substr(0, slash);
}

json CollisionParseJson(const std::string& text, const std::string& source) {
  try {
    return json::parse(text);
  } catch (const json::exception& e) {  // parse errors, number overflow
    // JSON has no NaN or infinity, so such a value is a parse error (a
    // literal) or an overflow (1e999); say so, not only where.
    const bool non_finite = text.find("NaN") != std::string::npos ||
                            text.find("nan") != std::string::npos ||
                            text.find("Infinity") != std::string::npos ||
                            dynamic_cast<const json::out_of_range*>(&e);
    CollisionFileFail(
        source, "",
        std::string("not valid JSON (") + e.what() + ")" +
            (non_finite ? "; JSON has no NaN or infinity: every number must "
                          "be finite"
                        : ""));
  }
}

// A finite number under `key`.
double CollisionJsonNumber(const json& object, const char* key, const std::string& source,
              const std::string& where) {
  if (!object.contains(key)) {
    CollisionFileFail(source, where, std::string("no \"") + key + "\"");
  }
  const json& v = object[key];
  if (!v.is_number() || !std::isfinite(v.get<double>())) {
    CollisionFileFail(source, where,
         std::string("\"") + key + "\" must be a finite number; got " +
             v.dump());
  }
  return v.get<double>();
}

// `n` finite numbers under `key`.
Eigen::VectorXd CollisionJsonNumbers(const json& object, const char* key, int n,
                        const std::string& source, const std::string& where) {
  if (!object.contains(key)) {
    CollisionFileFail(source, where, std::string("no \"") + key + "\"");
  }
  const json& v = object[key];
  bool ok = v.is_array() && static_cast<int>(v.size()) == n;
  for (std::size_t i = 0; ok && i < v.size(); ++i) {
    ok = v[i].is_number() && std::isfinite(v[i].get<double>());
  }
  if (!ok) {
    CollisionFileFail(source, where,
         std::string("\"") + key + "\" must be " + std::to_string(n) +
             " finite numbers; got " + v.dump());
  }
  Eigen::VectorXd out(n);
  for (int i = 0; i < n; ++i) out[i] = v[i].get<double>();
  return out;
}

double CollisionJsonPositive(const json& object, const char* key, const std::string& source,
                const std::string& where) {
  const double x = CollisionJsonNumber(object, key, source, where);
  if (!(x > 0.0)) {
    CollisionFileFail(source, where,
         std::string("\"") + key + "\" must be > 0; got " + std::to_string(x));
  }
  return x;
}

WorldShape ParseObstacle(const json& e, int k, const std::string& source,
                         const std::string& folder) {
  std::string where = "element " + std::to_string(k);
  if (!e.is_object()) CollisionFileFail(source, where, "must be an object");
  WorldShape shape;
  shape.name = "obstacle" + std::to_string(k);
  if (e.contains("name")) {
    if (!e["name"].is_string()) CollisionFileFail(source, where, "\"name\" must be text");
    shape.name = e["name"].get<std::string>();
    where += " ('" + shape.name + "')";
  }
  if (!e.contains("type") || !e["type"].is_string()) {
    CollisionFileFail(source, where,
         "no \"type\"; expected sphere, capsule, cylinder, box or mesh");
  }
  const std::string type = e["type"].get<std::string>();
  std::set<std::string> allowed = {"name", "type", "position", "quaternion"};
  if (type == "sphere") {
    shape.shape = CollisionShape::Sphere(CollisionJsonPositive(e, "radius", source, where));
    allowed.insert("radius");
  } else if (type == "capsule" || type == "cylinder") {
    const double r = CollisionJsonPositive(e, "radius", source, where);
    const double h = CollisionJsonNumber(e, "half_length", source, where);
    if (!(type == "capsule" ? h >= 0.0 : h > 0.0)) {
      CollisionFileFail(source, where,
           "\"half_length\" must be " +
               std::string(type == "capsule" ? ">= 0" : "> 0") + "; got " +
               std::to_string(h));
    }
    shape.shape = type == "capsule" ? CollisionShape::Capsule(r, h)
                                    : CollisionShape::Cylinder(r, h);
    allowed.insert({"radius", "half_length"});
  } else if (type == "box") {
    const Eigen::Vector3d half = CollisionJsonNumbers(e, "half_extents", 3, source, where);
    if (!(half.array() > 0.0).all()) {
      CollisionFileFail(source, where, "\"half_extents\" must all be > 0");
    }
    shape.shape = CollisionShape::Box(half);
    allowed.insert("half_extents");
  } else if (type == "mesh") {
    if (!e.contains("file") || !e["file"].is_string()) {
      CollisionFileFail(source, where, "no \"file\" (an STL or OBJ mesh)");
    }
    std::string file = e["file"].get<std::string>();
    if (!file.empty() && file[0] != '/') file = folder + "/" + file;
    Eigen::Vector3d scale = Eigen::Vector3d::Ones();
    if (e.contains("scale")) {
      scale = CollisionJsonNumbers(e, "scale", 3, source, where);
      if (!(scale.array() > 0.0).all()) {
        CollisionFileFail(source, where, "\"scale\" must all be > 0");
      }
    }
    shape.shape = CollisionShape::Convex(
        LoadMeshHull(file, source + ": " + where, scale));
    allowed.insert({"file", "scale"});
  } else {
    CollisionFileFail(source, where,
         "unknown \"type\" '" + type +
             "'; expected sphere, capsule, cylinder, box or mesh");
  }
  for (const auto& item : e.items()) {
    if (!allowed.count(item.key())) {
      CollisionFileFail(source, where,
           "unknown key \"" + item.key() + "\" for a " + type);
    }
  }
  shape.X_WG.translation() = CollisionJsonNumbers(e, "position", 3, source, where);
  if (e.contains("quaternion")) {
    const Eigen::VectorXd q = CollisionJsonNumbers(e, "quaternion", 4, source, where);
    if (std::abs(q.norm() - 1.0) > 1e-6) {
      CollisionFileFail(source, where,
           "\"quaternion\" (w, x, y, z) must have unit length; its norm is " +
               std::to_string(q.norm()));
    }
    shape.X_WG.linear() =
        Eigen::Quaterniond(q[0], q[1], q[2], q[3]).normalized().toRotationMatrix();
  }
  shape.shape.Validate(source + ": " + where);
  return shape;
}

}  // namespace

std::vector<WorldShape> ParseObstacles(const std::string& text,
                                       const std::string& source,
                                       const std::string& folder) {
  const json root = CollisionParseJson(text, source);
  if (!root.is_array()) {
    CollisionFileFail(source, "", "expected a JSON list of obstacles ([{...}, ...])");
  }
  std::vector<WorldShape> out;
  for (std::size_t k = 0; k < root.size(); ++k) {
    out.push_back(ParseObstacle(root[k], static_cast<int>(k), source, folder));
  }
  return out;
}

std::vector<WorldShape> ReadObstacleFile(const std::string& path) {
  return ParseObstacles(internal::ReadFile(path, "an obstacle file (JSON)"),
                        path, CollisionFileFolder(path));
}

std::string SelfCollisionMatrixToJson(const SelfCollisionMatrix& matrix) {
  json pairs = json::array();
  for (const LinkPairEntry& e : matrix.pairs) {
    pairs.push_back({{"first", e.first},
                     {"second", e.second},
                     {"reason", CollisionPairReasonName(e.reason)},
                     {"collisions", e.collisions}});
  }
  const json root = {{"format", kMatrixFormat},
                     {"version", 1},
                     {"samples", matrix.samples},
                     {"seed", matrix.seed},
                     {"contact_distance", matrix.contact_distance},
                     {"pairs", pairs}};
  return root.dump(1) + "\n";
}

SelfCollisionMatrix SelfCollisionMatrixFromJson(const std::string& text,
                                                const std::string& source) {
  const json root = CollisionParseJson(text, source);
  if (!root.is_object() || root.value("format", "") != kMatrixFormat) {
    CollisionFileFail(source, "",
         std::string("not a self-collision matrix (expected \"format\": \"") +
             kMatrixFormat + "\")");
  }
  if (root.value("version", 0) != 1) {
    CollisionFileFail(source, "", "unsupported \"version\" (expected 1)");
  }
  SelfCollisionMatrix matrix;
  if (!root.contains("samples") || !root["samples"].is_number_integer() ||
      root["samples"].get<long long>() < 1) {
    CollisionFileFail(source, "", "\"samples\" must be an integer >= 1");
  }
  matrix.samples = root["samples"].get<int>();
  if (!root.contains("seed") || !root["seed"].is_number_unsigned()) {
    CollisionFileFail(source, "", "\"seed\" must be an unsigned integer");
  }
  matrix.seed = root["seed"].get<std::uint64_t>();
  matrix.contact_distance = CollisionJsonNumber(root, "contact_distance", source, "");
  if (!root.contains("pairs") || !root["pairs"].is_array()) {
    CollisionFileFail(source, "", "\"pairs\" must be a list");
  }
  for (std::size_t k = 0; k < root["pairs"].size(); ++k) {
    const json& e = root["pairs"][k];
    const std::string where = "pair " + std::to_string(k);
    if (!e.is_object() || !e.contains("first") || !e["first"].is_string() ||
        !e.contains("second") || !e["second"].is_string() ||
        !e.contains("reason") || !e["reason"].is_string()) {
      CollisionFileFail(source, where, "needs \"first\", \"second\" and \"reason\" (text)");
    }
    LinkPairEntry entry;
    entry.first = e["first"].get<std::string>();
    entry.second = e["second"].get<std::string>();
    try {
      entry.reason =
          CollisionPairReasonFromName(e["reason"].get<std::string>());
    } catch (const std::invalid_argument& error) {
      CollisionFileFail(source, where, error.what());
    }
    if (e.contains("collisions")) {
      if (!e["collisions"].is_number_integer() ||
          e["collisions"].get<long long>() < 0 ||
          e["collisions"].get<long long>() > matrix.samples) {
        CollisionFileFail(source, where, "\"collisions\" must be an integer in [0, samples]");
      }
      entry.collisions = e["collisions"].get<int>();
    }
    matrix.pairs.push_back(entry);
  }
  return matrix;
}

void WriteSelfCollisionMatrix(const SelfCollisionMatrix& matrix,
                              const std::string& path) {
  std::ofstream out(path, std::ios::binary);
  if (!out) throw std::invalid_argument(internal::CannotWrite(path));
  out << SelfCollisionMatrixToJson(matrix);
  out.flush();
  if (!out) throw std::invalid_argument(internal::CannotWrite(path));
}

SelfCollisionMatrix ReadSelfCollisionMatrix(const std::string& path) {
  return SelfCollisionMatrixFromJson(
      internal::ReadFile(path, "a self-collision matrix (JSON)"), path);
}

CollisionSetting ParseCollisionSetting(const std::string& text) {
  CollisionSetting setting;
  if (text.empty()) return setting;
  std::stringstream parts(text);
  std::string part;
  while (std::getline(parts, part, ',')) {
    if (part == "self") {
      setting.self = true;
    } else if (part.size() > 5 &&
               part.compare(part.size() - 5, 5, ".json") == 0 &&
               setting.obstacle_file.empty()) {
      setting.obstacle_file = part;
    } else {
      throw std::invalid_argument(
          "--collisions '" + text + "': '" + part +
          "' is neither 'self' nor an obstacle file (*.json); expected "
          "'self', 'OBSTACLES.json' or 'self,OBSTACLES.json'");
    }
  }
  return setting;
}

std::shared_ptr<ShapeCollisionGoal> CollisionSetup::MakeGoal(
    const Model& model, double weight) const {
  return std::make_shared<ShapeCollisionGoal>(model, shapes, obstacles,
                                              self_pairs, 0.0, weight);
}

CollisionSetup MakeCollisionSetup(
    const CollisionSetting& setting, const Model& model,
    const std::string& robot_file, bool mjcf,
    const SelfCollisionMatrixOptions& matrix_options) {
  CollisionSetup setup;
  setup.shapes = mjcf ? MjcfCollisionShapes(LoadMjcf(robot_file), model)
                      : LoadUrdfCollision(robot_file, model);
  if (setup.shapes.empty()) {
    throw std::invalid_argument(
        robot_file + ": no collision shapes on the loaded links (" +
        (mjcf ? "no colliding geoms" : "no <collision> elements") +
        "); add them, or drop --collisions");
  }
  if (!setting.matrix_file.empty() && !setting.self) {
    throw std::invalid_argument(
        "--collision-matrix " + setting.matrix_file +
        ": a self-collision matrix needs self-collisions; add 'self' to "
        "--collisions (e.g. --collisions self)");
  }
  if (setting.self && !setting.matrix_file.empty()) {
    setup.matrix = ReadSelfCollisionMatrix(setting.matrix_file);
    CheckSelfCollisionMatrix(setup.matrix, model, setup.shapes,
                             setting.matrix_file);
    setup.self_pairs = setup.matrix.EnabledPairs();
  } else if (setting.self) {
    setup.matrix = ComputeSelfCollisionMatrix(model, setup.shapes,
                                              matrix_options);
    setup.self_pairs = setup.matrix.EnabledPairs();
  }
  if (!setting.obstacle_file.empty()) {
    setup.obstacles = ReadObstacleFile(setting.obstacle_file);
  }
  return setup;
}

std::shared_ptr<const CollisionSetup> RobotCollisions(
    const Model& model, const std::string& robot_file,
    const CollisionSetting& setting, bool mjcf,
    const SelfCollisionMatrixOptions& matrix_options,
    const std::string& matrix_file) {
  std::string why;
  if (!matrix_options.IsValid(&why)) {
    throw std::invalid_argument("RobotCollisions: matrix_options: " + why);
  }
  // The key: everything the setup is a function of.
  std::error_code error;
  const auto modified = std::filesystem::last_write_time(robot_file, error);
  std::ostringstream key;
  key.precision(17);
  key << robot_file << '\n'
      << (error ? 0 : modified.time_since_epoch().count()) << '\n'
      << mjcf << setting.self << '\n'
      << setting.obstacle_file << '\n'
      << matrix_file << '\n'
      << matrix_options.samples << ' ' << matrix_options.seed << ' '
      << matrix_options.contact_distance << ' '
      << matrix_options.default_configuration.transpose() << '\n';
  for (int i = 0; i < model.num_links(); ++i) key << model.link_name(i) << ' ';
  static std::mutex mutex;
  static std::map<std::string, std::shared_ptr<const CollisionSetup>> cache;
  {
    const std::lock_guard<std::mutex> lock(mutex);
    const auto found = cache.find(key.str());
    if (found != cache.end()) return found->second;
  }
  // Built outside the lock (the matrix takes a while); a race builds twice
  // and keeps the first.
  CollisionSetting built = setting;
  if (!matrix_file.empty()) built.self = false;
  auto setup = std::make_shared<CollisionSetup>(
      MakeCollisionSetup(built, model, robot_file, mjcf, matrix_options));
  if (setting.self && !matrix_file.empty()) {
    setup->matrix = ReadSelfCollisionMatrix(matrix_file);
    CheckSelfCollisionMatrix(setup->matrix, model, setup->shapes, matrix_file);
    setup->self_pairs = setup->matrix.EnabledPairs();
  }
  const std::lock_guard<std::mutex> lock(mutex);
  return cache.emplace(key.str(), std::move(setup)).first->second;
}

double MinDistanceFcl(const Model& model, const CollisionSetup& setup,
                      const Eigen::VectorXd& q) {
  if (q.size() != model.nq()) {
    throw std::invalid_argument("MinDistanceFcl: q has " +
                                std::to_string(q.size()) +
                                " coordinates; the model has nq = " +
                                std::to_string(model.nq()));
  }
  Data data(model);
  ForwardKinematics(model, q, &data);
  AlignedVector<Eigen::Isometry3d> step_poses(model.num_steps());
  for (int step = 0; step < model.num_steps(); ++step) {
    step_poses[step] = data.X_W(step);
  }
  return MinDistanceFcl(model, setup, step_poses);
}

double MinDistanceFcl(const Model& model, const CollisionSetup& setup,
                      const AlignedVector<Eigen::Isometry3d>& step_poses) {
  const auto pose = [&](const LinkShape& s) -> Eigen::Isometry3d {
    return step_poses[model.link_step(model.LinkIndex(s.link))] * s.X_LG;
  };
  double best = std::numeric_limits<double>::infinity();
  for (const ShapeCollisionGoal::Pair& pair : ShapeCollisionPairs(
           model, setup.shapes, static_cast<int>(setup.obstacles.size()),
           setup.self_pairs)) {
    const LinkShape& a = setup.shapes[pair.first];
    if (pair.obstacle) {
      const WorldShape& o = setup.obstacles[pair.second];
      best = std::min(best,
                      ComputeShapeDistanceFcl(PreparedShape(a.shape), pose(a),
                                              PreparedShape(o.shape), o.X_WG)
                          .distance);
    } else {
      const LinkShape& b = setup.shapes[pair.second];
      best = std::min(best,
                      ComputeShapeDistanceFcl(PreparedShape(a.shape), pose(a),
                                              PreparedShape(b.shape), pose(b))
                          .distance);
    }
  }
  return best;
}

}  // namespace iklab
