// Builds a two-link arm through the installed headers and checks its FK.
#include <cmath>
#include <cstdio>

#include "framework/figure.h"
#include "framework/kinematics.h"

int main() {
  iklab::Figure figure("base");
  iklab::Joint shoulder;
  shoulder.name = "shoulder";
  shoulder.parent = "base";
  shoulder.child = "upper";
  figure.AddJoint(shoulder);
  iklab::Joint elbow = shoulder;
  elbow.name = "elbow";
  elbow.parent = "upper";
  elbow.child = "lower";
  elbow.X_PJ.translation() = Eigen::Vector3d(1, 0, 0);
  figure.AddJoint(elbow);
  iklab::Site tip{"tip", "lower", Eigen::Isometry3d::Identity()};
  tip.X_LS.translation() = Eigen::Vector3d(1, 0, 0);
  figure.AddSite(tip);
  const iklab::Model model = figure.Compile();
  iklab::Data data(model);
  iklab::ForwardKinematics(model, Eigen::Vector2d(M_PI / 2, -M_PI / 2), &data);
  const Eigen::Vector3d p = iklab::SitePosition(model, data, 0);
  // Up by 1, then right by 1: (1, 1, 0).
  const bool ok = (p - Eigen::Vector3d(1, 1, 0)).norm() < 1e-12;
  std::printf("consumer: tip at (%g, %g, %g): %s\n", p.x(), p.y(), p.z(),
              ok ? "ok" : "WRONG");
  return ok ? 0 : 1;
}
