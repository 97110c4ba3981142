#include "framework/figure.h"

#include <cmath>
#include <utility>

#include <boost/graph/depth_first_search.hpp>

#include "framework/figure_graph.h"
#include "framework/internal/check.h"
#include "framework/model.h"

namespace iklab {

using internal::FormatVector;
using internal::ThrowInvalidArgument;

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
      sites_(other.sites_) {}

Figure& Figure::operator=(const Figure& other) {
  if (this == &other) return *this;
  Figure copy(other);  // may throw; *this is untouched until the swaps
  graph_.swap(copy.graph_);
  std::swap(root_, copy.root_);
  link_index_.swap(copy.link_index_);
  joint_names_.swap(copy.joint_names_);
  site_names_.swap(copy.site_names_);
  sites_.swap(copy.sites_);
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
  auto add_step = [&m](int parent, StepKind kind, const Eigen::Vector3d& axis,
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
    m.dof_.push_back(kind == StepKind::kFixed ? -1 : m.nq_);
    if (kind != StepKind::kFixed) {
      m.dof_step_.push_back(static_cast<int>(m.parent_.size()) - 1);
      ++m.nq_;
    }
    return static_cast<int>(m.parent_.size()) - 1;
  };
  std::vector<double> lower, upper;
  auto add_dof_names = [&](const Joint& j,
                           std::initializer_list<const char*> suffixes) {
    int i = 0;
    for (const char* suffix : suffixes) {
      m.dof_names_.push_back(j.name + suffix);
      m.dof_joint_.push_back(j.name);
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
  m.lower_ = Eigen::Map<const Eigen::VectorXd>(lower.data(), lower.size());
  m.upper_ = Eigen::Map<const Eigen::VectorXd>(upper.data(), upper.size());

  for (const Site& s : sites_) {
    m.site_names_.push_back(s.name);
    m.site_step_.push_back(vertex_step[link_index_.at(s.link)]);
    m.X_FS_.push_back(s.X_LS);
  }
  return m;
}

}  // namespace iklab
