#ifndef IKLAB_TESTS_LAB_CMU_CLIP_H_
#define IKLAB_TESTS_LAB_CMU_CLIP_H_

/// @file
/// CMU 131_01 "Start Walk Stop" (994 frames at 120 Hz), the motion-capture
/// clip of the retargeting tests, from the upstream data folder: a test
/// calls IKLAB_SKIP_WITHOUT_UPSTREAM_DATA() (tests/test_data.h) first.

#include <memory>
#include <vector>

#include "framework/builders.h"
#include "framework/bvh_loader.h"
#include "lab/motion_retargeting.h"
#include "lab/retarget_map.h"
#include "tests/test_data.h"

namespace iklab::testing {

inline BvhFigure LoadCmu131_01() {
  return LoadBvh(UpstreamDataFile("skeletons/cmu_131_01_start_walk_stop.bvh"));
}

/// The clip's key points on `target` through `map`, over `frames`.
inline KeyPointTrack CmuTrack(const Model& target, const RetargetMap& map,
                              const std::vector<int>& frames) {
  const BvhFigure clip = LoadCmu131_01();
  return MakeKeyPointTrack(clip.figure.Compile(), clip.poses, frames,
                           clip.frame_time, map, target);
}

/// The clip's key points on the human figure (H = 1.75 m) through the
/// shipped data/retarget/cmu_onto_human.map, over `frames`.
struct CmuOntoHuman {
  std::shared_ptr<const Model> human;
  KeyPointTrack track;
};
inline CmuOntoHuman CmuOntoHumanTrack(const std::vector<int>& frames) {
  CmuOntoHuman c;
  c.human = std::make_shared<const Model>(HumanFigure().Compile());
  c.track = CmuTrack(*c.human,
                     LoadRetargetMap(ShippedDataFile("retarget/cmu_onto_human.map")),
                     frames);
  return c;
}

}  // namespace iklab::testing

#endif  // IKLAB_TESTS_LAB_CMU_CLIP_H_
