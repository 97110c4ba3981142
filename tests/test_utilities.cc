#include "tests/test_utilities.h"

#include <unistd.h>

#include <cmath>
#include <string>

namespace iklab::testing {

Joint Revolute(const std::string& name, const std::string& parent,
               const std::string& child) {
  Joint j;
  j.name = name;
  j.parent = parent;
  j.child = child;
  return j;
}

Eigen::Vector3d RandomUnitVector(std::mt19937* rng) {
  std::normal_distribution<double> normal;
  Eigen::Vector3d v;
  do {
    v = Eigen::Vector3d(normal(*rng), normal(*rng), normal(*rng));
  } while (v.norm() < 1e-3);
  return v.normalized();
}

Eigen::Vector3d RandomPoint(std::mt19937* rng, double scale) {
  std::uniform_real_distribution<double> u(-scale, scale);
  return Eigen::Vector3d(u(*rng), u(*rng), u(*rng));
}

namespace {

Eigen::Vector3d RandomAxis(std::mt19937* rng) {
  std::uniform_int_distribution<int> pick(0, 5);
  const int k = pick(*rng);
  if (k < 3) return Eigen::Vector3d::Unit(k);
  return RandomUnitVector(rng);
}

Eigen::Isometry3d RandomTransform(std::mt19937* rng) {
  std::uniform_real_distribution<double> uniform(-1.0, 1.0);
  Eigen::Isometry3d X = Eigen::Isometry3d::Identity();
  if (uniform(*rng) > -0.3) {  // leave some pure translations
    X.linear() = Eigen::AngleAxisd(M_PI * uniform(*rng), RandomUnitVector(rng))
                     .toRotationMatrix();
  }
  X.translation() =
      Eigen::Vector3d(uniform(*rng), uniform(*rng), uniform(*rng));
  return X;
}

}  // namespace

Figure RandomFigure(std::mt19937* rng, const RandomFigureOptions& options) {
  std::uniform_real_distribution<double> uniform(0.0, 1.0);
  Figure figure("link0");
  for (int j = 0; j < options.num_joints; ++j) {
    Joint joint;
    joint.name = "joint" + std::to_string(j);
    const int parent = uniform(*rng) < options.branching
                           ? static_cast<int>(uniform(*rng) * (j + 1)) % (j + 1)
                           : j;
    joint.parent = "link" + std::to_string(parent);
    joint.child = "link" + std::to_string(j + 1);
    joint.X_PJ = RandomTransform(rng);
    const double r = uniform(*rng);
    if (!options.all_kinds || r < 0.45) {
      joint.kind = JointKind::kRevolute;
    } else if (r < 0.65) {
      joint.kind = JointKind::kPrismatic;
    } else if (r < 0.82) {
      joint.kind = JointKind::kSpherical;
    } else if (r < 0.9) {
      joint.kind = JointKind::kFixed;
    } else {
      joint.kind = JointKind::kFloating;
    }
    joint.axis = RandomAxis(rng);
    for (auto& a : joint.spherical_axes) a = RandomAxis(rng);
    for (int k = 0; k < 6; ++k) {
      joint.lower[k] = -0.5 - 2.0 * uniform(*rng);
      joint.upper[k] = 0.5 + 2.0 * uniform(*rng);
    }
    figure.AddJoint(joint);
  }
  for (int s = 0; s < options.num_sites; ++s) {
    const int link = static_cast<int>(uniform(*rng) * (options.num_joints + 1)) %
                     (options.num_joints + 1);
    figure.AddSite({"site" + std::to_string(s), "link" + std::to_string(link),
                    RandomTransform(rng)});
  }
  return figure;
}

Eigen::VectorXd RandomConfiguration(const Model& model, std::mt19937* rng) {
  std::uniform_real_distribution<double> uniform(0.0, 1.0);
  Eigen::VectorXd q(model.nq());
  for (int i = 0; i < model.nq(); ++i) {
    const double lo = model.bounded(i) ? model.lower()[i] : -M_PI;
    const double hi = model.bounded(i) ? model.upper()[i] : M_PI;
    q[i] = lo + (hi - lo) * uniform(*rng);
  }
  return q;
}

Eigen::MatrixXd NumericJacobian(
    const std::function<Eigen::VectorXd(const Eigen::VectorXd&)>& f,
    const Eigen::VectorXd& x, double h) {
  const Eigen::VectorXd f0 = f(x);
  Eigen::MatrixXd J(f0.size(), x.size());
  Eigen::VectorXd xp = x, xm = x;
  for (Eigen::Index i = 0; i < x.size(); ++i) {
    xp[i] = x[i] + h;
    xm[i] = x[i] - h;
    J.col(i) = (f(xp) - f(xm)) / (2.0 * h);
    xp[i] = xm[i] = x[i];
  }
  return J;
}

double RelativeError(const Eigen::MatrixXd& analytic,
                     const Eigen::MatrixXd& numeric) {
  return ((analytic - numeric).array().abs() /
          numeric.array().abs().max(1.0))
      .maxCoeff();
}

std::filesystem::path ScratchPath(const std::string& name) {
  return std::filesystem::temp_directory_path() /
         (name + "-" + std::to_string(::getpid()));
}

}  // namespace iklab::testing
