#include "solvers/differential/ccd_solver.h"

#include <algorithm>
#include <cmath>
#include <sstream>
#include <utility>
#include <vector>

#include "constraints/orientation_goal.h"
#include "constraints/position_goal.h"
#include "constraints/position_orientation_goal.h"
#include "framework/internal/check.h"
#include "framework/kinematics.h"
#include "solvers/differential/internal/best_angle.h"
#include "solvers/differential/internal/differential_loop.h"

namespace iklab {

using internal::Invalid;

namespace internal {

double BestAngleInInterval(double theta_star, double lo, double hi) {
  constexpr double kTwoPi = 2.0 * M_PI;
  const double t = std::remainder(theta_star, kTwoPi);
  // The representative t + 2πk nearest to the interval point closest to 0.
  const double p = std::min(std::max(0.0, lo), hi);
  const double r = t + kTwoPi * std::round((p - t) / kTwoPi);
  double best = 0.0;
  double best_distance = kInfinity;
  for (const double c : {r, r - kTwoPi, r + kTwoPi}) {
    if (c >= lo && c <= hi && std::abs(c - p) < best_distance) {
      best = c;
      best_distance = std::abs(c - p);
    }
  }
  if (best_distance < kInfinity) return best;
  // No maximizer inside (the interval is shorter than 2π, so both ends are
  // finite): the end nearer to θ* in angle has the larger cos.
  return std::cos(lo - t) >= std::cos(hi - t) ? lo : hi;
}

}  // namespace internal

namespace {

// One vector-matching term w ‖target − v‖² of a goal's potential.
struct Term {
  int step;                // step the site sits on
  int site;                // site index
  bool point;              // point (site origin) or direction (site axis)
  double weight;           // w ≥ 0
  Eigen::Vector3d target;  // world point or world direction
  Eigen::Vector3d local;   // direction in the site frame (direction terms)
};

class CcdMethod final : public DifferentialMethod {
 public:
  explicit CcdMethod(const CcdOptions& options) : options_(options) {}

  bool Prepare(const Problem& problem, std::string* why) override {
    if (!options_.IsValid(why)) return false;
    if (!problem.regularizers().empty()) {
      return Invalid(why,
                     "ccd: regularizers are not supported (the per-joint "
                     "optimum is derived for site goals only); remove them or "
                     "use a Jacobian method.");
    }
    const Model& model = problem.model();
    if (model.has_mimics()) {
      // CCD turns one joint at a time to its own optimum; a leader also
      // turns its mimics, which that optimum does not account for.
      return Invalid(why,
                     "ccd: joint '" +
                         model.full_dof_joint(model.mimics()[0].joint) +
                         "' is a mimic joint; CCD's per-joint optimum assumes "
                         "independent joints (use a Jacobian method).");
    }
    terms_.clear();
    for (std::size_t i = 0; i < problem.goals().size(); ++i) {
      const Goal* goal = problem.goals()[i].get();
      const double w = goal->weight();
      if (const auto* g = dynamic_cast<const PositionGoal*>(goal)) {
        AddPoint(model, g->site(), w, g->target());
      } else if (const auto* g = dynamic_cast<const OrientationGoal*>(goal)) {
        AddAxes(model, g->site(), w, w, g->target());
      } else if (const auto* g = dynamic_cast<const AxisGoal*>(goal)) {
        AddDirection(model, g->site(), w, g->target(), g->axis());
      } else if (const auto* g =
                     dynamic_cast<const PositionOrientationGoal*>(goal)) {
        const auto& s = g->scales();
        AddPoint(model, g->site(), w * s.w_p, g->target().translation());
        AddAxes(model, g->site(), w * s.w_o * s.c_dx * s.c_dx,
                w * s.w_o * s.c_dy * s.c_dy, g->target().linear());
      } else {
        std::ostringstream s;
        s << "ccd: goal " << i << " (" << goal->name()
          << ") is of a kind CCD does not support; supported: position, "
             "orientation, axis and position+orientation goals.";
        return Invalid(why, s.str());
      }
    }
    // moves_[term * nq + i]: does coordinate i move term's site?
    const int n = model.nq();
    moves_.assign(terms_.size() * n, 0);
    for (std::size_t k = 0; k < terms_.size(); ++k) {
      for (int s = terms_[k].step; s > 0; s = model.parent(s)) {
        if (model.dof(s) >= 0) moves_[k * n + model.dof(s)] = 1;
      }
    }
    data_ = std::make_unique<Data>(model);
    q_.resize(n);
    return true;
  }

