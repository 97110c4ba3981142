// libFuzzer harness for the BVH loader (framework/bvh_loader.h).
//
// Any input must either load into a figure whose coordinates match its
// channels and whose first frames run through FK, or be rejected with
// std::invalid_argument whose message starts with the source name. Anything
// else is a finding.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <vector>

#include <Eigen/Core>

#include "framework/bvh_loader.h"
#include "framework/kinematics.h"
#include "framework/model.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data,
                                      std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  const std::string source = "fuzz.bvh";
  try {
    const iklab::BvhFigure bvh = iklab::LoadBvhFromString(text, source);
    const iklab::Model model = bvh.figure.Compile();
    const int nq = model.nq();
    if (nq != static_cast<int>(bvh.channels.size()) || bvh.poses.cols() != nq) {
      std::abort();
    }
    // Every coordinate is driven by exactly one channel.
    std::vector<int> hits(nq, 0);
    for (const iklab::BvhChannel& c : bvh.channels) {
      if (c.q_index < 0 || c.q_index >= nq) std::abort();
      if (++hits[c.q_index] != 1) std::abort();
    }
    iklab::Data workspace(model);
    // (Without channels the poses have no columns, and no row to view.)
    iklab::ForwardKinematics(model, Eigen::VectorXd::Zero(nq), &workspace);
    for (int f = 0; nq > 0 && f < std::min(bvh.num_frames(), 3); ++f) {
      iklab::ForwardKinematics(model, bvh.poses.row(f).transpose(), &workspace);
    }
  } catch (const std::invalid_argument& e) {
    if (std::string(e.what()).rfind(source, 0) != 0) std::abort();
  }
  return 0;
}
