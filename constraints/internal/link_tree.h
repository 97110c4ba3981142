#ifndef IKLAB_CONSTRAINTS_INTERNAL_LINK_TREE_H_
#define IKLAB_CONSTRAINTS_INTERNAL_LINK_TREE_H_

/// @file
/// The link tree of a model (links, not steps), for collision pair
/// selection: each link's parent link and the number of links between two.

#include <algorithm>
#include <vector>

#include "framework/model.h"

namespace iklab::internal {

// Parent link of each link (−1 for the root): the nearest ancestor step that
// is some link's frame.
inline std::vector<int> ParentLinks(const Model& model) {
  std::vector<int> link_of_step(model.num_steps(), -1);
  for (int l = 0; l < model.num_links(); ++l) {
    link_of_step[model.link_step(l)] = l;
  }
  std::vector<int> parent(model.num_links(), -1);
  for (int l = 0; l < model.num_links(); ++l) {
    for (int s = model.link_step(l); s > 0;) {
      s = model.parent(s);
      if (s >= 0 && link_of_step[s] >= 0 && link_of_step[s] != l) {
        parent[l] = link_of_step[s];
        break;
      }
      if (s <= 0) {
        if (s == 0 && link_of_step[0] >= 0 && link_of_step[0] != l) {
          parent[l] = link_of_step[0];
        }
        break;
      }
    }
  }
  return parent;
}

// Links apart along the tree (through the lowest common ancestor).
inline int LinkHops(const std::vector<int>& parent, int a, int b) {
  std::vector<int> up_a;
  for (int l = a; l >= 0; l = parent[l]) up_a.push_back(l);
  int hops_b = 0;
  for (int l = b; l >= 0; l = parent[l], ++hops_b) {
    const auto it = std::find(up_a.begin(), up_a.end(), l);
    if (it != up_a.end()) return hops_b + static_cast<int>(it - up_a.begin());
  }
  return 1 << 20;  // different trees (cannot happen in one model)
}

}  // namespace iklab::internal

#endif  // IKLAB_CONSTRAINTS_INTERNAL_LINK_TREE_H_