  bool needs_jacobian() const override { return false; }
  bool enforces_limits() const override { return true; }

  bool ComputeStep(const Linearization& lin, Eigen::VectorXd* dq,
                   std::string*) override {
    const Model& model = lin.problem.model();
    const int n = model.nq();
    q_ = lin.q;
    for (int i = n - 1; i >= 0; --i) {  // outermost inward
      ForwardKinematics(model, q_, data_.get());
      const int s = model.dof_step(i);
      const Eigen::Isometry3d& X = data_->X_W(s);
      const Eigen::Vector3d a = X.linear() * model.axis(s);
      const Eigen::Vector3d o = X.translation();
      const double lo = lin.bounds ? lin.bounds->lower(i) - q_(i) : -kInfinity;
      const double hi = lin.bounds ? lin.bounds->upper(i) - q_(i) : kInfinity;
      double delta = 0.0;
      if (model.kind(s) == StepKind::kRevolute) {
        double A = 0.0;
        double B = 0.0;
        for (std::size_t k = 0; k < terms_.size(); ++k) {
          if (!moves_[k * n + i]) continue;
          const Term& term = terms_[k];
          const Eigen::Isometry3d X_WS = SitePose(model, *data_, term.site);
          Eigen::Vector3d v = term.point ? Eigen::Vector3d(X_WS.translation() - o)
                                         : Eigen::Vector3d(X_WS.linear() * term.local);
          Eigen::Vector3d t = term.point ? Eigen::Vector3d(term.target - o)
                                         : term.target;
          v -= a * a.dot(v);  // components perpendicular to the axis
          t -= a * a.dot(t);
          A += term.weight * t.dot(v);
          B += term.weight * a.dot(v.cross(t));
        }
        if (A == 0.0 && B == 0.0) continue;  // the coordinate cannot help
        delta = internal::BestAngleInInterval(std::atan2(B, A), lo, hi);
      } else if (model.kind(s) == StepKind::kPrismatic) {
        double numerator = 0.0;
        double denominator = 0.0;
        for (std::size_t k = 0; k < terms_.size(); ++k) {
          if (!moves_[k * n + i] || !terms_[k].point) continue;
          const Term& term = terms_[k];
          const Eigen::Vector3d p = SitePosition(model, *data_, term.site);
          numerator += term.weight * a.dot(term.target - p);
          denominator += term.weight;
        }
        if (denominator == 0.0) continue;
        delta = std::min(std::max(numerator / denominator, lo), hi);
      }
      q_(i) += delta;
    }
    *dq = q_ - lin.q;
    return true;
  }

 private:
  void AddPoint(const Model& model, int site, double w,
                const Eigen::Vector3d& target) {
    terms_.push_back({model.site_step(site), site, true, w, target,
                      Eigen::Vector3d::Zero()});
  }
  void AddDirection(const Model& model, int site, double w,
                    const Eigen::Vector3d& target,
                    const Eigen::Vector3d& local) {
    terms_.push_back({model.site_step(site), site, false, w, target, local});
  }
  void AddAxes(const Model& model, int site, double w_x, double w_y,
               const Eigen::Matrix3d& R_WG) {
    AddDirection(model, site, w_x, R_WG.col(0), Eigen::Vector3d::UnitX());
    AddDirection(model, site, w_y, R_WG.col(1), Eigen::Vector3d::UnitY());
  }

  const CcdOptions& options_;
  std::vector<Term> terms_;
  std::vector<char> moves_;
  std::unique_ptr<Data> data_;
  Eigen::VectorXd q_;
};

}  // namespace

bool CcdOptions::IsValid(std::string* why) const {
  return common.IsValid(why) && step.IsValid(why);
}

Result CcdSolver::Solve(const Problem& problem,
                        const Eigen::VectorXd& q0) const {
  CcdMethod method(options_);
  return internal::RunDifferentialSolve(problem, q0, options_.common,
                                        options_.step, name(), &method);
}

Result Solve(const Problem& problem, const Eigen::VectorXd& q0,
             const CcdOptions& options) {
  return CcdSolver(options).Solve(problem, q0);
}

std::unique_ptr<Solver> MakeSolver(const CcdOptions& options) {
  return std::make_unique<CcdSolver>(options);
}

}  // namespace iklab
