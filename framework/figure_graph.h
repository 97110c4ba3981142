#ifndef IKLAB_FRAMEWORK_FIGURE_GRAPH_H_
#define IKLAB_FRAMEWORK_FIGURE_GRAPH_H_

/// @file
/// The Boost.Graph behind a Figure (figure.h), for analyses with Boost.Graph
/// algorithms: `figure.graph().graph` is an `adjacency_list` whose vertices
/// are links (vertex i is the i-th link added; the root is vertex 0) and
/// whose edges are joints directed parent → child, each out-edge list in the
/// order the joints were added.
///
/// Kept out of figure.h so that code which builds or loads figures does not
/// compile Boost.Graph's headers.

#include <boost/graph/adjacency_list.hpp>
#include <string>

#include "framework/figure.h"
#include "framework/joint.h"

namespace iklab {

struct FigureGraph {
  struct LinkProperties {
    std::string name;
  };
  struct JointProperties {
    Joint joint;
  };
  using Graph =
      boost::adjacency_list<boost::vecS, boost::vecS, boost::bidirectionalS,
                            LinkProperties, JointProperties>;
  Graph graph;
};

}  // namespace iklab

#endif  // IKLAB_FRAMEWORK_FIGURE_GRAPH_H_
