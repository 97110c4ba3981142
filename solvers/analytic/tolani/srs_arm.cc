#include "solvers/analytic/tolani/srs_arm.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <vector>

#include "framework/internal/check.h"
#include "solvers/analytic/tolani/internal/limb_math.h"

namespace iklab {
namespace {

using Eigen::Matrix3d;
using Eigen::Vector3d;
using internal::StrCat;
using internal::kPi;
using internal::limb::ShiftInto;
using internal::limb::Wrap;

Vector3d Perp(const Vector3d& k, const Vector3d& v) { return v - k.dot(v) * k; }

// Midpoint of the closest points of two non-parallel lines (unit a, b).
Vector3d ClosestPoint(const Vector3d& a, const Vector3d& pa, const Vector3d& b,
                      const Vector3d& pb) {
  const Vector3d r = pb - pa;
  const double c = a.dot(b);
  const double den = 1.0 - c * c;
  const double s = (a.dot(r) - c * b.dot(r)) / den;
  const double u = (c * a.dot(r) - b.dot(r)) / den;
  return 0.5 * ((pa + s * a) + (pb + u * b));
}

double Degrees(double radians) { return radians * 180.0 / kPi; }

// A rotation whose first two columns are a and (b made ⊥ a): a frame in
// which a = +x, b = +y.
Matrix3d FrameOf(const Vector3d& a, const Vector3d& b) {
  const Vector3d x = a.normalized();
  const Vector3d y = Perp(x, b).normalized();
  Matrix3d R;
  R << x, y, x.cross(y);
  return R;
}

// Snaps a unit vector within `tolerance` of a ± coordinate axis onto it.
Vector3d SnapToAxis(const Vector3d& v) {
  Eigen::Index i;
  v.cwiseAbs().maxCoeff(&i);
  return (v[i] > 0.0 ? 1.0 : -1.0) * Vector3d::Unit(i);
}

bool IsCoordinateAxis(const Vector3d& v, double tolerance) {
  return (v - SnapToAxis(v)).norm() <= tolerance;
}

const char* kAxisNames = "xyz";

// Checks one spherical joint (axes k0, k0+1, k0+2) and returns its centre.
bool SphericalJoint(const char* name, int k0, const std::array<Vector3d, 7>& h,
                    const std::array<Vector3d, 7>& p, double tolerance,
                    double length_tolerance, Vector3d* centre,
                    std::string* why) {
  const Vector3d &a = h[k0], &b = h[k0 + 1], &c = h[k0 + 2];
  const auto angle = [](const Vector3d& u, const Vector3d& v) {
    return Degrees(std::acos(std::clamp(u.dot(v), -1.0, 1.0)));
  };
  for (int n = 0; n < 2; ++n) {
    const Vector3d& u = h[k0 + n];
    const Vector3d& v = h[k0 + n + 1];
    if (std::abs(u.dot(v)) > tolerance) {
      *why = StrCat("tolani: ", name, " axes ", k0 + n + 1, " and ", k0 + n + 2,
                    " meet at ", angle(u, v),
                    " degrees, not 90: Tolani's Euler-angle analysis of the "
                    "swivel (3.2.4) needs perpendicular consecutive axes");
      return false;
    }
  }
  const double outer = std::abs(a.dot(c));
  if (outer > tolerance && outer < 1.0 - tolerance) {
    *why = StrCat("tolani: ", name, " axes ", k0 + 1, " and ", k0 + 3,
                  " are neither parallel nor perpendicular (", angle(a, c),
                  " degrees): not Euler angles");
    return false;
  }
  *centre = ClosestPoint(a, p[k0], b, p[k0 + 1]);
  for (int n = 0; n < 3; ++n) {
    const double miss = Perp(h[k0 + n], *centre - p[k0 + n]).norm();
    if (miss > length_tolerance) {
      *why = StrCat("tolani: the ", name,
                    " axes do not meet in one point: "
                    "axis ",
                    k0 + n + 1, " misses the meeting point of axes ", k0 + 1,
                    " and ", k0 + 2, " by ", miss,
                    " (an offset spherical joint is not SRS)");
      return false;
    }
  }
  return true;
}

std::string AxesName(const std::array<Vector3d, 3>& axes) {
  std::string name;
  for (const Vector3d& a : axes) {
    Eigen::Index i;
    a.cwiseAbs().maxCoeff(&i);
    if (!name.empty()) name += "-";
    name += static_cast<char>(std::toupper(kAxisNames[i]));
  }
  return name;
}

// The steps from the root to `site` (root first), the last seven revolute
// ones among them (the arm) and the position of the first of those in the
// path; false with *why when there are fewer than seven or a prismatic joint
// lies inside the arm.
bool FindArmJoints(const Model& model, int site, std::vector<int>* path,
                   std::vector<int>* joints, std::size_t* first,
                   std::string* why) {
  if (model.has_mimics()) {
    *why = StrCat("tolani: the model has mimic joints (e.g. '",
                  model.full_dof_joint(model.mimics()[0].joint),
                  "'); the closed form is for seven independent joints");
    return false;
  }
  // Steps from the site back to the root; the last seven revolute ones are
  // the arm, the step before the first of them its base.
  for (int s = model.site_step(site); s >= 0; s = model.parent(s)) {
    path->push_back(s);
    if (s == 0) break;
  }
  std::reverse(path->begin(), path->end());
  for (int s : *path) {
    if (model.kind(s) == StepKind::kRevolute) joints->push_back(s);
  }
  if (joints->size() < 7) {
    *why =
        StrCat("tolani: the chain to site \"", model.site_name(site), "\" has ",
               joints->size(), " revolute joints; an SRS arm needs 7");
    return false;
  }
  joints->erase(joints->begin(), joints->end() - 7);
  *first = std::find(path->begin(), path->end(), (*joints)[0]) - path->begin();
  for (std::size_t i = *first; i < path->size(); ++i) {
    const int step = (*path)[i];
    if (model.kind(step) == StepKind::kPrismatic) {
      *why = StrCat("tolani: coordinate ", model.dof(step), " (",
                    model.dof_name(model.dof(step)),
                    ") is a prismatic joint inside the arm; SRS arms are "
                    "revolute");
      return false;
    }
  }
  return true;
}

// Product-of-exponentials data at θ = 0 in the base frame: the joint axes h
// and points p, the site pose X_0, and the length scale L (summed distances
// between consecutive joint points and the site; 1 when zero).
struct ArmAxes {
  std::array<Vector3d, 7> h, p;
  Eigen::Isometry3d X_0;
  double scale = 1.0;
};

ArmAxes ReadArmAxes(const Model& model, int site, const std::vector<int>& path,
                    std::size_t first) {
  ArmAxes arm;
  Eigen::Isometry3d X = Eigen::Isometry3d::Identity();
  int k = 0;
  for (std::size_t i = first; i < path.size(); ++i) {
    const int step = path[i];
    X = X * model.X_PJ(step);
    if (model.kind(step) == StepKind::kRevolute) {
      arm.h[k] = (X.linear() * model.axis(step)).normalized();
      arm.p[k] = X.translation();
      ++k;
    }
  }
  arm.X_0 = X * model.X_FS(site);
  double scale = (arm.X_0.translation() - arm.p[6]).norm();
  for (int n = 1; n < 7; ++n) scale += (arm.p[n] - arm.p[n - 1]).norm();
  if (!(scale > 0.0)) scale = 1.0;
  arm.scale = scale;
  return arm;
}

// The limb frames in the base frame: L at the shoulder, W at the wrist, F at
// the elbow (see the file comment).
struct LimbFrames {
  Eigen::Isometry3d X_BL, X_BW, X_BF;
};

LimbFrames FramesOf(const std::array<Vector3d, 7>& h,
                    const std::array<Vector3d, 7>& p, const Vector3d& shoulder,
                    const Vector3d& wrist, double tolerance) {
  LimbFrames f;
  const bool aligned = IsCoordinateAxis(h[0], tolerance) &&
                       IsCoordinateAxis(h[1], tolerance) &&
                       IsCoordinateAxis(h[2], tolerance);
  f.X_BL = Eigen::Isometry3d::Identity();
  f.X_BL.linear() = aligned ? Matrix3d::Identity() : FrameOf(h[0], h[1]);
  f.X_BL.translation() = shoulder;
  f.X_BW = Eigen::Isometry3d::Identity();
  f.X_BW.linear() = FrameOf(h[4], h[5]);
  f.X_BW.translation() = wrist;
  // Elbow: y along h4, at the point of its axis closest to the shoulder.
  f.X_BF = Eigen::Isometry3d::Identity();
  const Vector3d e0 = p[3] + h[3] * h[3].dot(shoulder - p[3]);
  {
    const Vector3d reference =
        std::abs(h[3].x()) < 0.9 ? Vector3d::UnitX() : Vector3d::UnitZ();
    const Vector3d x = Perp(h[3], reference).normalized();
    Matrix3d F;
    F << x, h[3], x.cross(h[3]);
    f.X_BF.linear() = F;
  }
  f.X_BF.translation() = e0;
  return f;
}

// The limb geometry of the arm's joints in its frames; E is the site in the
// wrist frame.
LimbGeometry GeometryOf(const Model& model, int site,
                        const std::vector<int>& joints,
                        const std::array<Vector3d, 7>& h,
                        const LimbFrames& frames, const Eigen::Isometry3d& E) {
  const Eigen::Isometry3d& X_BL = frames.X_BL;
  const Eigen::Isometry3d& X_BW = frames.X_BW;
  const Eigen::Isometry3d& X_BF = frames.X_BF;
  LimbGeometry g;
  g.kind = "srs";
  g.s1_name = model.dof_joint(model.dof(joints[0]));
  g.f_name = model.dof_joint(model.dof(joints[3]));
  g.s2_name = model.dof_joint(model.dof(joints[4]));
  g.tip_site_name = model.site_name(site);
  g.A = X_BL.inverse(Eigen::Isometry) * X_BF;
  g.B = X_BF.inverse(Eigen::Isometry) * X_BW;
  g.upper_length = g.A.translation().norm();
  g.lower_length = g.B.translation().norm();
  g.X_RS1 = X_BL;
  for (int n = 0; n < 3; ++n) {
    g.s1_axes[n] = SnapToAxis(X_BL.linear().transpose() * h[n]);
    g.s2_axes[n] = SnapToAxis(X_BW.linear().transpose() * h[4 + n]);
  }
  g.f_axis = Vector3d::UnitY();
  for (int n = 0; n < 7; ++n) {
    g.lower[n] = model.lower()[model.dof(joints[n])];
    g.upper[n] = model.upper()[model.dof(joints[n])];
  }
  g.p_S2_tip = E.translation();
  return g;
}

}  // namespace

std::shared_ptr<const SrsArm> SrsArm::Create(const Model& model, int site,
                                             std::string* why,
                                             double tolerance) {
  if (why == nullptr) {
    internal::ThrowInvalidArgument("SrsArm::Create: why must not be null");
  }
  if (site < 0 || site >= model.num_sites()) {
    internal::ThrowInvalidArgument("SrsArm::Create: site must be in [0, ",
                                   model.num_sites(), "), got ", site);
  }
  if (!(tolerance > 0.0 && tolerance <= 1e-3)) {
    internal::ThrowInvalidArgument(
        "SrsArm::Create: tolerance must be in (0, 1e-3], got ", tolerance);
  }
  std::vector<int> path, joints;
  std::size_t first = 0;
  if (!FindArmJoints(model, site, &path, &joints, &first, why)) return nullptr;
  const int base = model.parent(path[first]);
  bool base_moves = false;
  for (std::size_t i = 0; i < first; ++i) {
    base_moves = base_moves || model.kind(path[i]) != StepKind::kFixed;
  }
  const ArmAxes axes = ReadArmAxes(model, site, path, first);
  const std::array<Vector3d, 7>& h = axes.h;
  const std::array<Vector3d, 7>& p = axes.p;
  const double scale = axes.scale;
  const double length_tolerance = tolerance * scale;

  Vector3d shoulder, wrist;
  if (!SphericalJoint("shoulder", 0, h, p, tolerance, length_tolerance,
                      &shoulder, why) ||
      !SphericalJoint("wrist", 4, h, p, tolerance, length_tolerance, &wrist,
                      why)) {
    return nullptr;
  }
  // Frames (see the file comment).
  const LimbFrames frames = FramesOf(h, p, shoulder, wrist, tolerance);
  const Eigen::Isometry3d& X_BL = frames.X_BL;
  const Eigen::Isometry3d E = frames.X_BW.inverse(Eigen::Isometry) * axes.X_0;
  const LimbGeometry g = GeometryOf(model, site, joints, h, frames, E);
  // Eq. (5) must depend on θ4: a = b = 0 when the elbow axis passes
  // through the shoulder or the wrist centre, or runs along their line.
  const internal::limb::ElbowEquation eq = internal::limb::ElbowCoefficients(
      g.A.translation(), g.A.linear(), g.B.translation());
  if (!(std::hypot(eq.a, eq.b) > tolerance * scale * scale)) {
    *why = StrCat(
        "tolani: the elbow axis (joint 4) does not change the "
        "shoulder-wrist distance (it passes through the shoulder or "
        "wrist centre): Tolani's Eq. (5) has no solution for theta4");
    return nullptr;
  }
  std::shared_ptr<SrsArm> arm(new SrsArm(g));
  arm->site_ = site;
  arm->base_step_ = base;
  arm->base_moves_ = base_moves;
  for (int n = 0; n < 7; ++n) arm->coordinate_[n] = model.dof(joints[n]);
  if (!base_moves) {
    Eigen::Isometry3d X_WB = Eigen::Isometry3d::Identity();
    for (std::size_t i = 0; i < first; ++i) X_WB = X_WB * model.X_PJ(path[i]);
    arm->X_WB_ = X_WB;
  }
  arm->X_BL_ = X_BL;
  arm->E_ = E;
  // φ = 0 reference: the base axis most perpendicular to shoulder → wrist.
  const Vector3d line = (wrist - shoulder).normalized();
  Eigen::Index best;
  line.cwiseAbs().minCoeff(&best);
  arm->swivel_reference_ = X_BL.linear().transpose() * Vector3d::Unit(best);
  arm->description_ =
      StrCat("SRS: shoulder ", AxesName(g.s1_axes),
             arm->ik_.shoulder_layout().proper ? " (proper Euler)"
                                               : " (Tait-Bryan)",
             ", wrist ", AxesName(g.s2_axes),
             arm->ik_.wrist_layout().proper ? " (proper Euler)"
                                            : " (Tait-Bryan)");
  return arm;
}

Eigen::Isometry3d SrsArm::Forward(const Vector7d& theta) const {
  return X_BL_ * ik_.Forward(theta) * E_;
}

SrsSolutions SrsArm::AllSolutions(const Eigen::Isometry3d& X_BT) const {
  SrsSolutions out;
  LimbIkOptions options;
  options.swivel_axis = swivel_reference_;
  const Eigen::Isometry3d G =
      X_BL_.inverse(Eigen::Isometry) * X_BT * E_.inverse(Eigen::Isometry);
  out.count_ = ik_.Parameterize(G, options, &out.families_);
  for (int r = 0; r < out.count_; ++r) {
    out.families_[r].Analyze(&out.analyses_[r]);
  }
  out.lower_ = ik_.lower();
  out.upper_ = ik_.upper();
  return out;
}

SwivelIntervals SrsSolutions::Valid() const {
  SwivelIntervals all;
  for (int r = 0; r < count_; ++r) all = all.Union(analyses_[r].valid);
  return all;
}

int SrsSolutions::Branches(double phi,
                           std::array<SrsBranch, 8>* branches) const {
  int n = 0;
  std::array<Vector7d, kNumFamilies * kNumFamilies> theta;
  for (int r = 0; r < count_; ++r) {
    families_[r].JointAnglesAllFamilies(phi, &theta);
    for (int f = 0; f < kNumFamilies; ++f) {
      for (int g = 0; g < kNumFamilies; ++g) {
        SrsBranch b;
        b.theta = theta[kNumFamilies * f + g];
        b.elbow_root = r;
        b.shoulder_family = f;
        b.wrist_family = g;
        bool duplicate = false;
        for (int i = 0; i < n && !duplicate; ++i) {
          double gap = 0.0;
          for (int k = 0; k < 7; ++k) {
            gap = std::max(
                gap, std::abs(Wrap((*branches)[i].theta[k] - b.theta[k])));
          }
          duplicate = gap <= 1e-9;
        }
        if (duplicate) continue;
        b.within_limits = true;
        for (int k = 0; k < 7; ++k) {
          double t = b.theta[k];
          b.within_limits = b.within_limits &&
                            ShiftInto(lower_[k], upper_[k], 0.0, &t) &&
                            t == b.theta[k];
        }
        (*branches)[n++] = b;
      }
    }
  }
  return n;
}

}  // namespace iklab
