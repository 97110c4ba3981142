#ifndef IKLAB_FRAMEWORK_FIGURE_H_
#define IKLAB_FRAMEWORK_FIGURE_H_

/// @file
/// Authoring an articulated figure as a graph (Parent §5.1.1: nodes and arcs).
///
/// A Figure is a Boost.Graph `adjacency_list` (figure_graph.h): vertices are
/// links, edges are joints directed parent → child. It is for building and
/// validating; solving happens on the compiled Model (model.h), which never
/// exposes graph types.
///
///     Figure f("base");
///     f.AddLink("upper");
///     f.AddJoint({.name = "shoulder", .parent = "base", .child = "upper"});
///     f.AddSite({.name = "tip", .link = "upper", .X_LS = ...});
///     Model model = f.Compile();   // validates the tree, flattens it

#include <cstddef>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "framework/joint.h"

namespace iklab {

class Model;
struct FigureGraph;  // figure_graph.h

/// An articulated figure under construction: a tree of links and joints plus
/// named sites.
///
/// Local checks (names, axes, limits, finite transforms) happen as elements
/// are added; global ones (exactly one root, no cycle, connected) in
/// Validate(), which Compile() calls. All failures throw
/// `std::invalid_argument` naming the offending link, joint or site.
class Figure {
 public:
  /// Creates a figure holding one link, the root, named `root_link`.
  explicit Figure(std::string root_link = "base");
  Figure(const Figure& other);
  Figure& operator=(const Figure& other);
  ~Figure();

  /// Adds a link.
  /// @throws std::invalid_argument if the name is empty or already used.
  void AddLink(const std::string& name);

  /// Adds a joint from `joint.parent` to `joint.child`. If the child link does
  /// not exist yet it is created (the common case when building a chain).
  /// @throws std::invalid_argument if the name is empty or taken, the parent
  ///   link is unknown, parent == child, an axis is zero, not unit length or
  ///   not finite, X_PJ is not finite or not a rigid transform, or a limit is
  ///   NaN or lower > upper. The message names the joint.
  void AddJoint(const Joint& joint);

  /// Adds a named site on an existing link.
  /// @throws std::invalid_argument for an empty or taken name, an unknown
  ///   link, or a non-finite / non-rigid X_LS.
  void AddSite(const Site& site);

  /// Declares that joint `mimic.joint` follows joint `mimic.leader`:
  /// q_joint = multiplier * q_leader + offset (see Mimic). The compiled Model
  /// drops the mimic joint's coordinate from its free coordinates, places it
  /// from the leader, and limits the leader so that both joints stay within
  /// their own limits. A leader that is itself a mimic is resolved
  /// transitively (q_c = a_c (a_b q_a + b_b) + b_c).
  /// @throws std::invalid_argument naming the joint if either joint is
  ///   unknown (add both joints first), either is not revolute or prismatic,
  ///   the joint already has a mimic relation, the joint is its own leader
  ///   or the relation closes a cycle of mimics (the cycle is listed), or the
  ///   multiplier is zero or not finite or the offset not finite.
  void AddMimic(const Mimic& mimic);

  /// Checks the global structure: the graph is a tree rooted at the root link
  /// (every other link has exactly one parent joint, no cycle, every link
  /// reachable from the root).
  /// @throws std::invalid_argument naming the first offending link.
  void Validate() const;

  /// Validates and flattens the figure into an immutable Model (depth-first
  /// order, children in the order their joints were added).
  Model Compile() const;

  const std::string& root_link() const;
  int num_links() const;
  int num_joints() const;
  const std::vector<Site>& sites() const { return sites_; }
  /// The mimic relations, in the order they were added.
  const std::vector<Mimic>& mimics() const { return mimics_; }
  /// The underlying graph, read-only (for analyses with Boost.Graph
  /// algorithms; include framework/figure_graph.h).
  const FigureGraph& graph() const { return *graph_; }

 private:
  // Vertex descriptors of the graph (vecS: the link's index).
  using Vertex = std::size_t;
  Vertex LinkVertex(const std::string& name, const char* role,
                    const std::string& owner) const;
  void ResolveMimics(const std::vector<int>& full_step, Model* m) const;

  // Never null (a moved-from Figure is a copy: there is no move).
  std::unique_ptr<FigureGraph> graph_;
  Vertex root_;
  std::unordered_map<std::string, Vertex> link_index_;
  std::unordered_map<std::string, int> joint_names_;
  std::unordered_map<std::string, int> site_names_;
  std::vector<Site> sites_;
  std::vector<Mimic> mimics_;
};

}  // namespace iklab

#endif  // IKLAB_FRAMEWORK_FIGURE_H_
