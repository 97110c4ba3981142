#include "framework/mjcf_loader.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <unordered_map>
#include <unordered_set>
#include <utility>

#include <mujoco/mujoco.h>

#include "framework/collision_geometry.h"
#include "framework/internal/check.h"
#include "framework/internal/read_file.h"

namespace iklab {

namespace {

using internal::StrCat;

// Warnings MuJoCo reports through mju_user_warning while this thread loads.
thread_local std::vector<std::string>* warning_sink = nullptr;

void ThrowMujocoError(const char* message) {
  // MuJoCo's own compiler throws through its C code from this same hook
  // (it unwinds with the tables GCC emits by default on x86-64 and AArch64).
  throw std::runtime_error(StrCat("MuJoCo error: ", message));
}

void CollectMujocoWarning(const char* message) {
  if (warning_sink != nullptr) {
    warning_sink->emplace_back(message);
  } else {
    std::fprintf(stderr, "MuJoCo warning: %s\n", message);
  }
}

// mj_loadXML swaps the process-wide hooks while it compiles.
std::mutex& MujocoCompilerMutex() {
  static std::mutex mutex;
  return mutex;
}

struct ModelDeleter {
  void operator()(mjModel* m) const { mj_deleteModel(m); }
};
using ModelPtr = std::unique_ptr<mjModel, ModelDeleter>;

struct VfsDeleter {
  void operator()(mjVFS* vfs) const {
    mj_deleteVFS(vfs);
    delete vfs;
  }
};

// Builds messages "source: what" and throws them.
class Reporter {
 public:
  explicit Reporter(std::string source) : source_(std::move(source)) {}
  template <typename... Args>
  [[noreturn]] void Fail(const Args&... args) const {
    throw std::invalid_argument(StrCat(source_, ": ", args...));
  }

