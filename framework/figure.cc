#include "framework/figure.h"

#include <algorithm>
#include <cmath>
#include <utility>

#include <boost/graph/depth_first_search.hpp>

#include "framework/figure_graph.h"
#include "framework/internal/check.h"
#include "framework/model.h"

namespace iklab {

using internal::FormatVector;
using internal::ThrowInvalidArgument;
using MimicRelation = Model::MimicRelation;

const char* JointKindName(JointKind kind) {
  switch (kind) {
    case JointKind::kFixed:
      return "fixed";
    case JointKind::kRevolute:
      return "revolute";
    case JointKind::kPrismatic:
      return "prismatic";
    case JointKind::kSpherical:
      return "spherical";
    case JointKind::kFloating:
      return "floating";
  }
  return "unknown";
}

int NumDofs(JointKind kind) {
  switch (kind) {
    case JointKind::kFixed:
      return 0;
    case JointKind::kRevolute:
    case JointKind::kPrismatic:
      return 1;
    case JointKind::kSpherical:
      return 3;
    case JointKind::kFloating:
      return 6;
  }
  return 0;
}

Joint& Joint::WithLimits(double lo, double hi) {
  lower.fill(lo);
  upper.fill(hi);
  return *this;
}

namespace {

// Axes must be unit vectors already: silently normalizing would hide a typo
// such as (0, 0, 10) meant as (0, 0, 1). Loaders that read unnormalized axes
// (URDF allows them) normalize explicitly before adding the joint.
constexpr double kUnitAxisTolerance = 1e-9;

void CheckAxis(const Eigen::Vector3d& axis, const Joint& joint,
               const char* which) {
  const double norm = axis.norm();
  if (!axis.allFinite() || norm < 1e-12 ||
      std::abs(norm - 1.0) > kUnitAxisTolerance) {
    ThrowInvalidArgument("joint '", joint.name, "': ", which,
                         " must be a finite unit vector; got ",
                         FormatVector(axis), " of norm ", norm);
  }
}

}  // namespace

Figure::Figure(const Figure& other)
    : graph_(std::make_unique<FigureGraph>(*other.graph_)),
      root_(other.root_),
      link_index_(other.link_index_),
      joint_names_(other.joint_names_),
      site_names_(other.site_names_),
      sites_(other.sites_),
      mimics_(other.mimics_) {}

Figure& Figure::operator=(const Figure& other) {
  if (this == &other) return *this;
  Figure copy(other);  // may throw; *this is untouched until the swaps
  graph_.swap(copy.graph_);
  std::swap(root_, copy.root_);
  link_index_.swap(copy.link_index_);
  joint_names_.swap(copy.joint_names_);
  site_names_.swap(copy.site_names_);
  sites_.swap(copy.sites_);
  mimics_.swap(copy.mimics_);
  return *this;
}

Figure::~Figure() = default;

const std::string& Figure::root_link() const {
  return graph_->graph[root_].name;
}

int Figure::num_links() const {
  return static_cast<int>(boost::num_vertices(graph_->graph));
}

int Figure::num_joints() const {
  return static_cast<int>(boost::num_edges(graph_->graph));
}

Figure::Figure(std::string root_link)
    : graph_(std::make_unique<FigureGraph>()) {
  if (root_link.empty())
    ThrowInvalidArgument("Figure: root link name is empty");
  root_ =
      boost::add_vertex(FigureGraph::LinkProperties{root_link}, graph_->graph);
  link_index_.emplace(std::move(root_link), root_);
}

void Figure::AddLink(const std::string& name) {
  if (name.empty()) ThrowInvalidArgument("AddLink: link name is empty");
  if (link_index_.count(name)) {
    ThrowInvalidArgument("AddLink: duplicate link name '", name, "'");
  }
  link_index_.emplace(name, boost::add_vertex(FigureGraph::LinkProperties{name},
                                              graph_->graph));
}

Figure::Vertex Figure::LinkVertex(const std::string& name, const char* role,
                                  const std::string& owner) const {
  const auto it = link_index_.find(name);
  if (it == link_index_.end()) {
    ThrowInvalidArgument(owner, ": unknown ", role, " link '", name, "'");
  }
  return it->second;
}

void Figure::AddJoint(const Joint& joint) {
  if (joint.name.empty()) {
    ThrowInvalidArgument("AddJoint: joint name is empty (parent '",
                         joint.parent, "', child '", joint.child, "')");
  }
  const std::string owner = "joint '" + joint.name + "'";
  if (joint_names_.count(joint.name)) {
    ThrowInvalidArgument("AddJoint: duplicate joint name '", joint.name, "'");
  }
  if (joint.child.empty())
    ThrowInvalidArgument(owner, ": child link name is empty");
  if (joint.parent == joint.child) {
    ThrowInvalidArgument(owner, ": parent and child are the same link '",
                         joint.parent, "' (a joint must connect two links)");
  }
  const auto parent = LinkVertex(joint.parent, "parent", owner);
  if (!internal::IsRigidTransform(joint.X_PJ)) {
    ThrowInvalidArgument(owner,
                         ": X_PJ must be a finite rigid transform (orthonormal "
                         "rotation, det +1); got\n",
                         joint.X_PJ.matrix());
  }
  switch (joint.kind) {
    case JointKind::kRevolute:
    case JointKind::kPrismatic:
      CheckAxis(joint.axis, joint, "axis");
      break;
    case JointKind::kSpherical:
      for (const auto& a : joint.spherical_axes) {
        CheckAxis(a, joint, "spherical axis");
      }
      break;
    case JointKind::kFixed:
    case JointKind::kFloating:
      break;
  }
  for (int i = 0; i < NumDofs(joint.kind); ++i) {
    const double lo = joint.lower[i];
    const double hi = joint.upper[i];
    if (std::isnan(lo) || std::isnan(hi) || lo > hi) {
      ThrowInvalidArgument(owner, ": limits of coordinate ", i,
                           " must satisfy lower <= upper and not be NaN; got [",
                           lo, ", ", hi, "]");
    }
  }
  // The child may be new (chains) or pre-declared with AddLink (trees built
  // link-first). A second parent is detected here rather than in Validate()
  // because the message can then name both joints.
  Vertex child;
  const auto it = link_index_.find(joint.child);
  if (it == link_index_.end()) {
    child = boost::add_vertex(FigureGraph::LinkProperties{joint.child},
                              graph_->graph);
    link_index_.emplace(joint.child, child);
  } else {
    child = it->second;
    if (child == root_) {
      ThrowInvalidArgument(owner, ": child '", joint.child,
                           "' is the root link, which cannot have a parent");
    }
    if (boost::in_degree(child, graph_->graph) > 0) {
      const auto existing = *boost::in_edges(child, graph_->graph).first;
      ThrowInvalidArgument(
          owner, ": link '", joint.child, "' already has parent joint '",
          graph_->graph[existing].joint.name, "' (a figure must be a tree)");
    }
  }
  boost::add_edge(parent, child, FigureGraph::JointProperties{joint},
                  graph_->graph);
  joint_names_.emplace(joint.name, num_joints() - 1);
}

void Figure::AddSite(const Site& site) {
  if (site.name.empty()) ThrowInvalidArgument("AddSite: site name is empty");
  if (site_names_.count(site.name)) {
    ThrowInvalidArgument("AddSite: duplicate site name '", site.name, "'");
  }
  LinkVertex(site.link, "", "site '" + site.name + "'");
  if (!internal::IsRigidTransform(site.X_LS)) {
    ThrowInvalidArgument("site '", site.name,
                         "': X_LS must be a finite rigid transform; got\n",
                         site.X_LS.matrix());
  }
  site_names_.emplace(site.name, static_cast<int>(sites_.size()));
  sites_.push_back(site);
}

namespace {

// The joint named `name`, or null.
const Joint* FindJoint(const FigureGraph::Graph& graph,
                       const std::string& name) {
  for (auto e : boost::make_iterator_range(boost::edges(graph))) {
    if (graph[e].joint.name == name) return &graph[e].joint;
  }
  return nullptr;
}

}  // namespace

void Figure::AddMimic(const Mimic& mimic) {
  const std::string owner = "AddMimic: joint '" + mimic.joint + "'";
  const auto check_joint = [&](const std::string& name, const char* role) {
    const Joint* joint = FindJoint(graph_->graph, name);
    if (joint == nullptr) {
      ThrowInvalidArgument(owner, ": unknown ", role, " joint '", name,
                           "' (add both joints before the mimic relation)");
    }
    if (joint->kind != JointKind::kRevolute &&
        joint->kind != JointKind::kPrismatic) {
      ThrowInvalidArgument(owner, ": ", role, " joint '", name, "' is ",
                           JointKindName(joint->kind),
                           "; a mimic relation joins two revolute or "
                           "prismatic joints");
    }
  };
  check_joint(mimic.joint, "mimic");
  check_joint(mimic.leader, "leader");
  if (mimic.joint == mimic.leader) {
    ThrowInvalidArgument(owner, " cannot mimic itself");
  }
  if (!std::isfinite(mimic.multiplier) || mimic.multiplier == 0.0 ||
      !std::isfinite(mimic.offset)) {
    ThrowInvalidArgument(owner, " mimics '", mimic.leader,
                         "' with multiplier ", mimic.multiplier,
                         " and offset ", mimic.offset,
                         "; the multiplier must be finite and nonzero (a "
                         "zero multiplier is a fixed joint) and the offset "
                         "finite");
  }
  for (const Mimic& m : mimics_) {
    if (m.joint == mimic.joint) {
      ThrowInvalidArgument(owner, " already mimics '", m.leader, "'");
    }
  }
  // Each joint has at most one leader, so following leaders from the new
  // leader either ends at a free joint or comes back to this joint: a cycle.
  std::string cycle = "'" + mimic.joint + "' -> '" + mimic.leader + "'";
  for (std::string at = mimic.leader;;) {
    const Mimic* next = nullptr;
    for (const Mimic& m : mimics_) {
      if (m.joint == at) next = &m;
    }
    if (next == nullptr) break;
    cycle += " -> '" + next->leader + "'";
    if (next->leader == mimic.joint) {
      ThrowInvalidArgument(owner, ": the mimic relations form a cycle ",
                           cycle,
                           "; at least one joint of a mimic group must be "
                           "free (remove one of these relations)");
    }
    at = next->leader;
  }
  mimics_.push_back(mimic);
}

namespace {

// Records the depth-first discovery order and reports the first edge that
// closes a cycle.
class TreeVisitor : public boost::default_dfs_visitor {
 public:
  TreeVisitor(std::vector<FigureGraph::Graph::vertex_descriptor>* order,
              std::vector<FigureGraph::Graph::edge_descriptor>* back_edges)
      : order_(order), back_edges_(back_edges) {}
  void discover_vertex(FigureGraph::Graph::vertex_descriptor v,
                       const FigureGraph::Graph&) {
    order_->push_back(v);
  }
  void back_edge(FigureGraph::Graph::edge_descriptor e,
                 const FigureGraph::Graph&) {
    back_edges_->push_back(e);
  }

