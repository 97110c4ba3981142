#include "framework/denavit_hartenberg.h"

#include <cmath>

#include "framework/internal/check.h"

namespace iklab {

using internal::ThrowInvalidArgument;

namespace {

// "DH row 3 ('elbow')", 1-based like the tables in papers; row < 1 when the
// caller has no table (DhTransform).
std::string RowName(const DhRow& row, int index) {
  const std::string name = row.name.empty() && index >= 1
                               ? "joint" + std::to_string(index)
                               : row.name;
  std::string out = index >= 1 ? "DH row " + std::to_string(index) : "DH row";
  if (!name.empty()) out += " ('" + name + "')";
  return out;
}

void CheckRow(const DhRow& row, int index) {
  if (row.kind != JointKind::kRevolute && row.kind != JointKind::kPrismatic) {
    ThrowInvalidArgument(RowName(row, index),
                         ": kind must be revolute or prismatic, got ",
                         JointKindName(row.kind));
  }
  const struct {
    const char* name;
    double value;
  } numbers[] = {
      {"a", row.a}, {"alpha", row.alpha}, {"d", row.d}, {"theta", row.theta}};
  for (const auto& n : numbers) {
    if (!std::isfinite(n.value)) {
      ThrowInvalidArgument(RowName(row, index), ": ", n.name,
                           " must be finite, got ", n.value);
    }
  }
  if (std::isnan(row.lower) || std::isnan(row.upper) || row.lower > row.upper) {
    ThrowInvalidArgument(RowName(row, index),
                         ": limits must satisfy lower <= upper and not be "
                         "NaN; got [",
                         row.lower, ", ", row.upper, "]");
  }
}

Eigen::Isometry3d RotX(double angle) {
  Eigen::Isometry3d X = Eigen::Isometry3d::Identity();
  X.linear() =
      Eigen::AngleAxisd(angle, Eigen::Vector3d::UnitX()).toRotationMatrix();
  return X;
}

Eigen::Isometry3d RotZ(double angle) {
  Eigen::Isometry3d X = Eigen::Isometry3d::Identity();
  X.linear() =
      Eigen::AngleAxisd(angle, Eigen::Vector3d::UnitZ()).toRotationMatrix();
  return X;
}

Eigen::Isometry3d Trans(double x, double z) {
  Eigen::Isometry3d X = Eigen::Isometry3d::Identity();
  X.translation() = Eigen::Vector3d(x, 0, z);
  return X;
}

// The constant part of a row, with its joint variable at the table's value.
// Classic:  C = Rot_z(θ) Trans_z(d) Trans_x(a) Rot_x(α), and T(q) = A(q) C
//   because the motion (Rot_z(q) or Trans_z(q)) commutes with Rot_z(θ) and
//   Trans_z(d) and so can be pulled to the front.
// Modified: C = Rot_x(α) Trans_x(a) Rot_z(θ) Trans_z(d), and T(q) = C A(q)
//   for the same reason, pulled to the back.
Eigen::Isometry3d ConstantPart(const DhRow& row, DhConvention convention) {
  if (convention == DhConvention::kClassic) {
    return RotZ(row.theta) * Trans(row.a, row.d) * RotX(row.alpha);
  }
  return RotX(row.alpha) * Trans(row.a, 0) * RotZ(row.theta) * Trans(0, row.d);
}

Eigen::Isometry3d Motion(JointKind kind, double q) {
  return kind == JointKind::kRevolute ? RotZ(q) : Trans(0, q);
}

void CheckRigid(const Eigen::Isometry3d& X, const char* what) {
  if (!internal::IsRigidTransform(X)) {
    ThrowInvalidArgument("DenavitHartenbergFigure: ", what,
                         " must be a finite rigid transform; got\n",
                         X.matrix());
  }
}

Site MakeSite(const std::string& name, const std::string& link,
              const Eigen::Isometry3d& X_LS) {
  return Site{name, link, X_LS};
}

}  // namespace

Eigen::Isometry3d DhTransform(const DhRow& row, DhConvention convention,
                              double q) {
  CheckRow(row, 0);
  if (!std::isfinite(q)) {
    ThrowInvalidArgument("DhTransform: q must be finite, got ", q);
  }
  const Eigen::Isometry3d C = ConstantPart(row, convention);
  return convention == DhConvention::kClassic ? Motion(row.kind, q) * C
                                              : C * Motion(row.kind, q);
}

Figure DenavitHartenbergFigure(const DhTable& table) {
  if (table.rows.empty()) {
    ThrowInvalidArgument(
        "DenavitHartenbergFigure: the table has no rows; "
        "expected at least one");
  }
  CheckRigid(table.X_base, "X_base");
  CheckRigid(table.X_tool, "X_tool");
  const int n = static_cast<int>(table.rows.size());
  for (int i = 1; i <= n; ++i) CheckRow(table.rows[i - 1], i);

  const bool classic = table.convention == DhConvention::kClassic;
  Figure f("link0");
  f.AddSite(MakeSite("frame0", "link0", table.X_base));
  // Classic: joint i turns about z_{i−1}, so its joint frame is frame i−1 and
  // the row's constant part C_i leads to frame i (a site) and to joint i+1.
  // Modified: joint i turns about z_i, so its joint frame is frame i−1 · C_i
  // and the link frame is frame i itself.
  Eigen::Isometry3d X_previous = table.X_base;  // frame i−1 in link i−1
  for (int i = 1; i <= n; ++i) {
    const DhRow& row = table.rows[i - 1];
    const Eigen::Isometry3d C = ConstantPart(row, table.convention);
    Joint j;
    j.name = row.name.empty() ? "joint" + std::to_string(i) : row.name;
    j.parent = "link" + std::to_string(i - 1);
    j.child = "link" + std::to_string(i);
    j.kind = row.kind;
    j.axis = Eigen::Vector3d::UnitZ();
    j.X_PJ = classic ? X_previous : X_previous * C;
    j.WithLimits(row.lower, row.upper);
    f.AddJoint(j);
    X_previous = classic ? C : Eigen::Isometry3d::Identity();
    f.AddSite(MakeSite("frame" + std::to_string(i), j.child, X_previous));
  }
  f.AddSite(
      MakeSite("tool", "link" + std::to_string(n), X_previous * table.X_tool));
  return f;
}

}  // namespace iklab