 private:
  std::string source_;
};

// MuJoCo's message on one line: its line breaks (between the complaint and
// "Element 'joint', line 5" or "Object name = ..., line = 4") become "; ".
std::string OneLine(const char* text) {
  std::string out;
  bool pending_break = false;
  for (const char* c = text; *c != '\0'; ++c) {
    if (*c == '\n' || *c == '\r') {
      pending_break = true;
      continue;
    }
    if (pending_break && !out.empty()) out += "; ";
    pending_break = false;
    out += *c;
  }
  return out;
}

// Compiles with MuJoCo. `vfs` may be null (read `filename` from disk).
ModelPtr Compile(const std::string& filename, const mjVFS* vfs,
                 const Reporter& report, std::vector<std::string>* warnings) {
  InstallMujocoHandlers();
  char error[1024] = "";
  ModelPtr model;
  {
    std::lock_guard<std::mutex> lock(MujocoCompilerMutex());
    warning_sink = warnings;
    struct Reset {
      ~Reset() { warning_sink = nullptr; }
    } reset;
    try {
      model.reset(mj_loadXML(filename.c_str(), vfs, error, sizeof(error)));
    } catch (const std::runtime_error& e) {
      report.Fail("MuJoCo could not compile the model: ", e.what());
    }
  }
  if (!model) {
    report.Fail("MuJoCo could not compile the model: ",
                error[0] != '\0' ? OneLine(error) : "(no message)");
  }
  // A model with text in `error` compiled with a warning.
  if (error[0] != '\0') warnings->push_back(OneLine(error));
  return model;
}

std::string NameOf(const mjModel& m, mjtObj type, int id, const char* prefix) {
  const char* name = mj_id2name(&m, type, id);
  if (name != nullptr && *name != '\0') return name;
  return StrCat(prefix, id);
}

Eigen::Vector3d Vec3(const mjtNum* p) { return {p[0], p[1], p[2]}; }

Eigen::Isometry3d Pose(const mjtNum* pos, const mjtNum* quat) {
  // MuJoCo quaternions are w, x, y, z; the compiler normalizes them.
  return Eigen::Translation3d(Vec3(pos)) *
         Eigen::Quaterniond(quat[0], quat[1], quat[2], quat[3]).normalized();
}

const char* GeomTypeName(int type) {
  switch (type) {
    case mjGEOM_PLANE:
      return "plane";
    case mjGEOM_HFIELD:
      return "hfield";
    case mjGEOM_SPHERE:
      return "sphere";
    case mjGEOM_CAPSULE:
      return "capsule";
    case mjGEOM_ELLIPSOID:
      return "ellipsoid";
    case mjGEOM_CYLINDER:
      return "cylinder";
    case mjGEOM_BOX:
      return "box";
    case mjGEOM_MESH:
      return "mesh";
    default:
      return "unknown";
  }
}

const char* EqualityTypeName(int type) {
  switch (type) {
    case mjEQ_CONNECT:
      return "connect";
    case mjEQ_WELD:
      return "weld";
    case mjEQ_JOINT:
      return "joint";
    case mjEQ_TENDON:
      return "tendon";
    case mjEQ_DISTANCE:
      return "distance";
    default:
      return "unknown";
  }
}

// Intrinsic z-y-x angles (R = Rz(a) Ry(b) Rx(c)) of a rotation, b in
// [-π/2, π/2].
Eigen::Vector3d ZyxAngles(const Eigen::Matrix3d& R) {
  const double b = std::asin(std::clamp(-R(2, 0), -1.0, 1.0));
  const double a = std::atan2(R(1, 0), R(0, 0));
  const double c = std::atan2(R(2, 1), R(2, 2));
  return {a, b, c};
}

Eigen::Quaterniond ZyxQuaternion(double a, double b, double c) {
  return Eigen::AngleAxisd(a, Eigen::Vector3d::UnitZ()) *
         Eigen::AngleAxisd(b, Eigen::Vector3d::UnitY()) *
         Eigen::AngleAxisd(c, Eigen::Vector3d::UnitX());
}

// The bodies the figure keeps: all, or the path base → tip (ids, root first).
struct Selection {
  std::vector<int> bodies;  // parent before child
  std::unordered_set<int> kept;
  int root = 0;
  int tip_site = -1;  // MuJoCo site named by options.tip, or -1
  int tip_body = -1;
};

Selection SelectBodies(const mjModel& m, const MjcfOptions& options,
                       const Reporter& report) {
  Selection s;
  if (options.base_body.empty() != options.tip.empty()) {
    report.Fail("chain mode needs both a base body and a tip; got base '",
                options.base_body, "' and tip '", options.tip, "'");
  }
  if (options.base_body.empty()) {
    for (int b = 0; b < m.nbody; ++b) {
      s.bodies.push_back(b);
      s.kept.insert(b);
    }
    return s;
  }
  s.root = mj_name2id(&m, mjOBJ_BODY, options.base_body.c_str());
  if (s.root < 0) {
    report.Fail("unknown base body '", options.base_body,
                "' (chain ", options.base_body, " -> ", options.tip, ")");
  }
  s.tip_site = mj_name2id(&m, mjOBJ_SITE, options.tip.c_str());
  s.tip_body = s.tip_site >= 0 ? m.site_bodyid[s.tip_site]
                               : mj_name2id(&m, mjOBJ_BODY, options.tip.c_str());
  if (s.tip_body < 0) {
    report.Fail("unknown tip '", options.tip,
                "': neither a site nor a body of the model (chain ",
                options.base_body, " -> ", options.tip, ")");
  }
  std::vector<int> path;  // tip first
  for (int b = s.tip_body; b != s.root; b = m.body_parentid[b]) {
    if (b == 0) {
      report.Fail("tip '", options.tip, "' is not below base body '",
                  options.base_body,
                  "': the path from the tip up to the world body does not "
                  "pass through it");
    }
    path.push_back(b);
  }
  path.push_back(s.root);
  s.bodies.assign(path.rbegin(), path.rend());
  s.kept.insert(path.begin(), path.end());
  return s;
}

// Runs a Figure call, prefixing its std::invalid_argument with the source.
template <typename F>
void Checked(const Reporter& report, F&& f) {
  try {
    f();
  } catch (const std::invalid_argument& e) {
    report.Fail(e.what());
  }
}

// Adds a fixed joint parent → child placed at X_PJ.
void AddFixedJoint(const Reporter& report, std::string name,
                   const std::string& parent, const std::string& child,
                   const Eigen::Isometry3d& X_PJ, MjcfFigure* out) {
  Joint fixed;
  fixed.name = std::move(name);
  fixed.parent = parent;
  fixed.child = child;
  fixed.kind = JointKind::kFixed;
  fixed.X_PJ = X_PJ;
  Checked(report, [&] { out->figure.AddJoint(fixed); });
}

// Adds body b (its joints and the links between them) below its parent link.
void AddBody(const mjModel& m, int b, const std::vector<std::string>& link_of,
             const Reporter& report, MjcfFigure* out) {
  const std::string& body = link_of[b];
  const std::string& parent = link_of[m.body_parentid[b]];
  Eigen::Isometry3d X_PJ = Pose(m.body_pos + 3 * b, m.body_quat + 4 * b);
  const int n = m.body_jntnum[b];
  if (n == 0) {
    AddFixedJoint(report, "fixed:" + body, parent, body, X_PJ, out);
    return;
  }
  std::string link = parent;
  for (int k = 0; k < n; ++k) {
    const int j = m.body_jntadr[b] + k;
    const std::string name = NameOf(m, mjOBJ_JOINT, j, "joint");
    const Eigen::Vector3d anchor = Vec3(m.jnt_pos + 3 * j);
    const bool last = k == n - 1;
    MjcfJoint info;
    info.name = name;
    info.mujoco_id = j;
    info.qpos_address = m.jnt_qposadr[j];

    Joint joint;
    joint.name = name;
    joint.parent = link;
    joint.X_PJ = X_PJ * Eigen::Translation3d(anchor);
    joint.axis = Vec3(m.jnt_axis + 3 * j).normalized();
    const bool limited = m.jnt_limited[j] != 0;
    const double lo = m.jnt_range[2 * j], hi = m.jnt_range[2 * j + 1];
    switch (m.jnt_type[j]) {
      case mjJNT_HINGE:
      case mjJNT_SLIDE: {
        const bool hinge = m.jnt_type[j] == mjJNT_HINGE;
        info.type = hinge ? MjcfJointType::kHinge : MjcfJointType::kSlide;
        info.reference = m.qpos0[info.qpos_address];
        joint.kind = hinge ? JointKind::kRevolute : JointKind::kPrismatic;
        if (limited) {
          joint.WithLimits(lo - info.reference, hi - info.reference);
        }
        break;
      }
      case mjJNT_BALL:
        info.type = MjcfJointType::kBall;
        joint.kind = JointKind::kSpherical;  // axes z, y, x (the default)
        if (limited) {
          joint.WithLimits(-hi / 3.0, hi / 3.0);
          out->narrowed_ball_joints.push_back(name);
        }
        break;
      case mjJNT_FREE:
        // MuJoCo places a free body at qpos in world coordinates, ignoring
        // the body's pos/quat (they only set qpos0), and only allows it on
        // children of the world body.
        if (m.body_parentid[b] != 0 || n != 1) {
          report.Fail("free joint '", name, "' of body '", body,
                      "' must be the only joint of a child of the world body");
        }
        info.type = MjcfJointType::kFree;
        joint.kind = JointKind::kFloating;
        joint.X_PJ = Eigen::Isometry3d::Identity();
        break;
      default:
        report.Fail("joint '", name, "' has an unknown MuJoCo type ",
                    m.jnt_type[j]);
    }
    const bool anchored_last = last && (anchor.isZero(0.0) ||
                                        info.type == MjcfJointType::kFree);
    joint.child = anchored_last ? body : body + ":" + name;
    Checked(report, [&] { out->figure.AddJoint(joint); });
    out->joints.push_back(info);
    link = joint.child;
    X_PJ = Eigen::Isometry3d(Eigen::Translation3d(-anchor));
    if (last && !anchored_last) {
      AddFixedJoint(report, "anchor:" + body, link, body, X_PJ, out);
    }
  }
}

// Joint equalities as mimic relations; refuses what a tree cannot express.
void AddCouplings(const mjModel& m, const Selection& selection,
                  const Reporter& report, MjcfFigure* out) {
  std::unordered_set<int> loaded_joints;
  for (const MjcfJoint& j : out->joints) loaded_joints.insert(j.mujoco_id);
  for (int e = 0; e < m.neq; ++e) {
    if (!m.eq_active[e]) continue;
    const std::string name = NameOf(m, mjOBJ_EQUALITY, e, "equality");
    const int type = m.eq_type[e];
    const int id1 = m.eq_obj1id[e], id2 = m.eq_obj2id[e];
    if (type == mjEQ_CONNECT || type == mjEQ_WELD) {
      // Objects are bodies (id2 = 0: the world).
      if (!selection.kept.count(id1) && !selection.kept.count(id2)) continue;
    } else if (type == mjEQ_JOINT) {
      if (!loaded_joints.count(id1)) continue;
    }
    if (type != mjEQ_JOINT) {
      report.Fail("equality '", name, "' (", EqualityTypeName(type),
                  ") closes a kinematic loop, which an iklab figure (a tree) "
                  "cannot express; remove it or set active=\"false\"");
    }
    const std::string follower = NameOf(m, mjOBJ_JOINT, id1, "joint");
    if (id2 < 0) {
      report.Fail("equality '", name, "' locks joint '", follower,
                  "' at a constant (no joint2); iklab has no locked joints: "
                  "make the joint fixed in the file instead");
    }
    const std::string leader = NameOf(m, mjOBJ_JOINT, id2, "joint");
    const mjtNum* c = m.eq_data + mjNEQDATA * e;
    if (c[2] != 0.0 || c[3] != 0.0 || c[4] != 0.0) {
      report.Fail("equality '", name, "' couples joint '", follower,
                  "' to joint '", leader, "' by the polynomial polycoef=\"",
                  c[0], " ", c[1], " ", c[2], " ", c[3], " ", c[4],
                  "\"; only linear couplings (polycoef=\"a0 a1 0 0 0\", "
                  "q = a1 q_leader + a0) are supported");
    }
    out->mimics.push_back({follower, leader, c[1], c[0]});
  }
}

// The convex hull MuJoCo's compiler made of mesh `mesh` (Qhull): its
// mesh_graph is numvert, numface, vert_edgeadr[numvert],
// vert_globalid[numvert], edge_localid[numvert + 3 numface],
// face_globalid[3 numface], the face entries indexing the mesh's vertices
// (mjmodel.h, MuJoCo 2.2). Vertices are in the geom frame (the compiler
// moved the mesh there). Only the hull's vertices are kept, renumbered.
void MeshHull(const mjModel& m, int mesh, std::vector<Eigen::Vector3d>* vertices,
              std::vector<Eigen::Vector3i>* triangles) {
  const int address = m.mesh_graphadr[mesh];
  if (address < 0) return;
  const int* graph = m.mesh_graph + address;
  const int num_vertices = graph[0], num_faces = graph[1];
  const int* vert_globalid = graph + 2 + num_vertices;
  const int* face_globalid = graph + 2 + 3 * num_vertices + 3 * num_faces;
  const float* mesh_vertices = m.mesh_vert + 3 * m.mesh_vertadr[mesh];
  std::unordered_map<int, int> local;  // mesh vertex -> hull vertex
  for (int v = 0; v < num_vertices; ++v) {
    const float* p = mesh_vertices + 3 * vert_globalid[v];
    local[vert_globalid[v]] = static_cast<int>(vertices->size());
    vertices->emplace_back(p[0], p[1], p[2]);
  }
  for (int f = 0; f < num_faces; ++f) {
    Eigen::Vector3i triangle;
    for (int k = 0; k < 3; ++k) {
      const auto it = local.find(face_globalid[3 * f + k]);
      if (it == local.end()) {  // not a hull vertex: keep all vertices
        triangles->clear();
        return;
      }
      triangle[k] = it->second;
    }
    triangles->push_back(triangle);
  }
}

void AddSitesAndGeoms(const mjModel& m, const Selection& selection,
                      const std::vector<std::string>& link_of,
                      const MjcfOptions& options, const Reporter& report,
                      MjcfFigure* out) {
  for (int s = 0; s < m.nsite; ++s) {
    const int b = m.site_bodyid[s];
    if (!selection.kept.count(b)) continue;
    const Site site{NameOf(m, mjOBJ_SITE, s, "site"), link_of[b],
                    Pose(m.site_pos + 3 * s, m.site_quat + 4 * s)};
    Checked(report, [&] { out->figure.AddSite(site); });
  }
  if (!options.tip.empty() && selection.tip_site < 0) {
    Checked(report, [&] {
      out->figure.AddSite({options.tip, link_of[selection.tip_body],
                           Eigen::Isometry3d::Identity()});
    });
  }
  for (int g = 0; g < m.ngeom; ++g) {
    const int b = m.geom_bodyid[g];
    if (!selection.kept.count(b)) continue;
    MjcfGeom geom;
    geom.name = NameOf(m, mjOBJ_GEOM, g, "geom");
    geom.type = GeomTypeName(m.geom_type[g]);
    geom.link = link_of[b];
    geom.size = Vec3(m.geom_size + 3 * g);
    geom.X_BG = Pose(m.geom_pos + 3 * g, m.geom_quat + 4 * g);
    geom.contype = m.geom_contype[g];
    geom.conaffinity = m.geom_conaffinity[g];
    if (m.geom_type[g] == mjGEOM_MESH && m.geom_dataid[g] >= 0) {
      geom.mesh = NameOf(m, mjOBJ_MESH, m.geom_dataid[g], "mesh");
      MeshHull(m, m.geom_dataid[g], &geom.hull_vertices, &geom.hull_triangles);
    }
    out->geoms.push_back(std::move(geom));
  }
}

MjcfFigure Convert(const mjModel& m, const std::string& source,
                   const MjcfOptions& options,
                   std::vector<std::string> warnings) {
  const Reporter report(source);
  const Selection selection = SelectBodies(m, options, report);
  std::vector<std::string> link_of(m.nbody);
  for (int b = 0; b < m.nbody; ++b) {
    link_of[b] = NameOf(m, mjOBJ_BODY, b, "body");
  }
  MjcfFigure out{Figure(link_of[selection.root]),
                 m.names,  // the model name is the first name
                 source,
                 {},
                 Eigen::Map<const Eigen::VectorXd>(m.qpos0, m.nq),
                 {},
                 {},
                 {},
                 {},
                 std::move(warnings)};
  for (const int b : selection.bodies) {
    if (b != selection.root) AddBody(m, b, link_of, report, &out);
  }
  std::unordered_set<int> loaded;
  for (const MjcfJoint& j : out.joints) loaded.insert(j.mujoco_id);
  for (int j = 0; j < m.njnt; ++j) {
    if (!loaded.count(j)) {
      out.dropped_joints.push_back(NameOf(m, mjOBJ_JOINT, j, "joint"));
    }
  }
  AddCouplings(m, selection, report, &out);
  AddSitesAndGeoms(m, selection, link_of, options, report, &out);
  Checked(report, [&] { out.figure.Validate(); });
  return out;
}

// Coordinate index in `model` of the first coordinate of joint `name`.
int FirstDof(const Model& model, const MjcfJoint& joint) {
  switch (joint.type) {
    case MjcfJointType::kHinge:
    case MjcfJointType::kSlide:
      return model.DofIndex(joint.name);
    case MjcfJointType::kBall:
      return model.DofIndex(joint.name + ".0");
    case MjcfJointType::kFree:
      return model.DofIndex(joint.name + ".tx");
  }
  return -1;
}

}  // namespace

void InstallMujocoHandlers() {
  static std::once_flag once;
  std::call_once(once, [] {
    if (mju_user_error == nullptr) mju_user_error = ThrowMujocoError;
    if (mju_user_warning == nullptr) mju_user_warning = CollectMujocoWarning;
  });
}

MjcfFigure LoadMjcf(const std::string& path, const MjcfOptions& options) {
  if (const std::string why =
          internal::UnreadableFileReason(path, "an MJCF (MuJoCo XML) file");
      !why.empty()) {
    throw std::invalid_argument(why);
  }
  std::vector<std::string> warnings;
  const ModelPtr model = Compile(path, nullptr, Reporter(path), &warnings);
  return Convert(*model, path, options, std::move(warnings));
}

MjcfFigure LoadMjcfChain(const std::string& path, const std::string& base_body,
                         const std::string& tip, MjcfOptions options) {
  options.base_body = base_body;
  options.tip = tip;
  return LoadMjcf(path, options);
}

MjcfFigure LoadMjcfFromString(const std::string& xml,
                              const std::string& source_name,
                              const MjcfOptions& options) {
  const Reporter report(source_name);
  if (source_name.empty() || source_name.size() >= mjMAXVFSNAME ||
      source_name.find('/') != std::string::npos) {
    report.Fail("the source name must be a plain file name (no folder) of "
                "fewer than ", mjMAXVFSNAME, " characters");
  }
  if (xml.size() > static_cast<std::size_t>(INT32_MAX) - 1) {
    report.Fail("the MJCF text is too long (", xml.size(), " bytes)");
  }
  // mjVFS holds 2000 file-name slots of 1000 bytes: too big for the stack.
  std::unique_ptr<mjVFS, VfsDeleter> vfs(new mjVFS);
  mj_defaultVFS(vfs.get());
  const int size = static_cast<int>(xml.size());
  if (mj_makeEmptyFileVFS(vfs.get(), source_name.c_str(), size) != 0) {
    report.Fail("MuJoCo's virtual file system refused the text");
  }
  const int index = mj_findFileVFS(vfs.get(), source_name.c_str());
  std::memcpy(vfs->filedata[index], xml.data(), xml.size());
  std::vector<std::string> warnings;
  const ModelPtr model = Compile(source_name, vfs.get(), report, &warnings);
  return Convert(*model, source_name, options, std::move(warnings));
}

std::shared_ptr<const ConvexHull> LoadMeshHull(const std::string& path,
                                               const std::string& owner,
                                               const Eigen::Vector3d& scale) {
  const Reporter report(owner);
  std::string extension;
  if (const auto dot = path.find_last_of('.');
      dot != std::string::npos && path.find('/', dot) == std::string::npos) {
    extension = path.substr(dot + 1);
    std::transform(extension.begin(), extension.end(), extension.begin(),
                   [](unsigned char c) { return std::tolower(c); });
  }
  if (extension != "stl" && extension != "obj") {
    report.Fail("mesh ", path, ": only STL and OBJ meshes are read (MuJoCo's "
                "mesh formats); convert it, e.g. to STL");
  }
  if (const std::string why = internal::UnreadableFileReason(
          path, "a mesh file (STL or OBJ)");
      !why.empty()) {
    report.Fail(why);
  }
  if (!scale.allFinite() || !(scale.array() > 0.0).all()) {
    report.Fail("mesh ", path, ": the scale must be finite and > 0; got ",
                scale.transpose());
  }
  std::string bytes;
  try {
    bytes = internal::ReadFile(path, "a mesh file (STL or OBJ)");
  } catch (const std::invalid_argument& e) {
    report.Fail(e.what());
  }
  if (bytes.empty()) {
    report.Fail("mesh ", path, " is empty; expected an STL or OBJ mesh");
  }
  if (bytes.size() > static_cast<std::size_t>(INT32_MAX) - 1) {
    report.Fail("mesh ", path, " is too large (", bytes.size(), " bytes)");
  }
  // The mesh and a one-geom model around it, both in a virtual file system:
  // MuJoCo reads the mesh, computes its hull and moves it to its inertial
  // frame (geom_pos, geom_quat say where that frame is in the file's).
  const std::string mesh_name = "mesh." + extension;
  char scale_text[128];
  std::snprintf(scale_text, sizeof(scale_text), "%.17g %.17g %.17g", scale.x(),
                scale.y(), scale.z());
  const std::string xml = StrCat(
      "<mujoco><asset><mesh name=\"m\" file=\"", mesh_name, "\" scale=\"",
      scale_text, "\"/></asset><worldbody><body><geom type=\"mesh\" "
      "mesh=\"m\"/></body></worldbody></mujoco>");
  std::unique_ptr<mjVFS, VfsDeleter> vfs(new mjVFS);
  mj_defaultVFS(vfs.get());
  for (const auto& [name, text] : {std::pair<std::string, const std::string*>{
                                       "hull.xml", &xml},
                                   {mesh_name, &bytes}}) {
    if (mj_makeEmptyFileVFS(vfs.get(), name.c_str(),
                            static_cast<int>(text->size())) != 0) {
      report.Fail("MuJoCo's virtual file system refused ", path);
    }
    std::memcpy(vfs->filedata[mj_findFileVFS(vfs.get(), name.c_str())],
                text->data(), text->size());
  }
  std::vector<std::string> warnings;
  const Reporter mesh_report(StrCat(owner, ": mesh ", path));
  const ModelPtr model = Compile("hull.xml", vfs.get(), mesh_report, &warnings);
  auto hull = std::make_shared<ConvexHull>();
  MeshHull(*model, 0, &hull->vertices, &hull->triangles);
  if (hull->vertices.size() < 4 || hull->triangles.empty()) {
    mesh_report.Fail("MuJoCo made no convex hull of it (fewer than 4 "
                     "vertices not in one plane?)");
  }
  const Eigen::Isometry3d X_FG =
      Pose(model->geom_pos, model->geom_quat);  // file frame F, geom frame G
  for (Eigen::Vector3d& v : hull->vertices) v = X_FG * v;
  return hull;
}

Eigen::VectorXd MjcfQposToQ(const MjcfFigure& mjcf, const Model& model,
                            const Eigen::Ref<const Eigen::VectorXd>& qpos) {
  if (qpos.size() != mjcf.qpos0.size()) {
    throw std::invalid_argument(
        StrCat("MjcfQposToQ: qpos has ", qpos.size(),
               " entries; the MuJoCo model has nq = ", mjcf.qpos0.size()));
  }
  Eigen::VectorXd q = Eigen::VectorXd::Zero(model.nq());
  for (const MjcfJoint& j : mjcf.joints) {
    const int i = FirstDof(model, j);
    const int a = j.qpos_address;
    switch (j.type) {
      case MjcfJointType::kHinge:
      case MjcfJointType::kSlide:
        q[i] = qpos[a] - j.reference;
        break;
      case MjcfJointType::kBall:
        q.segment<3>(i) = ZyxAngles(
            Eigen::Quaterniond(qpos[a], qpos[a + 1], qpos[a + 2], qpos[a + 3])
                .normalized()
                .toRotationMatrix());
        break;
      case MjcfJointType::kFree:
        q.segment<3>(i) = qpos.segment<3>(a);
        q.segment<3>(i + 3) = ZyxAngles(
            Eigen::Quaterniond(qpos[a + 3], qpos[a + 4], qpos[a + 5],
                               qpos[a + 6])
                .normalized()
                .toRotationMatrix());
        break;
    }
  }
  return q;
}

Eigen::VectorXd MjcfQToQpos(const MjcfFigure& mjcf, const Model& model,
                            const Eigen::Ref<const Eigen::VectorXd>& q) {
  if (q.size() != model.nq()) {
    throw std::invalid_argument(StrCat("MjcfQToQpos: q has ", q.size(),
                                       " entries; the model has nq = ",
                                       model.nq()));
  }
  Eigen::VectorXd qpos = mjcf.qpos0;
  for (const MjcfJoint& j : mjcf.joints) {
    const int i = FirstDof(model, j);
    const int a = j.qpos_address;
    auto put_quaternion = [&](int at, int from) {
      const Eigen::Quaterniond r = ZyxQuaternion(q[from], q[from + 1],
                                                 q[from + 2]);
      qpos.segment<4>(at) << r.w(), r.x(), r.y(), r.z();
    };
    switch (j.type) {
      case MjcfJointType::kHinge:
      case MjcfJointType::kSlide:
        qpos[a] = q[i] + j.reference;
        break;
      case MjcfJointType::kBall:
        put_quaternion(a, i);
        break;
      case MjcfJointType::kFree:
        qpos.segment<3>(a) = q.segment<3>(i);
        put_quaternion(a + 3, i + 3);
        break;
    }
  }
  return qpos;
}

}  // namespace iklab
