#include "lab/robot_target.h"

#include <cmath>
#include <filesystem>
#include <fstream>
#include <stdexcept>

#include <Eigen/Geometry>

#include "framework/figure_graph.h"
#include "framework/internal/read_file.h"
#include "framework/urdf_loader.h"
#include "lab/collision_files.h"

namespace iklab {

namespace {

bool EndsWith(const std::string& text, const std::string& suffix) {
  return text.size() >= suffix.size() &&
         text.compare(text.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// Floating joints of the model: the first coordinate of each run of six
// coordinates of one kFloating joint (tx ty tz rz ry rx, model.h).
std::vector<char> FloatingStarts(const Model& model) {
  std::vector<char> start(model.nq(), 0);
  const char* suffixes[6] = {".tx", ".ty", ".tz", ".rz", ".ry", ".rx"};
  for (int i = 0; i + 6 <= model.nq(); ++i) {
    bool floating = true;
    for (int k = 0; k < 6 && floating; ++k) {
      floating = model.dof_joint(i + k) == model.dof_joint(i) &&
                 model.dof_name(i + k) == model.dof_joint(i) + suffixes[k];
    }
    if (floating) {
      start[i] = 1;
      i += 5;
    }
  }
  return start;
}

void CheckRows(const Model& model, const std::vector<Eigen::VectorXd>& q,
               double frame_time, const char* who) {
  if (!(frame_time > 0.0) || !std::isfinite(frame_time)) {
    throw std::invalid_argument(std::string(who) +
                                ": frame_time must be > 0 seconds; got " +
                                std::to_string(frame_time));
  }
  for (std::size_t t = 0; t < q.size(); ++t) {
    if (q[t].size() != model.nq()) {
      throw std::invalid_argument(
          std::string(who) + ": row " + std::to_string(t) + " has " +
          std::to_string(q[t].size()) +
          " coordinates; the model has nq = " + std::to_string(model.nq()));
    }
  }
}

}  // namespace

bool IsRobotFile(const std::string& path) {
  return EndsWith(path, ".urdf") || EndsWith(path, ".xml");
}

Figure WithFloatingBase(const Figure& figure, const std::string& root_name,
                        const std::string& joint_name) {
  using Graph = FigureGraph::Graph;
  const Graph& g = figure.graph().graph;
  const std::size_t root = 0;  // figure_graph.h: the root is vertex 0
  if (boost::out_degree(root, g) == 1) {
    const auto edge = *boost::out_edges(root, g).first;
    if (g[edge].joint.kind == JointKind::kFloating) return figure;
  }
  for (std::size_t v = 0; v < boost::num_vertices(g); ++v) {
    if (g[v].name == root_name) {
      throw std::invalid_argument("WithFloatingBase: the new root link '" +
                                  root_name +
                                  "' is already a link of the "
                                  "figure");
    }
  }
  for (auto [e, end] = boost::edges(g); e != end; ++e) {
    if (g[*e].joint.name == joint_name) {
      throw std::invalid_argument("WithFloatingBase: the floating joint '" +
                                  joint_name +
                                  "' is already a joint of the "
                                  "figure");
    }
  }
  Figure floating(root_name);
  Joint base;
  base.name = joint_name;
  base.parent = root_name;
  base.child = figure.root_link();
  base.kind = JointKind::kFloating;
  floating.AddJoint(base);
  // Depth first from the old root, each link's joints in their order, so
  // that the compiled order of the old figure's steps is kept.
  std::vector<std::size_t> stack = {root};
  while (!stack.empty()) {
    const std::size_t v = stack.back();
    stack.pop_back();
    std::vector<std::size_t> children;
    for (auto [e, end] = boost::out_edges(v, g); e != end; ++e) {
      floating.AddJoint(g[*e].joint);
      children.push_back(boost::target(*e, g));
    }
    stack.insert(stack.end(), children.rbegin(), children.rend());
  }
  for (const Site& site : figure.sites()) floating.AddSite(site);
  for (const Mimic& mimic : figure.mimics()) floating.AddMimic(mimic);
  return floating;
}

RobotTarget LoadRobotTarget(const std::string& path) {
  RobotTarget target;
  target.path = path;
  Figure figure;
  if (EndsWith(path, ".urdf")) {
    UrdfFigure urdf = LoadUrdf(path);
    target.robot_name = urdf.robot_name;
    figure = std::move(urdf.figure);
  } else if (EndsWith(path, ".xml")) {
    target.mjcf = LoadMjcf(path);
    target.from_mjcf = true;
    target.robot_name = target.mjcf.model_name;
    figure = target.mjcf.figure;
  } else {
    throw std::invalid_argument(path +
                                ": a robot target is a URDF (.urdf) or MJCF "
                                "(.xml) file");
  }
  const Figure floating = WithFloatingBase(figure);
  target.model = std::make_shared<const Model>(floating.Compile());
  const Model& model = *target.model;
  const std::vector<char> starts = FloatingStarts(model);
  if (model.nq() >= 6 && starts[0]) target.floating_joint = model.dof_joint(0);
  if (model.nq() <= 6) {
    throw std::invalid_argument(path +
                                ": the robot has no joint coordinates "
                                "besides its floating base");
  }
  target.collision_shapes = target.from_mjcf
                                ? MjcfCollisionShapes(target.mjcf, model)
                                : LoadUrdfCollision(path, model);
  return target;
}

std::shared_ptr<const SelfCollisionMatrix> RobotSelfCollisionMatrix(
    const RobotTarget& target, const SelfCollisionMatrixOptions& options) {
  if (target.collision_shapes.empty()) return nullptr;
  CollisionSetting self;
  self.self = true;
  const std::shared_ptr<const CollisionSetup> setup = RobotCollisions(
      *target.model, target.path, self, target.from_mjcf, options);
  // Shares the cached setup's ownership, points at its matrix.
  return std::shared_ptr<const SelfCollisionMatrix>(setup, &setup->matrix);
}

std::vector<std::string> RobotTrajectoryColumns(const Model& model) {
  std::vector<std::string> columns = {"frame", "time"};
  const std::vector<char> starts = FloatingStarts(model);
  for (int i = 0; i < model.nq(); ++i) {
    if (!starts[i]) {
      columns.push_back(model.dof_name(i));
      continue;
    }
    for (const char* part : {".x", ".y", ".z", ".qw", ".qx", ".qy", ".qz"}) {
      columns.push_back(model.dof_joint(i) + part);
    }
    i += 5;
  }
  return columns;
}

void WriteRobotTrajectoryCsv(const Model& model,
                             const std::vector<Eigen::VectorXd>& q,
                             double frame_time, const std::string& path) {
  CheckRows(model, q, frame_time, "WriteRobotTrajectoryCsv");
  const std::vector<char> starts = FloatingStarts(model);
  std::ofstream csv(path);
  csv.precision(12);
  const std::vector<std::string> columns = RobotTrajectoryColumns(model);
  for (std::size_t c = 0; c < columns.size(); ++c) {
    csv << (c ? "," : "") << columns[c];
  }
  csv << "\n";
  // Previous quaternion per floating joint (for the hemisphere).
  std::vector<Eigen::Quaterniond> previous(model.nq());
  for (std::size_t t = 0; t < q.size(); ++t) {
    csv << t << "," << t * frame_time;
    for (int i = 0; i < model.nq(); ++i) {
      if (!starts[i]) {
        csv << "," << q[t][i];
        continue;
      }
      // R = Rz(rz) Ry(ry) Rx(rx) (joint.h, kFloating).
      Eigen::Quaterniond r(
          Eigen::AngleAxisd(q[t][i + 3], Eigen::Vector3d::UnitZ()) *
          Eigen::AngleAxisd(q[t][i + 4], Eigen::Vector3d::UnitY()) *
          Eigen::AngleAxisd(q[t][i + 5], Eigen::Vector3d::UnitX()));
      const double sign =
          t == 0 ? (r.w() < 0.0 ? -1.0 : 1.0)
                 : (r.coeffs().dot(previous[i].coeffs()) < 0.0 ? -1.0 : 1.0);
      r.coeffs() *= sign;
      previous[i] = r;
      csv << "," << q[t][i] << "," << q[t][i + 1] << "," << q[t][i + 2] << ","
          << r.w() << "," << r.x() << "," << r.y() << "," << r.z();
      i += 5;
    }
    csv << "\n";
  }
  csv.close();
  if (!csv) throw std::invalid_argument(internal::CannotWrite(path));
}

void WriteMujocoKeyframes(const RobotTarget& target,
                          const std::vector<Eigen::VectorXd>& q,
                          double frame_time, const std::string& path) {
  if (!target.from_mjcf || target.model == nullptr) {
    throw std::invalid_argument(
        "WriteMujocoKeyframes: " + target.path +
        " is not an MJCF model; MuJoCo keyframes need the MJCF file whose "
        "qpos they hold");
  }
  CheckRows(*target.model, q, frame_time, "WriteMujocoKeyframes");
  // MuJoCo resolves an include from the including file's folder (even an
  // absolute name is appended to it), so name the model relative to it.
  namespace fs = std::filesystem;
  const fs::path folder = fs::absolute(fs::path(path)).parent_path();
  const std::string model_file =
      fs::absolute(target.path)
          .lexically_normal()
          .lexically_relative(folder.lexically_normal())
          .generic_string();
  std::ofstream xml(path);
  xml.precision(17);
  xml << "<!-- " << q.size() << " frames of a retargeted motion of "
      << target.robot_name << " as MuJoCo keyframes (qpos in MuJoCo's "
      << "order), written by iklab retarget. Load this file with "
      << "mj_loadXML and set frame k with mj_resetDataKeyframe. -->\n"
      << "<mujoco model=\"" << target.robot_name << " keyframes\">\n"
      << "  <include file=\"" << model_file << "\"/>\n  <keyframe>\n";
  for (std::size_t t = 0; t < q.size(); ++t) {
    const Eigen::VectorXd qpos = MjcfQToQpos(target.mjcf, *target.model, q[t]);
    xml << "    <key name=\"frame" << t << "\" time=\"" << t * frame_time
        << "\" qpos=\"";
    for (int i = 0; i < qpos.size(); ++i) xml << (i ? " " : "") << qpos[i];
    xml << "\"/>\n";
  }
  xml << "  </keyframe>\n</mujoco>\n";
  xml.close();
  if (!xml) throw std::invalid_argument(internal::CannotWrite(path));
}

}  // namespace iklab
