// constraints/: every goal kind (least-squares goals, the inequality goals of
// tolerance boxes, cones, gaze, distances, joint ranges, collisions), the
// regularizers, Bounds and Problem with its equality/inequality constraints.

#include <cstdint>

#include "bindings.h"
#include "solve_guard.h"
#include "constraints/aiming_goal.h"
#include "constraints/bounds.h"
#include "constraints/composite_goals.h"
#include "constraints/distance_goals.h"
#include "constraints/goal.h"
#include "constraints/inequality_goal.h"
#include "constraints/joint_goals.h"
#include "constraints/orientation_goal.h"
#include "constraints/plane_goal.h"
#include "constraints/position_goal.h"
#include "constraints/position_orientation_goal.h"
#include "constraints/problem.h"
#include "framework/collision_geometry.h"
#include "constraints/regularizers.h"
#include "constraints/self_collision_matrix.h"
#include "constraints/shape_collision.h"
#include "constraints/relative_pose_goal.h"
#include "constraints/tolerance_goals.h"

namespace iklab::python {

namespace {

using GoalPtr = std::shared_ptr<Goal>;

std::string SiteName(const Model& model, py::handle site) {
  return model.site_name(SiteOf(model, site));
}

std::vector<std::shared_ptr<const Goal>> ConstGoals(const std::vector<GoalPtr>& goals) {
  return {goals.begin(), goals.end()};
}

std::vector<GoalPtr> MutableGoals(const std::vector<std::shared_ptr<const Goal>>& goals) {
  std::vector<GoalPtr> out;
  for (const auto& g : goals) out.push_back(std::const_pointer_cast<Goal>(g));
  return out;
}

std::vector<int> Coordinates(const Model& model, py::handle coordinates) {
  std::vector<int> out;
  for (py::handle c : coordinates) {
    out.push_back(py::isinstance<py::str>(c) ? model.DofIndex(c.cast<std::string>())
                                             : c.cast<int>());
  }
  return out;
}

// GoalError, the Goal base and the InequalityGoal base (g(q) <= 0).
void BindGoalBases(py::module_& m) {
  py::class_<GoalError>(m, "GoalError", "How far a goal is from being met.")
      .def_readonly("position", &GoalError::position)
      .def_readonly("angle", &GoalError::angle)
      .def_readonly("aim", &GoalError::aim)
      .def_readonly("degenerate", &GoalError::degenerate)
      .def_readonly("active_alternative", &GoalError::active_alternative)
      .def("__repr__", [](const GoalError& e) {
        return "GoalError(position=" + std::to_string(e.position) +
               ", angle=" + std::to_string(e.angle) + ")";
      });

  py::class_<Goal, GoalPtr>(m, "Goal", "Base of every goal and regularizer.")
      .def_property_readonly("num_residuals", &Goal::num_residuals)
      .def_property("weight", &Goal::weight,
                    [](Goal& g, double weight) {
                      RefuseWhileSolving(g, "Goal.weight");
                      g.set_weight(weight);
                    },
                    "w >= 0, the goal's weight in the potential. Setting it (like every "
                    "goal setter: target, reference, name) raises RuntimeError while a "
                    "solve of a Problem holding the goal is running.")
      .def_property("name", &Goal::name,
                    [](Goal& g, std::string name) {
                      RefuseWhileSolving(g, "Goal.name");
                      g.set_name(std::move(name));
                    },
                    "A label for reports; the setter raises as weight's.")
      .def_property_readonly("uses_configuration", &Goal::uses_configuration)
      .def("evaluate",
           [](const Goal& goal, const Model& model, VectorNqArg q_object) {
             goal.CheckModel(model);
             const Eigen::VectorXd q = ToVector(q_object, "q", model.nq());
             const Data data = DataAt(model, q);
             Eigen::VectorXd r(goal.num_residuals());
             Eigen::MatrixXd J(goal.num_residuals(), model.nq());
             Eigen::Ref<Eigen::MatrixXd> J_ref(J);
             goal.Evaluate(model, data, q, r, &J_ref);
             return py::make_tuple(r, J);
           },
           py::arg("model"), py::arg("q"),
           "(residual r, Jacobian dr/dq) at q.")
      .def("error",
           [](const Goal& goal, const Model& model, VectorNqArg q_object) {
             goal.CheckModel(model);
             const Eigen::VectorXd q = ToVector(q_object, "q", model.nq());
             return goal.ErrorAt(model, DataAt(model, q), q);
           },
           py::arg("model"), py::arg("q"),
           "The goal's GoalError at q in natural units (position distance in the model's "
           "length units, angle in radians, aim = 1 - cos). Goals that read q directly "
           "(joint goals) report their error too. Raises ValueError for a q of the wrong "
           "size or a goal built for another model.");

  py::class_<InequalityGoal, Goal, std::shared_ptr<InequalityGoal>>(
      m, "InequalityGoal",
      "A goal g(q) <= 0: a hard inequality constraint, or a smooth penalty "
      "when added as a goal.")
      .def_property_readonly("num_constraints", &InequalityGoal::num_constraints)
      .def("evaluate_constraint",
           [](const InequalityGoal& goal, const Model& model, VectorNqArg q_object) {
             goal.CheckModel(model);
             const Eigen::VectorXd q = ToVector(q_object, "q", model.nq());
             const Data data = DataAt(model, q);
             Eigen::VectorXd g(goal.num_constraints());
             Eigen::MatrixXd J(goal.num_constraints(), model.nq());
             Eigen::Ref<Eigen::MatrixXd> J_ref(J);
             goal.EvaluateConstraint(model, data, q, g, &J_ref);
             return py::make_tuple(g, J);
           },
           py::arg("model"), py::arg("q"), "(g, dg/dq) at q; met when g <= 0.");
}

// Least-squares goals on a site.
void BindSiteGoals(py::module_& m) {
  py::class_<PositionGoal, Goal, std::shared_ptr<PositionGoal>>(m, "PositionGoal")
      .def(py::init([](const Model& model, SiteArg site, Vector3Arg target, double weight) {
             return std::make_shared<PositionGoal>(model, SiteName(model, site),
                                                   ToVector3(target, "target"), weight);
           }),
           py::arg("model"), py::arg("site"), py::arg("target"), py::arg("weight") = 1.0)
      .def_property("target", &PositionGoal::target,
                    [](PositionGoal& g, py::handle t) {
                      RefuseWhileSolving(g, "PositionGoal.target");
                      g.set_target(ToVector3(t, "target"));
                    },
                    "p_WT, the world position to reach (3 values, model length units). "
                    "The setter raises RuntimeError while a solve of a Problem holding "
                    "the goal is running.");
  py::class_<OrientationGoal, Goal, std::shared_ptr<OrientationGoal>>(m, "OrientationGoal")
      .def(py::init([](const Model& model, SiteArg site, Matrix3Arg target, double weight) {
             return std::make_shared<OrientationGoal>(model, SiteName(model, site),
                                                      ToMatrix3(target, "target"), weight);
           }),
           py::arg("model"), py::arg("site"), py::arg("target"), py::arg("weight") = 1.0)
      .def_property("target", &OrientationGoal::target,
                    [](OrientationGoal& g, py::handle t) {
                      RefuseWhileSolving(g, "OrientationGoal.target");
                      g.set_target(ToMatrix3(t, "target"));
                    },
                    "R_WG, the target rotation of the site in the world (3x3). The "
                    "setter raises RuntimeError while a solve of a Problem holding the "
                    "goal is running.");
  py::class_<AxisGoal, Goal, std::shared_ptr<AxisGoal>>(m, "AxisGoal")
      .def(py::init([](const Model& model, SiteArg site, Vector3Arg axis,
                       Vector3Arg target, double weight) {
             return std::make_shared<AxisGoal>(model, SiteName(model, site),
                                               ToVector3(axis, "axis"),
                                               ToVector3(target, "target"), weight);
           }),
           py::arg("model"), py::arg("site"), py::arg("axis"), py::arg("target"),
           py::arg("weight") = 1.0)
      .def_property_readonly("axis", &AxisGoal::axis,
                             "a_S, the unit axis in the site frame that should point along "
                             "target.")
      .def_property("target", &AxisGoal::target,
                    [](AxisGoal& g, py::handle t) {
                      RefuseWhileSolving(g, "AxisGoal.target");
                      g.set_target(ToVector3(t, "target"));
                    },
                    "a_G, the unit world direction the axis should point along (the "
                    "setter raises ValueError for a zero, non-unit or non-finite vector, "
                    "RuntimeError while a solve of a Problem holding the goal runs).");
  py::class_<RotationVectorGoal, Goal, std::shared_ptr<RotationVectorGoal>>(m, "RotationVectorGoal")
      .def(py::init([](const Model& model, SiteArg site, Matrix3Arg target, double weight) {
             return std::make_shared<RotationVectorGoal>(model, SiteName(model, site),
                                                         ToMatrix3(target, "target"), weight);
           }),
           py::arg("model"), py::arg("site"), py::arg("target"), py::arg("weight") = 1.0);
  py::class_<AxisTangentGoal, Goal, std::shared_ptr<AxisTangentGoal>>(m, "AxisTangentGoal")
      .def(py::init([](const Model& model, SiteArg site, Vector3Arg axis,
                       Vector3Arg target, double weight) {
             return std::make_shared<AxisTangentGoal>(model, SiteName(model, site),
                                                      ToVector3(axis, "axis"),
                                                      ToVector3(target, "target"), weight);
           }),
           py::arg("model"), py::arg("site"), py::arg("axis"), py::arg("target"),
           py::arg("weight") = 1.0);
  py::class_<PositionOrientationGoal, Goal, std::shared_ptr<PositionOrientationGoal>>(
      m, "PositionOrientationGoal",
      "Pose goal; target is a 4x4 array or (position, quaternion w x y z).")
      .def(py::init([](const Model& model, SiteArg site, PoseArg target, double weight,
                       double w_p, double w_o, double c_dx, double c_dy) {
             return std::make_shared<PositionOrientationGoal>(
                 model, SiteName(model, site), ToPose(target, "target"), weight,
                 PositionOrientationScales{w_p, w_o, c_dx, c_dy});
           }),
           py::arg("model"), py::arg("site"), py::arg("target"), py::arg("weight") = 1.0,
           py::arg("w_p") = 1.0, py::arg("w_o") = 1.0, py::arg("c_dx") = 1.0,
           py::arg("c_dy") = 1.0)
      .def_property("target",
                    [](const PositionOrientationGoal& g) { return PoseToArray(g.target()); },
                    [](PositionOrientationGoal& g, py::handle t) {
                      RefuseWhileSolving(g, "PositionOrientationGoal.target");
                      g.set_target(ToPose(t, "target"));
                    },
                    "X_WT, the target pose of the site in the world: reads a 4x4 array; "
                    "takes a 4x4 array or (position, quaternion w x y z). The setter "
                    "raises RuntimeError while a solve of a Problem holding the goal "
                    "is running.");
  py::class_<AimingGoal, Goal, std::shared_ptr<AimingGoal>>(m, "AimingGoal")
      .def(py::init([](const Model& model, SiteArg site, Vector3Arg direction,
                       Vector3Arg target, double weight, double min_distance) {
             return std::make_shared<AimingGoal>(model, SiteName(model, site),
                                                 ToVector3(direction, "direction"),
                                                 ToVector3(target, "target"), weight,
                                                 min_distance);
           }),
           py::arg("model"), py::arg("site"), py::arg("direction"), py::arg("target"),
           py::arg("weight") = 1.0, py::arg("min_distance") = AimingGoal::kDefaultMinDistance)
      .def_property_readonly("direction", &AimingGoal::direction,
                             "v_S, the aim direction in the site frame (unit).")
      .def_property_readonly("target", &AimingGoal::target,
                             "p, the world point the aim line should pass through.");
  py::class_<PlaneGoal, Goal, std::shared_ptr<PlaneGoal>>(m, "PlaneGoal")
      .def(py::init([](const Model& model, SiteArg site, Vector3Arg point,
                       Vector3Arg normal, double weight) {
             return std::make_shared<PlaneGoal>(model, SiteName(model, site),
                                                ToVector3(point, "point"),
                                                ToVector3(normal, "normal"), weight);
           }),
           py::arg("model"), py::arg("site"), py::arg("point"), py::arg("normal"),
           py::arg("weight") = 1.0)
      .def_property_readonly("point", &PlaneGoal::point,
                             "p, any point of the plane (world frame).")
      .def_property_readonly("normal", &PlaneGoal::normal,
                             "n, the plane's unit normal (world frame).");
}

// Composites: weighted sums and disjunctions (any one of).
void BindCompositeGoals(py::module_& m) {
  py::class_<WeightedSumGoal, Goal, std::shared_ptr<WeightedSumGoal>>(m, "WeightedSumGoal")
      .def(py::init([](const std::vector<GoalPtr>& goals, double weight) {
             return std::make_shared<WeightedSumGoal>(ConstGoals(goals), weight);
           }),
           py::arg("goals"), py::arg("weight") = 1.0)
      .def_property_readonly("goals", [](const WeightedSumGoal& g) { return MutableGoals(g.goals()); },
                             "The child goals, in order (their residuals are stacked).");
  py::class_<DisjunctiveGoal, Goal, std::shared_ptr<DisjunctiveGoal>>(m, "DisjunctiveGoal")
      .def(py::init([](const std::vector<GoalPtr>& goals, double weight) {
             return std::make_shared<DisjunctiveGoal>(ConstGoals(goals), weight);
           }),
           py::arg("goals"), py::arg("weight") = 1.0)
      .def_property_readonly("goals", [](const DisjunctiveGoal& g) { return MutableGoals(g.goals()); },
                             "The alternatives, in order; the goal is met when any one is.")
      .def("active_alternative",
           [](const DisjunctiveGoal& goal, const Model& model, VectorNqArg q_object) {
             goal.CheckModel(model);
             const Eigen::VectorXd q = ToVector(q_object, "q", model.nq());
             return goal.ActiveAlternative(model, DataAt(model, q), q);
           },
           py::arg("model"), py::arg("q"),
           "Index of the active alternative at q: the argmin of the children's "
           "potentials (lowest index on ties).");
}

// Regularizers: Tikhonov and the joint-centre bias.
void BindRegularizers(py::module_& m) {
  py::class_<TikhonovRegularizer, Goal, std::shared_ptr<TikhonovRegularizer>>(m, "TikhonovRegularizer")
      .def(py::init([](const Model& model, double alpha, VectorNqArg reference, double weight) {
             return std::make_shared<TikhonovRegularizer>(
                 model, alpha, ToVector(reference, "reference", model.nq()), weight);
           }),
           py::arg("model"), py::arg("alpha"), py::arg("reference"), py::arg("weight") = 1.0)
      .def_property_readonly("alpha", &TikhonovRegularizer::alpha,
                             "alpha >= 0 of the cost alpha * ||q - q_ref||^2.")
      .def_property("reference", &TikhonovRegularizer::reference,
                    [](TikhonovRegularizer& g, py::handle r) {
                      RefuseWhileSolving(g, "TikhonovRegularizer.reference");
                      g.set_reference(ToVector(r, "reference", g.reference().size()));
                    },
                    "q_ref (nq finite values), e.g. each solve's start pose; the setter "
                    "raises ValueError for a wrong size or a NaN/Inf, RuntimeError while a "
                    "solve of a Problem holding the regularizer is running.");
  py::class_<JointCenterBias, Goal, std::shared_ptr<JointCenterBias>>(m, "JointCenterBias")
      .def(py::init([](const Model& model, VectorNqArg centers, VectorNqArg gains, double weight) {
             return std::make_shared<JointCenterBias>(
                 model, ToVector(centers, "centers", model.nq()),
                 ToVector(gains, "gains", model.nq()), weight);
           }),
           py::arg("model"), py::arg("centers"), py::arg("gains"), py::arg("weight") = 1.0)
      .def_property_readonly("centers", &JointCenterBias::centers,
                             "q_c, the desired coordinates (nq values), e.g. mid_limits().")
      .def_property_readonly("gains", &JointCenterBias::gains,
                             "a, the gains (nq values >= 0; 0 leaves a coordinate free).")
      .def("cost", [](const JointCenterBias& g, VectorNqArg q) {
        return g.Cost(ToVector(q, "q", g.centers().size()));
      }, py::arg("q"),
      "H(q) = sum_i a_i (q_i - q_ci)^2, without the goal weight.");
}

// Joint-space goals.
void BindJointGoals(py::module_& m) {
  py::class_<JointPostureGoal, Goal, std::shared_ptr<JointPostureGoal>>(m, "JointPostureGoal")
      .def(py::init([](const Model& model, CoordinatesArg coordinates, VectorArg targets,
                       double weight) {
             const std::vector<int> c = Coordinates(model, coordinates);
             return std::make_shared<JointPostureGoal>(
                 model, c, ToVector(targets, "targets", static_cast<long>(c.size())), weight);
           }),
           py::arg("model"), py::arg("coordinates"), py::arg("targets"),
           py::arg("weight") = 1.0,
           "coordinates: dof indices or names.");
  py::class_<JointRangeGoal, InequalityGoal, std::shared_ptr<JointRangeGoal>>(m, "JointRangeGoal")
      .def(py::init([](const Model& model, CoordinatesArg coordinates, VectorArg lower,
                       VectorArg upper, double weight) {
             const std::vector<int> c = Coordinates(model, coordinates);
             const long n = static_cast<long>(c.size());
             return std::make_shared<JointRangeGoal>(model, c, ToVector(lower, "lower", n),
                                                     ToVector(upper, "upper", n), weight);
           }),
           py::arg("model"), py::arg("coordinates"), py::arg("lower"), py::arg("upper"),
           py::arg("weight") = 1.0);
}

// Inequality goals on sites: cones, gaze, boxes, distances.
void BindSiteInequalityGoals(py::module_& m) {
  py::class_<ConeGoal, InequalityGoal, std::shared_ptr<ConeGoal>>(m, "ConeGoal")
      .def(py::init([](const Model& model, SiteArg site, Vector3Arg axis,
                       Vector3Arg direction, double half_angle, double weight) {
             return std::make_shared<ConeGoal>(model, SiteName(model, site),
                                               ToVector3(axis, "axis"),
                                               ToVector3(direction, "direction"),
                                               half_angle, weight);
           }),
           py::arg("model"), py::arg("site"), py::arg("axis"), py::arg("direction"),
           py::arg("half_angle"), py::arg("weight") = 1.0)
      .def_property_readonly("half_angle", &ConeGoal::half_angle,
                             "alpha, the cone's half-angle in radians.");
  py::class_<GazeGoal, InequalityGoal, std::shared_ptr<GazeGoal>>(m, "GazeGoal")
      .def(py::init([](const Model& model, SiteArg site, Vector3Arg axis,
                       Vector3Arg target, double half_angle, double weight) {
             return std::make_shared<GazeGoal>(model, SiteName(model, site),
                                               ToVector3(axis, "axis"),
                                               ToVector3(target, "target"), half_angle,
                                               weight);
           }),
           py::arg("model"), py::arg("site"), py::arg("axis"), py::arg("target"),
           py::arg("half_angle"), py::arg("weight") = 1.0);
  py::class_<PositionBoxGoal, InequalityGoal, std::shared_ptr<PositionBoxGoal>>(m, "PositionBoxGoal")
      .def(py::init([](const Model& model, SiteArg site, PoseArg frame,
                       Vector3Arg lower, Vector3Arg upper, double weight) {
             return std::make_shared<PositionBoxGoal>(model, SiteName(model, site),
                                                      ToPose(frame, "frame"),
                                                      ToVector3(lower, "lower"),
                                                      ToVector3(upper, "upper"), weight);
           }),
           py::arg("model"), py::arg("site"), py::arg("frame"), py::arg("lower"),
           py::arg("upper"), py::arg("weight") = 1.0);
  py::class_<OrientationBoxGoal, InequalityGoal, std::shared_ptr<OrientationBoxGoal>>(
      m, "OrientationBoxGoal")
      .def(py::init([](const Model& model, SiteArg site, Matrix3Arg target,
                       Vector3Arg lower, Vector3Arg upper, double weight) {
             return std::make_shared<OrientationBoxGoal>(model, SiteName(model, site),
                                                         ToMatrix3(target, "target"),
                                                         ToVector3(lower, "lower"),
                                                         ToVector3(upper, "upper"), weight);
           }),
           py::arg("model"), py::arg("site"), py::arg("target"), py::arg("lower"),
           py::arg("upper"), py::arg("weight") = 1.0);
  py::class_<PointDistanceGoal, InequalityGoal, std::shared_ptr<PointDistanceGoal>>(
      m, "PointDistanceGoal")
      .def(py::init([](const Model& model, SiteArg site, Vector3Arg point,
                       double min_distance, double max_distance, double weight) {
             return std::make_shared<PointDistanceGoal>(model, SiteName(model, site),
                                                        ToVector3(point, "point"),
                                                        min_distance, max_distance, weight);
           }),
           py::arg("model"), py::arg("site"), py::arg("point"),
           py::arg("min_distance") = 0.0, py::arg("max_distance") = kInfinity,
           py::arg("weight") = 1.0);
  py::class_<SiteDistanceGoal, InequalityGoal, std::shared_ptr<SiteDistanceGoal>>(
      m, "SiteDistanceGoal")
      .def(py::init([](const Model& model, SiteArg site_a, SiteArg site_b,
                       double min_distance, double max_distance, double weight) {
             return std::make_shared<SiteDistanceGoal>(
                 model, SiteName(model, site_a), SiteName(model, site_b), min_distance,
                 max_distance, weight);
           }),
           py::arg("model"), py::arg("site_a"), py::arg("site_b"),
           py::arg("min_distance") = 0.0, py::arg("max_distance") = kInfinity,
           py::arg("weight") = 1.0);
}

// Goals between two sites: a relative pose, or a box around one.
void BindRelativePoseGoals(py::module_& m) {
  py::class_<RelativePoseGoal, Goal, std::shared_ptr<RelativePoseGoal>>(
      m, "RelativePoseGoal", "Site B held at the pose `target` (4x4) in site A's frame.")
      .def(py::init([](const Model& model, SiteArg site_a, SiteArg site_b,
                       PoseArg target, double weight, bool position, bool orientation,
                       double length_per_radian) {
             RelativePoseParts parts;
             parts.position = position;
             parts.orientation = orientation;
             parts.length_per_radian = length_per_radian;
             return std::make_shared<RelativePoseGoal>(
                 model, SiteName(model, site_a), SiteName(model, site_b),
                 ToPose(target, "target"), weight, parts);
           }),
           py::arg("model"), py::arg("site_a"), py::arg("site_b"), py::arg("target"),
           py::arg("weight") = 1.0, py::arg("position") = true, py::arg("orientation") = true,
           py::arg("length_per_radian") = 1.0)
      .def_property("target", [](const RelativePoseGoal& g) { return PoseToArray(g.target()); },
                    [](RelativePoseGoal& g, py::handle target) {
                      RefuseWhileSolving(g, "RelativePoseGoal.target");
                      g.set_target(ToPose(target, "target"));
                    },
                    "X_AB, the target pose of site B in site A's frame: reads a 4x4 "
                    "array; takes a 4x4 array or (position, quaternion w x y z). The "
                    "setter raises RuntimeError while a solve of a Problem holding the "
                    "goal is running.");
  py::class_<RelativePoseBoxGoal, InequalityGoal, std::shared_ptr<RelativePoseBoxGoal>>(
      m, "RelativePoseBoxGoal",
      "Site B's pose in site A's frame within a per-axis box [lower, upper] (x y z rx ry rz) "
      "around `target`.")
      .def(py::init([](const Model& model, SiteArg site_a, SiteArg site_b,
                       PoseArg target, VectorArg lower, VectorArg upper, double weight) {
             return std::make_shared<RelativePoseBoxGoal>(
                 model, SiteName(model, site_a), SiteName(model, site_b),
                 ToPose(target, "target"), ToVector(lower, "lower", 6),
                 ToVector(upper, "upper", 6), weight);
           }),
           py::arg("model"), py::arg("site_a"), py::arg("site_b"), py::arg("target"),
           py::arg("lower"), py::arg("upper"), py::arg("weight") = 1.0);
}

// Collision geometry from the model files and the goal over it
// (framework/collision_geometry.h, constraints/shape_collision.h,
// constraints/self_collision_matrix.h).
void BindShapeCollisions(py::module_& m) {
  py::enum_<ShapeType>(m, "ShapeType", "The kinds of collision shape.")
      .value("SPHERE", ShapeType::kSphere)
      .value("CAPSULE", ShapeType::kCapsule)
      .value("CYLINDER", ShapeType::kCylinder)
      .value("BOX", ShapeType::kBox)
      .value("CONVEX", ShapeType::kConvex);
  py::class_<CollisionShape>(m, "CollisionShape",
                             "A collision shape in its own frame G: capsules and cylinders lie "
                             "along G's z axis, centred; boxes are centred.")
      .def_static("sphere", [](double radius) {
        CollisionShape s = CollisionShape::Sphere(radius);
        s.Validate("CollisionShape.sphere");
        return s;
      }, py::arg("radius"), "A sphere of `radius` (> 0). Raises ValueError otherwise.")
      .def_static("capsule", [](double radius, double half_length) {
        CollisionShape s = CollisionShape::Capsule(radius, half_length);
        s.Validate("CollisionShape.capsule");
        return s;
      }, py::arg("radius"), py::arg("half_length"),
      "A capsule: the segment from z = -half_length to +half_length (>= 0) swept by a "
      "sphere of `radius` (> 0).")
      .def_static("cylinder", [](double radius, double half_length) {
        CollisionShape s = CollisionShape::Cylinder(radius, half_length);
        s.Validate("CollisionShape.cylinder");
        return s;
      }, py::arg("radius"), py::arg("half_length"),
      "A cylinder of `radius` (> 0) from z = -half_length to +half_length (> 0).")
      .def_static("box", [](Vector3Arg half_extents) {
        CollisionShape s = CollisionShape::Box(ToVector3(half_extents, "half_extents"));
        s.Validate("CollisionShape.box");
        return s;
      }, py::arg("half_extents"), "A box of half side lengths `half_extents` (each > 0).")
      .def_readonly("type", &CollisionShape::type, "The ShapeType.")
      .def_readonly("radius", &CollisionShape::radius,
                    "Sphere, capsule, cylinder: the radius (model length units).")
      .def_readonly("half_length", &CollisionShape::half_length,
                    "Capsule, cylinder: half the length along z.")
      .def_readonly("half_extents", &CollisionShape::half_extents,
                    "Box: half the side lengths along x, y, z.")
      .def("__repr__", [](const CollisionShape& s) {
        return std::string("<CollisionShape ") + ShapeTypeName(s.type) + ">";
      });
  py::class_<LinkShape>(m, "LinkShape", "A collision shape fixed to a link.")
      .def(py::init([](std::string link, CollisionShape shape, py::object pose,
                       std::string name) {
             shape.Validate("LinkShape on link '" + link + "'");
             LinkShape s;
             s.X_LG = pose.is_none() ? Eigen::Isometry3d::Identity() : ToPose(pose, "pose");
             s.name = name.empty() ? link + "/shape" : std::move(name);
             s.link = std::move(link);
             s.shape = std::move(shape);
             return s;
           }),
           py::arg("link"), py::arg("shape"), py::arg("pose") = py::none(),
           py::arg("name") = "",
           "`shape` fixed to `link` at `pose` (X_LG: 4 x 4, or (position, quaternion w x y "
           "z); None: the link frame); `name` for messages ('' : '<link>/shape').")
      .def_readonly("link", &LinkShape::link, "Name of the link.")
      .def_readonly("name", &LinkShape::name,
                    "'<link>/collision<k>' (URDF) or the geom's name (MJCF).")
      .def_property_readonly("pose", [](const LinkShape& s) { return PoseToArray(s.X_LG); },
                             "X_LG: the shape frame in the link frame, 4 x 4.")
      .def_readonly("shape", &LinkShape::shape, "The CollisionShape.");
  py::class_<WorldShape>(m, "WorldShape", "A shape fixed in the world (an obstacle).")
      .def(py::init([](std::string name, py::object pose, CollisionShape shape) {
             shape.Validate("WorldShape '" + name + "'");
             return WorldShape{std::move(name), ToPose(pose, "pose"), std::move(shape)};
           }),
           py::arg("name"), py::arg("pose"), py::arg("shape"),
           "An obstacle `shape` at `pose` (4 x 4, or (position, quaternion w x y z)) in the "
           "model's root frame.")
      .def_readonly("name", &WorldShape::name, "The obstacle's name.")
      .def_property_readonly("pose", [](const WorldShape& s) { return PoseToArray(s.X_WG); },
                             "X_WG: the shape frame in the world, 4 x 4.")
      .def_readonly("shape", &WorldShape::shape, "The CollisionShape.");
  m.def(
      "load_urdf_collision",
      [](const std::string& path, const Model& model, bool capsules_from_cylinders) {
        UrdfCollisionOptions options;
        options.capsules_from_cylinders = capsules_from_cylinders;
        return LoadUrdfCollision(path, model, options);
      },
      py::arg("path"), py::arg("model"), py::arg("capsules_from_cylinders") = true,
      "The collision shapes (LinkShape list) of the URDF's <collision> elements on the "
      "links of `model`: spheres, cylinders, boxes exactly, meshes as their convex hull; "
      "a cylinder with a sphere of its radius on each end cap is read as one capsule "
      "unless `capsules_from_cylinders` is False. "
      "Raises ValueError naming the file, link and element for a missing mesh or a bad "
      "size.");
  py::enum_<CollisionPairReason>(m, "CollisionPairReason",
                                 "Why a link pair is or is not checked (MoveIt's reasons).")
      .value("ENABLED", CollisionPairReason::kEnabled)
      .value("ADJACENT", CollisionPairReason::kAdjacent)
      .value("DEFAULT", CollisionPairReason::kDefault)
      .value("ALWAYS", CollisionPairReason::kAlways)
      .value("NEVER", CollisionPairReason::kNever);
  py::class_<SelfCollisionMatrix>(m, "SelfCollisionMatrix",
                                  "Which link pairs need a self-collision check, decided as "
                                  "MoveIt's setup assistant does.")
      .def_readonly("samples", &SelfCollisionMatrix::samples, "Sampled configurations N.")
      .def_readonly("seed", &SelfCollisionMatrix::seed, "Seed of the samples.")
      .def_property_readonly("pairs", [](const SelfCollisionMatrix& matrix) {
        py::list out;
        for (const LinkPairEntry& e : matrix.pairs) {
          out.append(py::make_tuple(e.first, e.second, e.reason, e.collisions));
        }
        return out;
      }, "Every pair of links with shapes: (first, second, CollisionPairReason, collisions "
         "in the samples).")
      .def("enabled_pairs", &SelfCollisionMatrix::EnabledPairs,
           "The checked link pairs (reason ENABLED) as (first, second) names.")
      .def("count", &SelfCollisionMatrix::Count, py::arg("reason"),
           "The number of pairs with this reason.");
  m.def("compute_self_collision_matrix",
        [](const Model& model, const std::vector<LinkShape>& shapes, int samples,
           std::uint64_t seed, double contact_distance) {
          SelfCollisionMatrixOptions options;
          options.samples = samples;
          options.seed = seed;
          options.contact_distance = contact_distance;
          return ComputeSelfCollisionMatrix(model, shapes, options);
        },
        py::arg("model"), py::arg("shapes"), py::arg("samples") = 10000, py::arg("seed") = 1,
        py::arg("contact_distance") = 0.0,
        "The self-collision matrix of `shapes` on `model`: adjacent links, pairs in "
        "collision at the default configuration, in every one or in none of `samples` "
        "random configurations (seeded), the rest enabled. Raises ValueError for bad "
        "options or an unknown link.");
  py::class_<ShapeCollisionGoal, InequalityGoal, std::shared_ptr<ShapeCollisionGoal>>(
      m, "ShapeCollisionGoal",
      "Minimum-distance inequalities c_k = margin - d_k(q) <= 0 between link shapes and "
      "obstacles and between the shapes of the self pairs.")
      .def(py::init([](const Model& model, std::vector<LinkShape> bodies,
                       std::vector<WorldShape> obstacles,
                       std::vector<std::pair<std::string, std::string>> self_pairs,
                       double margin, double weight) {
             return std::make_shared<ShapeCollisionGoal>(model, std::move(bodies),
                                                         std::move(obstacles), self_pairs,
                                                         margin, weight);
           }),
           py::arg("model"), py::arg("bodies"),
           py::arg("obstacles") = std::vector<WorldShape>{},
           py::arg("self_pairs") = std::vector<std::pair<std::string, std::string>>{},
           py::arg("margin") = 0.0, py::arg("weight") = 1.0,
           "Raises ValueError for an unknown link, an invalid shape, a negative margin or "
           "nothing to check.")
      .def("distances", [](const ShapeCollisionGoal& g, const Model& model, VectorNqArg q) {
        g.CheckModel(model);
        return g.Distances(model, DataAt(model, ToVector(q, "q", model.nq())));
      }, py::arg("model"), py::arg("q"),
      "Signed distance d_k of every checked shape pair at q (negative = penetration "
      "depth), model length units.")
      .def("pair_names", [](const ShapeCollisionGoal& g) {
        std::vector<std::string> names;
        for (int k = 0; k < static_cast<int>(g.pairs().size()); ++k) {
          names.push_back(g.PairName(k));
        }
        return names;
      }, "'shape / other shape' of every checked pair, in distances() order.")
      .def_property_readonly("margin", &ShapeCollisionGoal::margin,
                             "The required clearance (model length units).");
  m.def("capsule_on_link", [](const std::string& link, Vector3Arg a, Vector3Arg b,
                              double radius, const std::string& name) {
    return CapsuleOnLink(link, ToVector3(a, "a"), ToVector3(b, "b"), radius, name);
  }, py::arg("link"), py::arg("a"), py::arg("b"), py::arg("radius"), py::arg("name") = "",
  "A LinkShape: the capsule of `radius` around the segment [a, b] in the link's frame "
  "(a sphere when a == b). Raises ValueError for non-finite ends or a radius that is "
  "not finite and > 0.");
  m.def("capsule_obstacle", [](const std::string& name, Vector3Arg a, Vector3Arg b,
                               double radius) {
    return CapsuleObstacle(name, ToVector3(a, "a"), ToVector3(b, "b"), radius);
  }, py::arg("name"), py::arg("a"), py::arg("b"), py::arg("radius"),
  "A WorldShape: the capsule of `radius` around the world segment [a, b].");
  m.def("sphere_obstacle", [](const std::string& name, Vector3Arg center, double radius) {
    return SphereObstacle(name, ToVector3(center, "center"), radius);
  }, py::arg("name"), py::arg("center"), py::arg("radius"),
  "A WorldShape: a sphere of `radius` at `center`.");
  m.def("fit_chain_capsules", &FitChainCapsules, py::arg("model"), py::arg("links"),
        py::arg("radius"),
        "LinkShapes along a chain: for each listed link a capsule of `radius` from "
        "the link's origin to the origin of the next listed link (taken at q = 0), in "
        "the link's frame; the last link gets a sphere at its origin. Raises ValueError "
        "for an unknown link, no links, or a radius that is not finite and > 0.");
  m.def("link_pairs_apart", &LinkPairsApart, py::arg("model"), py::arg("bodies"),
        py::arg("skip_neighbors"),
        py::arg("allowed") = std::vector<std::pair<std::string, std::string>>{},
        "Self pairs by distance along the tree: the pairs of links carrying bodies "
        "more than skip_neighbors links apart (parent/child = 1), except `allowed`.");
}

// Bounds: box bounds on q (joint limits).
void BindBounds(py::module_& m) {
  py::class_<Bounds>(m, "Bounds", "Box bounds on q (joint limits).")
      .def(py::init([](VectorArg lower, VectorArg upper) {
             Bounds b{ToVector(lower, "lower"), ToVector(upper, "upper")};
             b.Validate();
             return b;
           }),
           py::arg("lower"), py::arg("upper"))
      .def_static("from_model", &Bounds::FromModel, py::arg("model"),
                  "The model's joint limits.")
      .def_static("unbounded", &Bounds::Unbounded, py::arg("n"),
                  "n coordinates, all (-inf, inf).")
      .def_readonly("lower", &Bounds::lower, "Lower bound per coordinate (-inf: none).")
      .def_readonly("upper", &Bounds::upper, "Upper bound per coordinate (inf: none).")
      .def_property_readonly("size", &Bounds::size, "Number of coordinates.")
      .def("set",
           [](Bounds& b, int index, double lo, double hi) {
             RefuseWhileSolving(b, "set");
             b.Set(index, lo, hi);
           },
           py::arg("index"), py::arg("lower"), py::arg("upper"),
           "Overrides the bounds of coordinate `index`. Raises ValueError for an index "
           "out of range, a NaN, or lower > upper; RuntimeError when these are the "
           "bounds of a Problem (problem.bounds is a view, not a copy) that a solve "
           "is running on.")
      .def("contains", [](const Bounds& b, VectorNqArg q, double tolerance) {
        return b.Contains(ToVector(q, "q", b.size()), tolerance);
      }, py::arg("q"), py::arg("tolerance") = 0.0,
      "True if every q_i lies in [lower_i - tolerance, upper_i + tolerance] (False "
      "with a NaN).")
      .def("project", [](const Bounds& b, VectorNqArg q) {
        return b.Project(ToVector(q, "q", b.size()));
      }, py::arg("q"), "The closest point of the box: q clamped coordinate-wise.");
}

// Problem: goals, regularizers, hard constraints and bounds over one model.
void BindProblem(py::module_& m) {
  py::class_<Problem, std::shared_ptr<Problem>>(
      m, "Problem",
      "Goals, regularizers, hard constraints and bounds over one model.")
      .def(py::init([](std::shared_ptr<Model> model) {
             return std::make_shared<Problem>(std::move(model));
           }),
           py::arg("model"))
      .def("add_goal",
           [](Problem& p, GoalPtr g) {
             RefuseWhileSolving(p, "add_goal");
             return p.AddGoal(std::move(g));
           },
           py::arg("goal"),
           "Adds a goal (its weight counts in the potential) and returns its index in "
           "goals. Raises ValueError for None or a goal built for a different model, "
           "RuntimeError while a solve of this problem is running.")
      .def("add_regularizer",
           [](Problem& p, GoalPtr g) {
             RefuseWhileSolving(p, "add_regularizer");
             return p.AddRegularizer(std::move(g));
           },
           py::arg("regularizer"),
           "Adds a regularizer (e.g. TikhonovRegularizer, JointCenterBias), stacked after "
           "the goals: it enters the potential but not the goal errors. Returns its index "
           "in regularizers. Raises as add_goal.")
      .def("add_equality_constraint",
           [](Problem& p, GoalPtr g) {
             RefuseWhileSolving(p, "add_equality_constraint");
             return p.AddEqualityConstraint(std::move(g));
           },
           py::arg("constraint"),
           "Adds a hard equality constraint r(q) = 0 (the goal's weight is ignored; only "
           "the constrained-NLP solvers honour it) and returns its index in "
           "equality_constraints. Raises as add_goal.")
      .def("add_inequality_constraint",
           [](Problem& p, std::shared_ptr<InequalityGoal> g) {
             RefuseWhileSolving(p, "add_inequality_constraint");
             return p.AddInequalityConstraint(std::move(g));
           },
           py::arg("constraint"),
           "Adds a hard inequality constraint c(q) <= 0 (weight ignored; only the "
           "constrained-NLP solvers honour it) and returns its index in "
           "inequality_constraints. Raises as add_goal.")
      .def_property_readonly("model", [](const Problem& p) {
        return std::const_pointer_cast<Model>(p.shared_model());
      }, "The Model the problem is posed on.")
      .def_property_readonly("goals", [](const Problem& p) { return MutableGoals(p.goals()); },
                             "The goals, in the order added.")
      .def_property_readonly("regularizers",
                             [](const Problem& p) { return MutableGoals(p.regularizers()); },
                             "The regularizers, in the order added.")
      .def_property_readonly("equality_constraints", [](const Problem& p) {
        return MutableGoals(p.equality_constraints());
      }, "The hard equality constraints, in the order added.")
      .def_property_readonly("inequality_constraints", [](const Problem& p) {
        std::vector<std::shared_ptr<InequalityGoal>> out;
        for (const auto& c : p.inequality_constraints()) {
          out.push_back(std::const_pointer_cast<InequalityGoal>(c));
        }
        return out;
      }, "The hard inequality constraints, in the order added.")
      .def_property_readonly("num_equality_constraints", &Problem::num_equality_constraints)
      .def_property_readonly("num_inequality_constraints",
                             &Problem::num_inequality_constraints, "Rows of c(q).")
      .def_property_readonly("has_constraints", &Problem::has_constraints)
      .def_property_readonly("nq", &Problem::nq, "Number of coordinates (the model's nq).")
      .def_property_readonly("num_residuals", &Problem::num_residuals)
      .def_property("bounds", &Problem::bounds,
                    [](Problem& p, const Bounds& bounds) {
                      RefuseWhileSolving(p, "bounds");
                      p.set_bounds(bounds);
                    },
                    "Box bounds on q; start as Bounds.from_model(model). The setter "
                    "raises RuntimeError while a solve of this problem is running.")
      .def("with_constraints_as_goals", &Problem::WithConstraintsAsGoals,
           "A copy whose hard constraints are weighted goals (appended after the goals, "
           "inequalities in their smooth penalty form): the formulation every solver "
           "can take.")
      .def("with_goals_as_constraints", &Problem::WithGoalsAsConstraints,
           "A copy whose weighted goals are hard constraints (appended before the "
           "existing ones), keeping the regularizers as the objective: the constrained-"
           "NLP formulation. An InequalityGoal becomes c <= 0, every other goal an "
           "equality in a minimal form with independent rows (constraints/problem.h).")
      .def("evaluate_residuals",
           [](const Problem& p, VectorNqArg q_object) {
             const Eigen::VectorXd q = ToVector(q_object, "q", p.nq());
             ProblemWorkspace ws(p);
             Eigen::VectorXd r(p.num_residuals());
             Eigen::MatrixXd J(p.num_residuals(), p.nq());
             Eigen::Ref<Eigen::MatrixXd> J_ref(J);
             p.EvaluateResiduals(q, &ws, r, &J_ref);
             return py::make_tuple(r, J);
           },
           py::arg("q"), "(stacked residuals, their Jacobian) at q.")
      .def("evaluate_potential",
           [](const Problem& p, VectorNqArg q_object) {
             const Eigen::VectorXd q = ToVector(q_object, "q", p.nq());
             ProblemWorkspace ws(p);
             Eigen::VectorXd g(p.nq());
             Eigen::Ref<Eigen::VectorXd> g_ref(g);
             const double value = p.EvaluatePotential(q, &ws, &g_ref);
             return py::make_tuple(value, g);
           },
           py::arg("q"), "(potential P(q), gradient) at q.")
      .def("evaluate_constraints",
           [](const Problem& p, VectorNqArg q_object) {
             const Eigen::VectorXd q = ToVector(q_object, "q", p.nq());
             ProblemWorkspace ws(p);
             Eigen::VectorXd c_eq(p.num_equality_constraints());
             Eigen::VectorXd c_in(p.num_inequality_constraints());
             Eigen::MatrixXd J_eq(p.num_equality_constraints(), p.nq());
             Eigen::MatrixXd J_in(p.num_inequality_constraints(), p.nq());
             Eigen::Ref<Eigen::MatrixXd> J_eq_ref(J_eq), J_in_ref(J_in);
             p.EvaluateConstraints(q, &ws, c_eq, c_in, &J_eq_ref, &J_in_ref);
             return py::make_tuple(c_eq, c_in, J_eq, J_in);
           },
           py::arg("q"),
           "(equality values, inequality values, their Jacobians); met when "
           "equalities are 0 and inequalities <= 0.")
      .def("goal_errors",
           [](const Problem& p, VectorNqArg q_object) {
             const Eigen::VectorXd q = ToVector(q_object, "q", p.nq());
             ProblemWorkspace ws(p);
             return p.GoalErrors(q, &ws);
           },
           py::arg("q"),
           "Per-goal GoalError in natural units at q, in the order of goals (runs FK). "
           "Raises ValueError for a q of the wrong size or with a NaN/Inf.");
}

}  // namespace

void BindConstraints(py::module_& m) {
  BindGoalBases(m);
  BindSiteGoals(m);
  BindCompositeGoals(m);
  BindRegularizers(m);
  BindJointGoals(m);
  BindSiteInequalityGoals(m);
  BindRelativePoseGoals(m);
  BindShapeCollisions(m);
  BindBounds(m);
  BindProblem(m);
}

}  // namespace iklab::python