 private:
  std::vector<FigureGraph::Graph::vertex_descriptor>* order_;
  std::vector<FigureGraph::Graph::edge_descriptor>* back_edges_;
};

// Depth-first order of the links reachable from the root, children in the
// order their joints were added (vecS out-edge lists keep insertion order).
std::vector<FigureGraph::Graph::vertex_descriptor> DepthFirstOrder(
    const FigureGraph::Graph& graph, FigureGraph::Graph::vertex_descriptor root,
    std::vector<FigureGraph::Graph::edge_descriptor>* back_edges) {
  std::vector<FigureGraph::Graph::vertex_descriptor> order;
  std::vector<boost::default_color_type> colors(boost::num_vertices(graph));
  boost::depth_first_visit(
      graph, root, TreeVisitor(&order, back_edges),
      boost::make_iterator_property_map(
          colors.begin(), boost::get(boost::vertex_index, graph)));
  return order;
}

}  // namespace

// Splits the full joint vector into free coordinates and mimics (model.h):
// fills the free coordinates' names, steps and limits, and each step's
// coordinate, scale and offset. The relations were checked by AddMimic
// (known one-coordinate joints, no cycle, finite nonzero multipliers).
void Figure::ResolveMimics(const std::vector<int>& full_step, Model* m) const {
  const int n_full = static_cast<int>(full_step.size());
  std::unordered_map<std::string, int> full_of_joint;
  for (int i = 0; i < n_full; ++i) full_of_joint[m->full_joints_[i]] = i;
  // The declared relation of each full coordinate, or −1.
  std::vector<int> relation(n_full, -1);
  for (const Mimic& mimic : mimics_) {
    const int joint = full_of_joint.at(mimic.joint);
    relation[joint] = static_cast<int>(m->mimics_.size());
    m->mimics_.push_back({joint, full_of_joint.at(mimic.leader),
                          mimic.multiplier, mimic.offset});
  }
  // Free coordinates keep their depth-first order.
  std::vector<int> free_of_full(n_full, -1);
  for (int i = 0; i < n_full; ++i) {
    if (relation[i] >= 0) continue;
    free_of_full[i] = m->nq_++;
    m->dof_names_.push_back(m->full_names_[i]);
    m->dof_joint_.push_back(m->full_joints_[i]);
    m->dof_step_.push_back(full_step[i]);
  }
  m->lower_.resize(m->nq_);
  m->upper_.resize(m->nq_);
  m->full_source_.resize(n_full);
  m->full_scale_.resize(n_full);
  m->full_offset_.resize(n_full);
  for (int i = 0; i < n_full; ++i) {
    // q_i = a q_root + b, composed along the chain of leaders:
    // a_i (a q_root + b) + b_i.
    double a = 1.0, b = 0.0;
    int root = i;
    while (relation[root] >= 0) {
      const MimicRelation& r = m->mimics_[relation[root]];
      b = a * r.offset + b;
      a = a * r.multiplier;
      root = r.leader;
    }
    if (!std::isfinite(a) || a == 0.0 || !std::isfinite(b)) {
      ThrowInvalidArgument("mimic joint '", m->full_joints_[i],
                           "': following its chain of leaders to '",
                           m->full_joints_[root], "' gives multiplier ", a,
                           " and offset ", b,
                           "; expected a finite nonzero multiplier and a "
                           "finite offset");
    }
    const int k = free_of_full[root];
    m->full_source_[i] = k;
    m->full_scale_[i] = a;
    m->full_offset_[i] = b;
  }
  // Limits: the free coordinate's own, intersected with each follower's
  // lower <= a q + b <= upper, i.e. q in [(lower − b)/a, (upper − b)/a],
  // the ends swapped when a < 0.
  for (int i = 0; i < n_full; ++i) {
    if (relation[i] < 0) {
      m->lower_[free_of_full[i]] = m->full_lower_[i];
      m->upper_[free_of_full[i]] = m->full_upper_[i];
    }
  }
  for (int i = 0; i < n_full; ++i) {
    if (relation[i] < 0) continue;
    const int k = m->full_source_[i];
    const double a = m->full_scale_[i], b = m->full_offset_[i];
    double lo = (m->full_lower_[i] - b) / a, hi = (m->full_upper_[i] - b) / a;
    if (a < 0.0) std::swap(lo, hi);
    const double old_lo = m->lower_[k], old_hi = m->upper_[k];
    m->lower_[k] = std::max(old_lo, lo);
    m->upper_[k] = std::min(old_hi, hi);
    if (!(m->lower_[k] <= m->upper_[k])) {
      ThrowInvalidArgument(
          "mimic joint '", m->full_joints_[i], "' (q = ", a, " q_",
          m->dof_names_[k], " + ", b, ", limits [", m->full_lower_[i], ", ",
          m->full_upper_[i], "]) allows '", m->dof_names_[k], "' only in [",
          lo, ", ", hi, "], which does not meet its range [", old_lo, ", ",
          old_hi, "]; fix the limits or the relation");
    }
  }
  for (int step = 0; step < static_cast<int>(m->full_dof_.size()); ++step) {
    const int i = m->full_dof_[step];
    m->dof_.push_back(i < 0 ? -1 : m->full_source_[i]);
    m->dof_scale_.push_back(i < 0 ? 1.0 : m->full_scale_[i]);
    m->dof_offset_.push_back(i < 0 ? 0.0 : m->full_offset_[i]);
  }
}

void Figure::Validate() const {
  // AddJoint already guarantees at most one parent per link and none for the
  // root; what remains is links without a parent (several roots, or parts not
  // attached) and cycles (only possible in a part not attached to the root,
  // since every link has at most one parent).
  for (auto v : boost::make_iterator_range(boost::vertices(graph_->graph))) {
    if (v != root_ && boost::in_degree(v, graph_->graph) == 0) {
      ThrowInvalidArgument(
          "figure is not connected: link '", graph_->graph[v].name,
          "' has no parent joint and is not the root '", root_link(), "'");
    }
  }
  std::vector<FigureGraph::Graph::edge_descriptor> back_edges;
  const auto order = DepthFirstOrder(graph_->graph, root_, &back_edges);
  if (!back_edges.empty() ||
      order.size() != boost::num_vertices(graph_->graph)) {
    std::vector<bool> reached(boost::num_vertices(graph_->graph), false);
    for (auto v : order) reached[v] = true;
    for (auto v : boost::make_iterator_range(boost::vertices(graph_->graph))) {
      if (!reached[v]) {
        ThrowInvalidArgument("figure is not a tree: link '",
                             graph_->graph[v].name,
                             "' lies on a cycle of joints not reachable from "
                             "the root '",
                             root_link(), "'");
      }
    }
    ThrowInvalidArgument("figure is not a tree: joint '",
                         graph_->graph[back_edges.front()].joint.name,
                         "' closes a cycle");
  }
}

Model Figure::Compile() const {
  Validate();
  Model m;
  std::vector<FigureGraph::Graph::edge_descriptor> unused;
  const auto order = DepthFirstOrder(graph_->graph, root_, &unused);

  std::vector<int> vertex_step(boost::num_vertices(graph_->graph), -1);
  std::vector<int> full_step;  // the step of each full coordinate
  auto add_step = [&m, &full_step](int parent, StepKind kind, const Eigen::Vector3d& axis,
                       const Eigen::Isometry3d& X_PJ) {
    m.parent_.push_back(parent);
    m.kind_.push_back(kind);
    AxisKind axis_kind = AxisKind::kGeneral;
    if (axis == Eigen::Vector3d::UnitX()) axis_kind = AxisKind::kX;
    if (axis == Eigen::Vector3d::UnitY()) axis_kind = AxisKind::kY;
    if (axis == Eigen::Vector3d::UnitZ()) axis_kind = AxisKind::kZ;
    m.axis_kind_.push_back(axis_kind);
    m.axis_.push_back(axis);
    m.X_PJ_.push_back(X_PJ);
    m.pure_translation_.push_back(X_PJ.linear() == Eigen::Matrix3d::Identity());
    // Numbered in the full joint vector first; free coordinates below.
    m.full_dof_.push_back(kind == StepKind::kFixed
                              ? -1
                              : static_cast<int>(full_step.size()));
    if (kind != StepKind::kFixed) {
      full_step.push_back(static_cast<int>(m.parent_.size()) - 1);
    }
    return static_cast<int>(m.parent_.size()) - 1;
  };
  std::vector<double> lower, upper;
  auto add_dof_names = [&](const Joint& j,
                           std::initializer_list<const char*> suffixes) {
    int i = 0;
    for (const char* suffix : suffixes) {
      m.full_names_.push_back(j.name + suffix);
      m.full_joints_.push_back(j.name);
      lower.push_back(j.lower[i]);
      upper.push_back(j.upper[i]);
      ++i;
    }
  };

  const Eigen::Isometry3d I = Eigen::Isometry3d::Identity();
  for (auto v : order) {
    int step = -1;
    if (v == root_) {
      step = add_step(-1, StepKind::kFixed, Eigen::Vector3d::UnitZ(), I);
    } else {
      const auto e = *boost::in_edges(v, graph_->graph).first;
      const Joint& j = graph_->graph[e].joint;
      const int parent = vertex_step[boost::source(e, graph_->graph)];
      switch (j.kind) {
        case JointKind::kFixed:
          step = add_step(parent, StepKind::kFixed, Eigen::Vector3d::UnitZ(),
                          j.X_PJ);
          break;
        case JointKind::kRevolute:
          step = add_step(parent, StepKind::kRevolute, j.axis, j.X_PJ);
          add_dof_names(j, {""});
          break;
        case JointKind::kPrismatic:
          step = add_step(parent, StepKind::kPrismatic, j.axis, j.X_PJ);
          add_dof_names(j, {""});
          break;
        case JointKind::kSpherical:
          step = add_step(parent, StepKind::kRevolute, j.spherical_axes[0],
                          j.X_PJ);
          step = add_step(step, StepKind::kRevolute, j.spherical_axes[1], I);
          step = add_step(step, StepKind::kRevolute, j.spherical_axes[2], I);
          add_dof_names(j, {".0", ".1", ".2"});
          break;
        case JointKind::kFloating:
          step = add_step(parent, StepKind::kPrismatic,
                          Eigen::Vector3d::UnitX(), j.X_PJ);
          step =
              add_step(step, StepKind::kPrismatic, Eigen::Vector3d::UnitY(), I);
          step =
              add_step(step, StepKind::kPrismatic, Eigen::Vector3d::UnitZ(), I);
          step =
              add_step(step, StepKind::kRevolute, Eigen::Vector3d::UnitZ(), I);
          step =
              add_step(step, StepKind::kRevolute, Eigen::Vector3d::UnitY(), I);
          step =
              add_step(step, StepKind::kRevolute, Eigen::Vector3d::UnitX(), I);
          add_dof_names(j, {".tx", ".ty", ".tz", ".rz", ".ry", ".rx"});
          break;
      }
    }
    vertex_step[v] = step;
    m.link_names_.push_back(graph_->graph[v].name);
    m.link_step_.push_back(step);
  }
  m.full_lower_ = Eigen::Map<const Eigen::VectorXd>(lower.data(), lower.size());
  m.full_upper_ = Eigen::Map<const Eigen::VectorXd>(upper.data(), upper.size());
  ResolveMimics(full_step, &m);

  for (const Site& s : sites_) {
    m.site_names_.push_back(s.name);
    m.site_step_.push_back(vertex_step[link_index_.at(s.link)]);
    m.X_FS_.push_back(s.X_LS);
  }
  return m;
}

}  // namespace iklab
