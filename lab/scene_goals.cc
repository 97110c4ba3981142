#include <cmath>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "constraints/aiming_goal.h"
#include "constraints/composite_goals.h"
#include "constraints/distance_goals.h"
#include "constraints/orientation_goal.h"
#include "constraints/plane_goal.h"
#include "constraints/position_goal.h"
#include "constraints/position_orientation_goal.h"
#include "constraints/relative_pose_goal.h"
#include "constraints/shape_collision.h"
#include "constraints/tolerance_goals.h"
#include "framework/kinematics.h"
#include "lab/scene.h"

// AddProblemLayers (lab/scene.h): each goal kind of constraints/ as the
// layers that show what it asks for.

namespace iklab {

namespace {

// Half extent drawn for a free (infinite) side of a position box, in units
// of the drawing scale.
constexpr double kFreeSideScale = 5.0;

// A collision shape at X_WG: spheres, capsules and boxes exactly; a cylinder
// as the capsule of its radius and axis (rounded ends), a convex hull as its
// bounding box in its frame.
void DrawShape(SceneView* view, const CollisionShape& shape,
               const Eigen::Isometry3d& X_WG, const std::string& label,
               const std::string& color) {
  const Eigen::Vector3d half_z = shape.half_length * X_WG.linear().col(2);
  switch (shape.type) {
    case ShapeType::kSphere:
      view->AddSphere(X_WG.translation(), shape.radius, label, color);
      return;
    case ShapeType::kCapsule:
    case ShapeType::kCylinder:
      view->AddCapsule(X_WG.translation() - half_z, X_WG.translation() + half_z,
                       shape.radius, label, color);
      return;
    case ShapeType::kBox:
      view->AddBox(X_WG.translation(), shape.half_extents,
                   Eigen::Quaterniond(X_WG.linear()), label, color);
      return;
    case ShapeType::kConvex: {
      Eigen::AlignedBox3d box;
      for (const Eigen::Vector3d& v : shape.hull->vertices) box.extend(v);
      view->AddBox(X_WG * box.center(), 0.5 * box.sizes(),
                   Eigen::Quaterniond(X_WG.linear()), label, color);
      return;
    }
  }
}

struct GoalDrawing {
  const Model& model;
  const Data& data;
  double size;
  SceneView* view;
};

Eigen::Isometry3d At(const Eigen::Vector3d& p, const Eigen::Matrix3d& R) {
  Eigen::Isometry3d X = Eigen::Isometry3d::Identity();
  X.linear() = R;
  X.translation() = p;
  return X;
}

void DrawGoal(const GoalDrawing& d, const Goal& goal, const std::string& label,
              const std::string& color) {
  const Model& model = d.model;
  const Data& data = d.data;
  SceneView& view = *d.view;
  const double s = d.size;
  if (const auto* g = dynamic_cast<const PositionGoal*>(&goal)) {
    view.AddPoints({g->target()}, label, color, 0.3 * s);
  } else if (const auto* g = dynamic_cast<const PositionOrientationGoal*>(&goal)) {
    view.AddPoses({g->target()}, label, color, s);
  } else if (const auto* g = dynamic_cast<const OrientationGoal*>(&goal)) {
    view.AddPoses({At(SitePosition(model, data, g->site()), g->target())},
                  label, color, s);
  } else if (const auto* g = dynamic_cast<const RotationVectorGoal*>(&goal)) {
    view.AddPoses({At(SitePosition(model, data, g->site()), g->target())},
                  label, color, s);
  } else if (const auto* g = dynamic_cast<const AxisGoal*>(&goal)) {
    view.AddRays({SitePosition(model, data, g->site())}, {g->target()}, label,
                 color, 2.0 * s);
  } else if (const auto* g = dynamic_cast<const AimingGoal*>(&goal)) {
    const Eigen::Vector3d p = SitePosition(model, data, g->site());
    view.AddPoints({g->target()}, label + " (aim point)", color, 0.3 * s);
    const Eigen::Vector3d to_target = g->target() - p;
    if (to_target.norm() > 0.0) {
      view.AddRays({p}, {to_target}, label, color, to_target.norm());
    }
  } else if (const auto* g = dynamic_cast<const PlaneGoal*>(&goal)) {
    view.AddPlane(g->point(), g->normal(), 4.0 * s, label, color);
  } else if (const auto* g = dynamic_cast<const ConeGoal*>(&goal)) {
    view.AddCone(SitePosition(model, data, g->site()), g->direction(),
                 g->half_angle(), 2.0 * s, label, color);
  } else if (const auto* g = dynamic_cast<const GazeGoal*>(&goal)) {
    const Eigen::Vector3d p = SitePosition(model, data, g->site());
    const Eigen::Vector3d to_target = g->target() - p;
    view.AddPoints({g->target()}, label + " (gaze target)", color, 0.3 * s);
    if (to_target.norm() > 0.0) {
      view.AddCone(p, to_target, g->half_angle(), to_target.norm(), label,
                   color);
    }
  } else if (const auto* g = dynamic_cast<const PositionBoxGoal*>(&goal)) {
    Eigen::Vector3d lower = g->lower(), upper = g->upper();
    for (int k = 0; k < 3; ++k) {
      if (!std::isfinite(lower[k])) lower[k] = -kFreeSideScale * s;
      if (!std::isfinite(upper[k])) upper[k] = kFreeSideScale * s;
    }
    const Eigen::Isometry3d& X_WT = g->frame();
    view.AddBox(X_WT * (0.5 * (lower + upper)), 0.5 * (upper - lower),
                Eigen::Quaterniond(X_WT.linear()), label, color);
  } else if (const auto* g = dynamic_cast<const PointDistanceGoal*>(&goal)) {
    view.AddPoints({g->point()}, label, color, 0.3 * s);
    if (g->min_distance() > 0.0) {
      view.AddSphere(g->point(), g->min_distance(), label + " (min)", color);
    }
    if (std::isfinite(g->max_distance())) {
      view.AddSphere(g->point(), g->max_distance(), label + " (max)", color);
    }
  } else if (const auto* g = dynamic_cast<const RelativePoseGoal*>(&goal)) {
    view.AddPoses({SitePose(model, data, g->site_a()) * g->target()}, label,
                  color, s);
  } else if (const auto* g = dynamic_cast<const ShapeCollisionGoal*>(&goal)) {
    for (const WorldShape& o : g->obstacles()) {
      DrawShape(&view, o.shape, o.X_WG, label + " " + o.name, color);
    }
    for (const LinkShape& body : g->bodies()) {
      DrawShape(&view,
                body.shape,
                LinkPose(model, data, model.LinkIndex(body.link)) * body.X_LG,
                label + " " + body.name, "#aaaaaa");
    }
  } else if (const auto* g = dynamic_cast<const WeightedSumGoal*>(&goal)) {
    int k = 0;
    for (const auto& part : g->goals()) {
      DrawGoal(d, *part, label + " / " + std::to_string(k++) + " " + part->name(),
               color);
    }
  } else if (const auto* g = dynamic_cast<const DisjunctiveGoal*>(&goal)) {
    int k = 0;
    for (const auto& part : g->goals()) {
      DrawGoal(d, *part,
               label + " / any of " + std::to_string(k++) + " " + part->name(),
               color);
    }
  }
  // Joint-space goals, site distances, boxes of relative poses and
  // regularizers have no place in the workspace: nothing to draw.
}

}  // namespace

void AddProblemLayers(const Problem& problem, const Eigen::VectorXd& q,
                      double size, SceneView* view,
                      const std::string& goal_color,
                      const std::string& constraint_color) {
  if (view == nullptr) {
    throw std::invalid_argument("AddProblemLayers: view is null");
  }
  const Model& model = problem.model();
  model.CheckConfiguration(q, "AddProblemLayers: q");
  Data data(model);
  ForwardKinematics(model, q, &data);
  const GoalDrawing drawing{model, data, size, view};
  int k = 0;
  for (const auto& goal : problem.goals()) {
    DrawGoal(drawing, *goal, "goal " + std::to_string(k++) + ": " + goal->name(),
             goal_color);
  }
  k = 0;
  for (const auto& goal : problem.equality_constraints()) {
    DrawGoal(drawing, *goal,
             "constraint " + std::to_string(k++) + ": " + goal->name(),
             constraint_color);
  }
  for (const auto& goal : problem.inequality_constraints()) {
    DrawGoal(drawing, *goal,
             "constraint " + std::to_string(k++) + ": " + goal->name(),
             constraint_color);
  }
}

}  // namespace iklab
