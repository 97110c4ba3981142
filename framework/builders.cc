#include "framework/builders.h"

#include <cmath>

#include "framework/internal/check.h"
#include "framework/internal/constants.h"

namespace iklab {

using internal::ThrowInvalidArgument;

namespace {

using internal::kPi;

constexpr double Deg(double degrees) { return degrees * kPi / 180.0; }

Eigen::Isometry3d Translation(double x, double y, double z) {
  Eigen::Isometry3d X = Eigen::Isometry3d::Identity();
  X.translation() = Eigen::Vector3d(x, y, z);
  return X;
}

Eigen::Isometry3d Rotation(const Eigen::Vector3d& axis, double angle) {
  Eigen::Isometry3d X = Eigen::Isometry3d::Identity();
  X.linear() = Eigen::AngleAxisd(angle, axis).toRotationMatrix();
  return X;
}

void CheckLength(const char* what, double length) {
  if (!std::isfinite(length) || length <= 0.0) {
    ThrowInvalidArgument(what, " must be finite and > 0, got ", length);
  }
}

// A revolute joint about z with relative angle and no limits: the element of
// every planar figure.
Joint PlanarJoint(const std::string& name, const std::string& parent,
                  const std::string& child, double offset_x) {
  Joint j;
  j.name = name;
  j.parent = parent;
  j.child = child;
  j.kind = JointKind::kRevolute;
  j.axis = Eigen::Vector3d::UnitZ();
  j.X_PJ = Translation(offset_x, 0, 0);
  return j;
}

Site MakeSite(const std::string& name, const std::string& link,
              const Eigen::Vector3d& p_LS = Eigen::Vector3d::Zero()) {
  Site s{name, link, Eigen::Isometry3d::Identity()};
  s.X_LS.translation() = p_LS;
  return s;
}

// Adds the NLP paper's links first … last (1-based θ indices) as a planar
// chain hanging from `parent_link` at distance `offset` along its x axis.
// Returns the name of the last link.
std::string AddNlpBranch(Figure* f, const std::string& parent_link,
                         double offset, int first, int last, double length) {
  std::string parent = parent_link;
  for (int i = first; i <= last; ++i) {
    const std::string link = "link" + std::to_string(i);
    f->AddJoint(PlanarJoint("theta" + std::to_string(i), parent, link,
                            i == first ? offset : length));
    f->AddSite(MakeSite("joint" + std::to_string(i), link));
    parent = link;
  }
  return parent;
}

// Joint of a spherical joint with the given Euler axes and the limits
// lower/upper[first … first + 2].
Joint SphericalJoint(const std::string& name, const std::string& parent,
                     const std::string& child, const Eigen::Isometry3d& X_PJ,
                     const std::array<Eigen::Vector3d, 3>& axes,
                     const double* lower, const double* upper) {
  Joint j;
  j.name = name;
  j.parent = parent;
  j.child = child;
  j.kind = JointKind::kSpherical;
  j.X_PJ = X_PJ;
  j.spherical_axes = axes;
  for (int i = 0; i < 3; ++i) {
    j.lower[i] = lower[i];
    j.upper[i] = upper[i];
  }
  return j;
}

// Limits given for the left side as [lo, hi] in degrees; on the right side a
// rotation about x or z changes sign (mirror rule of LimbGeometry), so its
// interval becomes [−hi, −lo].
void SetMirroredLimits(Side side, const Eigen::Vector3d& axis, int index,
                       double lo_degrees, double hi_degrees,
                       Eigen::Matrix<double, 7, 1>* lower,
                       Eigen::Matrix<double, 7, 1>* upper) {
  const bool flips = side == Side::kRight && axis != Eigen::Vector3d::UnitY();
  (*lower)[index] = Deg(flips ? -hi_degrees : lo_degrees);
  (*upper)[index] = Deg(flips ? -lo_degrees : hi_degrees);
}

void CheckBody(const Anthropometry& body) {
  CheckLength("Anthropometry::height", body.height);
  if (!std::isfinite(body.carrying_angle) ||
      std::abs(body.carrying_angle) >= kPi / 4) {
    ThrowInvalidArgument(
        "Anthropometry::carrying_angle must be finite with |angle| < pi/4 ",
        "(human values are 5-15 degrees), got ", body.carrying_angle);
  }
}

// Left-side limits in degrees of the seven coordinates, see the header.
struct LimbLimitsDegrees {
  double lo[7];
  double hi[7];
};

LimbGeometry MakeLimb(Side side, const std::string& kind, double upper_length,
                      double lower_length, const LimbLimitsDegrees& limits) {
  LimbGeometry g;
  g.side = side;
  g.kind = kind;
  g.upper_length = upper_length;
  g.lower_length = lower_length;
  const Eigen::Vector3d x = Eigen::Vector3d::UnitX();
  const Eigen::Vector3d y = Eigen::Vector3d::UnitY();
  const Eigen::Vector3d z = Eigen::Vector3d::UnitZ();
  // S1: flexion (y), then ab/adduction (x), then axial rotation (z). With the
  // limb hanging along z, the middle (isolated-sine) angle is the abduction,
  // so the Euler extraction is singular only with the limb horizontal to the
  // side.
  g.s1_axes = {y, x, z};
  // S2: axial twist first (pronation happens in the forearm, proximal to the
  // wrist), then flexion (y), then deviation (x). The middle angle is the
  // flexion, whose range stays well inside ±90°.
  g.s2_axes = {z, y, x};
  g.f_axis = y;
  const Eigen::Vector3d axes[7] = {y, x, z, y, z, y, x};
  for (int i = 0; i < 7; ++i) {
    SetMirroredLimits(side, axes[i], i, limits.lo[i], limits.hi[i], &g.lower,
                      &g.upper);
  }
  // The limb frame is the standing world frame turned by π about x.
  g.X_RS1 = Rotation(x, kPi);
  return g;
}

}  // namespace

Figure PlanarChain(const std::vector<double>& lengths,
                   const Eigen::Vector2d& base, const std::string& prefix) {
  if (lengths.empty()) {
    ThrowInvalidArgument(
        "PlanarChain: lengths is empty; expected at least one "
        "link length");
  }
  for (size_t i = 0; i < lengths.size(); ++i) {
    CheckLength(internal::StrCat("PlanarChain: lengths[", i, "]").c_str(),
                lengths[i]);
  }
  if (!base.allFinite()) {
    ThrowInvalidArgument("PlanarChain: base must be finite, got (", base.x(),
                         ", ", base.y(), ")");
  }
  Figure f("base");
  std::string parent = "base";
  const int n = static_cast<int>(lengths.size());
  for (int i = 0; i < n; ++i) {
    const std::string link = prefix + "link" + std::to_string(i);
    Joint j = PlanarJoint(prefix + "q" + std::to_string(i), parent, link,
                          i == 0 ? 0.0 : lengths[i - 1]);
    if (i == 0) j.X_PJ = Translation(base.x(), base.y(), 0);
    f.AddJoint(j);
    f.AddSite(MakeSite(prefix + "joint" + std::to_string(i), link));
    parent = link;
  }
  const Eigen::Vector3d tip(lengths.back(), 0, 0);
  f.AddSite(MakeSite(prefix + "joint" + std::to_string(n), parent, tip));
  f.AddSite(MakeSite(prefix + "effector", parent, tip));
  return f;
}

Figure ParentArm() { return PlanarChain({15, 10, 5}); }

Figure SochChain() {
  return PlanarChain({90, 60, 90, 150, 150, 90}, Eigen::Vector2d(-230, 0));
}

Figure NlpBranchedFigure(int num_effectors, double link_length) {
  if (num_effectors < 2 || num_effectors > 4) {
    ThrowInvalidArgument(
        "NlpBranchedFigure: num_effectors must be 2, 3 or 4, "
        "got ",
        num_effectors);
  }
  CheckLength("NlpBranchedFigure: link_length", link_length);
  const double l = link_length;
  Figure f("base");
  const std::string end1 = AddNlpBranch(&f, "base", 0.0, 1, 6, l);
  f.AddSite(MakeSite("effector1", end1, Eigen::Vector3d(l, 0, 0)));
  // Branches leave after joint 3: their first joint sits at the end of link 3.
  const std::string end2 = AddNlpBranch(&f, "link3", l, 7, 9, l);
  f.AddSite(MakeSite("effector2", end2, Eigen::Vector3d(l, 0, 0)));
  if (num_effectors >= 3) {
    const std::string end3 = AddNlpBranch(&f, "link3", l, 10, 12, l);
    f.AddSite(MakeSite("effector3", end3, Eigen::Vector3d(l, 0, 0)));
  }
  if (num_effectors >= 4) {
    f.AddSite(MakeSite("effector4", "link2", Eigen::Vector3d(l, 0, 0)));
  }
  return f;
}

const char* SideName(Side side) {
  return side == Side::kLeft ? "left" : "right";
}

LimbGeometry TolaniArmGeometry(Side side, const Anthropometry& body) {
  CheckBody(body);
  const double H = body.height;
  // Left-side ranges in degrees (AAOS 1965; see the header for each choice).
  const LimbLimitsDegrees limits = {{-60, -30, -90, 0, 0, -70, -30},
                                    {180, 90, 70, 150, 160, 80, 20}};
  LimbGeometry g = MakeLimb(side, "arm", 0.186 * H, 0.146 * H, limits);
  g.A = Translation(0, 0, g.upper_length);
  // Carrying angle: the forearm leans laterally, i.e. toward −y of the limb
  // frame on the left side (y points to the figure's right) and +y on the
  // right. S2's frame is turned with it so θ5 twists about the forearm.
  const double gamma =
      side == Side::kLeft ? body.carrying_angle : -body.carrying_angle;
  g.B = Rotation(Eigen::Vector3d::UnitX(), gamma);
  g.B.translation() = g.B.linear() * Eigen::Vector3d(0, 0, g.lower_length);
  g.p_S2_tip = Eigen::Vector3d(0, 0, 0.108 * H);
  g.s1_name = "shoulder";
  g.f_name = "elbow";
  g.s2_name = "wrist";
  g.tip_site_name = "hand";
  return g;
}

LimbGeometry TolaniLegGeometry(Side side, const Anthropometry& body) {
  CheckBody(body);
  const double H = body.height;
  const LimbLimitsDegrees limits = {{-30, -30, -45, 0, -20, -50, -35},
                                    {120, 45, 45, 135, 20, 20, 15}};
  LimbGeometry g = MakeLimb(side, "leg", 0.245 * H, 0.246 * H, limits);
  // The knee bends the other way from the elbow: F's frame is turned by π
  // about the limb axis so that +θ4 (about its y) is flexion, and B turns it
  // back so the ankle frame is the limb frame at q = 0.
  g.A = Rotation(Eigen::Vector3d::UnitZ(), kPi);
  g.A.translation() = Eigen::Vector3d(0, 0, g.upper_length);
  g.B = Rotation(Eigen::Vector3d::UnitZ(), kPi);
  g.B.translation() = Eigen::Vector3d(0, 0, g.lower_length);
  // Toe tip: forward three quarters of the foot length, down to the floor.
  g.p_S2_tip = Eigen::Vector3d(0.75 * 0.152 * H, 0, 0.039 * H);
  g.s1_name = "hip";
  g.f_name = "knee";
  g.s2_name = "ankle";
  g.tip_site_name = "foot";
  return g;
}

namespace {

// Adds the 7-DOF limb to `f` below `parent_link`, S1's proximal frame at
// X_P_S1 in the parent link. Every joint, link and site name gets `prefix`.
void AddLimb(Figure* f, const LimbGeometry& g, const std::string& parent_link,
             const Eigen::Isometry3d& X_P_S1, const std::string& prefix) {
  const bool arm = g.kind == "arm";
  const std::string upper = prefix + (arm ? "upper_arm" : "thigh");
  const std::string lower = prefix + (arm ? "forearm" : "shank");
  const std::string distal = prefix + (arm ? "palm" : "foot");
  f->AddJoint(SphericalJoint(prefix + g.s1_name, parent_link, upper, X_P_S1,
                             g.s1_axes, &g.lower[0], &g.upper[0]));
  Joint elbow;
  elbow.name = prefix + g.f_name;
  elbow.parent = upper;
  elbow.child = lower;
  elbow.kind = JointKind::kRevolute;
  elbow.axis = g.f_axis;
  elbow.X_PJ = g.A;
  elbow.WithLimits(g.lower[3], g.upper[3]);
  f->AddJoint(elbow);
  f->AddJoint(SphericalJoint(prefix + g.s2_name, lower, distal, g.B, g.s2_axes,
                             &g.lower[4], &g.upper[4]));
  f->AddSite(MakeSite(prefix + g.s1_name, upper));
  f->AddSite(MakeSite(prefix + g.f_name, lower));
  f->AddSite(MakeSite(prefix + g.s2_name, distal));
  f->AddSite(MakeSite(prefix + g.tip_site_name, distal, g.p_S2_tip));
}

}  // namespace

Figure LimbFigure(const LimbGeometry& geometry) {
  if (geometry.kind != "arm" && geometry.kind != "leg") {
    ThrowInvalidArgument(
        "LimbFigure: geometry.kind must be \"arm\" or \"leg\", "
        "got \"",
        geometry.kind, "\"");
  }
  Figure f(geometry.kind == "arm" ? "torso" : "pelvis");
  AddLimb(&f, geometry, f.root_link(), geometry.X_RS1, "");
  return f;
}

Figure TolaniArm(Side side, const Anthropometry& body) {
  return LimbFigure(TolaniArmGeometry(side, body));
}

Figure TolaniLeg(Side side, const Anthropometry& body) {
  return LimbFigure(TolaniLegGeometry(side, body));
}

Figure HumanFigure(const HumanFigureOptions& options) {
  CheckBody(options.body);
  const double H = options.body.height;
  const Eigen::Vector3d x = Eigen::Vector3d::UnitX();
  const Eigen::Vector3d y = Eigen::Vector3d::UnitY();
  const Eigen::Vector3d z = Eigen::Vector3d::UnitZ();
  // Heights (fractions of H) of the joint centres; see the header for which
  // are Winter's and which are ours.
  constexpr double kHip = 0.530, kLumbar = 0.578, kLowerThoracic = 0.674,
                   kUpperThoracic = 0.770, kSternoclavicular = 0.800,
                   kShoulder = 0.818, kHead = 0.910;

  Figure f("world");
  Joint root;
  root.name = "root";
  root.parent = "world";
  root.child = "pelvis";
  root.kind = options.floating_root ? JointKind::kFloating : JointKind::kFixed;
  root.X_PJ = Translation(0, 0, kHip * H);
  f.AddJoint(root);
  f.AddSite(MakeSite("pelvis", "pelvis"));

  // Trunk: Ry (flexion) Rx (lateral bend) Rz (axial turn) in world-aligned
  // frames; AAOS ranges split equally over the joints that share them.
  const std::array<Eigen::Vector3d, 3> trunk_axes = {y, x, z};
  const double spine_lo[3] = {Deg(-25.0 / 3), Deg(-35.0 / 3), Deg(-45.0 / 3)};
  const double spine_hi[3] = {Deg(80.0 / 3), Deg(35.0 / 3), Deg(45.0 / 3)};
  const double neck_lo[3] = {Deg(-45.0 / 2), Deg(-45.0 / 2), Deg(-60.0 / 2)};
  const double neck_hi[3] = {Deg(45.0 / 2), Deg(45.0 / 2), Deg(60.0 / 2)};
  struct TrunkJoint {
    const char* name;
    const char* parent;
    const char* child;
    double from, to;  // heights of the parent's and this joint's centres
    const double* lo;
    const double* hi;
  };
  const TrunkJoint trunk[] = {
      {"lumbar", "pelvis", "abdomen", kHip, kLumbar, spine_lo, spine_hi},
      {"lower_thoracic", "abdomen", "thorax", kLumbar, kLowerThoracic, spine_lo,
       spine_hi},
      {"upper_thoracic", "thorax", "upper_thorax", kLowerThoracic,
       kUpperThoracic, spine_lo, spine_hi},
      {"neck", "upper_thorax", "neck", kUpperThoracic, kShoulder, neck_lo,
       neck_hi},
      {"head", "neck", "head", kShoulder, kHead, neck_lo, neck_hi},
  };
  for (const TrunkJoint& t : trunk) {
    f.AddJoint(SphericalJoint(t.name, t.parent, t.child,
                              Translation(0, 0, (t.to - t.from) * H),
                              trunk_axes, t.lo, t.hi));
  }
  f.AddSite(MakeSite("neck", "neck"));
  f.AddSite(MakeSite("head", "head", Eigen::Vector3d(0, 0, (1.0 - kHead) * H)));

  for (Side side : {Side::kLeft, Side::kRight}) {
    const std::string prefix = std::string(SideName(side)) + "_";
    const double s = side == Side::kLeft ? 1.0 : -1.0;  // y of this side

    // Arm, through the clavicle if asked.
    const double shoulder_y = 0.259 / 2 * H;
    const double sternoclavicular_y = 0.020 * H;
    std::string arm_parent = "upper_thorax";
    Eigen::Vector3d p_P_shoulder(0, s * shoulder_y,
                                 (kShoulder - kUpperThoracic) * H);
    if (options.clavicles) {
      Joint protraction;
      protraction.name = prefix + "clavicle_protraction";
      protraction.parent = "upper_thorax";
      protraction.child = prefix + "clavicle_base";
      protraction.axis = z;
      protraction.X_PJ = Translation(0, s * sternoclavicular_y,
                                     (kSternoclavicular - kUpperThoracic) * H);
      protraction.WithLimits(Deg(-25), Deg(25));
      f.AddJoint(protraction);
      // Positive rotation about x lifts a point on +y: elevation on the left,
      // depression on the right (mirror rule).
      Joint elevation;
      elevation.name = prefix + "clavicle_elevation";
      elevation.parent = prefix + "clavicle_base";
      elevation.child = prefix + "clavicle";
      elevation.axis = x;
      elevation.WithLimits(side == Side::kLeft ? Deg(-10) : Deg(-40),
                           side == Side::kLeft ? Deg(40) : Deg(10));
      f.AddJoint(elevation);
      arm_parent = prefix + "clavicle";
      p_P_shoulder = Eigen::Vector3d(0, s * (shoulder_y - sternoclavicular_y),
                                     (kShoulder - kSternoclavicular) * H);
    }
    const LimbGeometry arm = TolaniArmGeometry(side, options.body);
    Eigen::Isometry3d X_P_S1 = arm.X_RS1;
    X_P_S1.translation() = p_P_shoulder;
    AddLimb(&f, arm, arm_parent, X_P_S1, prefix);

    const LimbGeometry leg = TolaniLegGeometry(side, options.body);
    Eigen::Isometry3d X_pelvis_S1 = leg.X_RS1;
    X_pelvis_S1.translation() = Eigen::Vector3d(0, s * 0.05 * H, 0);
    AddLimb(&f, leg, "pelvis", X_pelvis_S1, prefix);
  }
  return f;
}

std::vector<std::string> HumanEndEffectorSites() {
  return {"left_hand", "right_hand", "left_foot", "right_foot", "head"};
}

}  // namespace iklab
