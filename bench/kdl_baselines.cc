#include "bench/kdl_baselines.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <kdl/chainfksolverpos_recursive.hpp>
#include <kdl/chainiksolverpos_lma.hpp>
#include <kdl/chainiksolverpos_nr_jl.hpp>
#include <kdl/chainiksolvervel_pinv.hpp>
#include <kdl/frames.hpp>
#include <kdl/jntarray.hpp>
#include <random>
#include <string>
#include <utility>

#include "bench/internal/benchmark_pose.h"
#include "framework/internal/check.h"

namespace iklab {

using internal::ThrowInvalidArgument;

namespace {

KDL::Frame ToKdl(const Eigen::Isometry3d& X) {
  const Eigen::Matrix3d& R = X.linear();
  const Eigen::Vector3d& p = X.translation();
  // KDL::Rotation takes its nine entries row by row.
  return KDL::Frame(KDL::Rotation(R(0, 0), R(0, 1), R(0, 2), R(1, 0), R(1, 1),
                                  R(1, 2), R(2, 0), R(2, 1), R(2, 2)),
                    KDL::Vector(p.x(), p.y(), p.z()));
}

KDL::Joint ToKdlJoint(const Model& model, int step) {
  const Eigen::Vector3d& a = model.axis(step);
  // The joint moves about/along the axis through the segment's own origin;
  // with a zero origin KDL's RotAxis/TransAxis pose is exactly Rot(a, q) or
  // Trans(a q), and Segment keeps f_tip as given (pose(0) is the identity).
  const KDL::Joint::JointType type = model.kind(step) == StepKind::kRevolute
                                         ? KDL::Joint::RotAxis
                                         : KDL::Joint::TransAxis;
  return KDL::Joint(model.dof_name(model.dof(step)), KDL::Vector::Zero(),
                    KDL::Vector(a.x(), a.y(), a.z()), type);
}

// Counts the Newton steps of ChainIkSolverPos_NR_JL (one velocity solve per
// iteration; KDL does not report its iteration count).
class CountingPinv : public KDL::ChainIkSolverVel_pinv {
 public:
  using KDL::ChainIkSolverVel_pinv::CartToJnt;
  using KDL::ChainIkSolverVel_pinv::ChainIkSolverVel_pinv;
  int CartToJnt(const KDL::JntArray& q_in, const KDL::Twist& v_in,
                KDL::JntArray& qdot_out) override {
    ++steps;
    return KDL::ChainIkSolverVel_pinv::CartToJnt(q_in, v_in, qdot_out);
  }
  int steps = 0;
};

}  // namespace

KdlChain MakeKdlChain(const Model& model, int site) {
  if (site < 0 || site >= model.num_sites()) {
    ThrowInvalidArgument("MakeKdlChain: site index ", site,
                         " is out of range; the model has ", model.num_sites(),
                         " sites");
  }
  if (model.has_mimics()) {
    ThrowInvalidArgument("MakeKdlChain: joint '",
                         model.full_dof_joint(model.mimics()[0].joint),
                         "' is a mimic joint; a KDL chain has independent "
                         "joints only");
  }
  std::vector<int> path;  // root → site
  for (int step = model.site_step(site); step >= 0; step = model.parent(step)) {
    path.insert(path.begin(), step);
  }
  KdlChain out;
  // `pending` accumulates the constant transforms since the last moving step
  // (or the root); it becomes the tip frame of that step's segment.
  Eigen::Isometry3d pending = Eigen::Isometry3d::Identity();
  int moving = -1;  // last moving step, −1 before the first
  const auto flush = [&] {
    if (moving >= 0) {
      out.chain.addSegment(
          KDL::Segment(ToKdlJoint(model, moving), ToKdl(pending)));
    } else if (!pending.matrix().isIdentity(0.0)) {
      out.chain.addSegment(
          KDL::Segment(KDL::Joint(KDL::Joint::Fixed), ToKdl(pending)));
    }
    pending.setIdentity();
  };
  for (int step : path) {
    pending = pending * model.X_PJ(step);
    if (model.kind(step) != StepKind::kFixed) {
      flush();
      moving = step;
      out.coordinates.push_back(model.dof(step));
    }
  }
  pending = pending * model.X_FS(site);
  flush();

  std::vector<bool> seen(model.nq(), false);
  for (int i : out.coordinates) seen[i] = true;
  const bool every = static_cast<int>(out.coordinates.size()) == model.nq() &&
                     std::find(seen.begin(), seen.end(), false) == seen.end();
  if (!every) {
    ThrowInvalidArgument("MakeKdlChain: the path from the root to site '",
                         model.site_name(site), "' drives ",
                         out.coordinates.size(), " of the model's ", model.nq(),
                         " coordinates; a KDL chain needs the model to be one "
                         "serial chain ending at the site (load the URDF as a "
                         "base → tip chain)");
  }
  return out;
}

// KDL's parameters (chosen once, stated here):
//  * LMA: ChainIkSolverPos_LMA with KDL's default weights
//    L = (1, 1, 1, 0.01, 0.01, 0.01), maxiter = 500 and eps_joints = 1e-15
//    (KDL's defaults). Its success test is ‖L·e‖ < eps on the pose error e;
//    with the rotation weighted 0.01, KDL's default eps = 1e-5 would accept
//    rotation errors up to 1e-3 rad, a "success" the protocol rejects. So
//    eps = 0.01 × tolerance (1e-7 at the default tolerance): then KDL's
//    success implies every rotation component ≤ tolerance (and position
//    ≤ 0.01 × tolerance; LM converges fast near a solution, so the stricter
//    position test costs about one iteration).
//  * NR_JL: ChainIkSolverPos_NR_JL with maxiter = 100 (KDL's default) and
//    eps = tolerance (KDL's default is 1e-6; TRAC-IK's benchmark uses 1e-5):
//    its test, every twist component of diff(reached, target) ≤ eps, is the
//    protocol's test. Velocity solver ChainIkSolverVel_pinv with KDL's
//    defaults (singular-value eps = 1e-5, 150 SVD sweeps). Joint limits are
//    the model's, ±∞ for continuous joints (never clamped).
//  * Restarts: first from the benchmark seed, then from poses uniform within
//    the limits (continuous joints in (−π, π]) while KDL fails and the time
//    budget remains, checked between attempts (an attempt is never cut
//    short; the benchmark counts a late answer as a failure).
struct KdlBaselineSolver::Impl {
  static constexpr int kLmaMaxIterations = 500;
  static constexpr int kNrJlMaxIterations = 100;

  Impl(std::shared_ptr<const Model> model_in, int site,
       const KdlOptions& options_in)
      : model(std::move(model_in)),
        options(options_in),
        kdl(MakeKdlChain(*model, site)),
        nj(static_cast<int>(kdl.chain.getNrOfJoints())),
        q_init(nj),
        q_out(nj),
        lower(nj),
        upper(nj),
        fk(kdl.chain) {
    for (int k = 0; k < nj; ++k) {
      lower(k) = model->lower()[kdl.coordinates[k]];
      upper(k) = model->upper()[kdl.coordinates[k]];
    }
    // KDL's solvers assert on a chain without joints; Solve() reports it.
    if (nj == 0 || nj > KdlBaselineSolver::kMaxJoints) return;
    if (options.method == KdlMethod::kLma) {
      lma = std::make_unique<KDL::ChainIkSolverPos_LMA>(
          kdl.chain, 0.01 * options.tolerance, kLmaMaxIterations);
    } else {
      pinv = std::make_unique<CountingPinv>(kdl.chain);
      nr_jl = std::make_unique<KDL::ChainIkSolverPos_NR_JL>(
          kdl.chain, lower, upper, fk, *pinv, kNrJlMaxIterations,
          options.tolerance);
    }
  }

  // Uniform within the limits; unbounded coordinates in (−π, π]: the
  // benchmark's own draw (internal::DrawBenchmarkPose).
  void DrawRandomStart() {
    internal::DrawBenchmarkPose(lower.data, upper.data, &rng, &q_init.data);
  }

  // One KDL solve from q_init into q_out; adds KDL's iteration count.
  int Attempt(const KDL::Frame& goal, int* iterations) {
    if (lma) {
      const int rc = lma->CartToJnt(q_init, goal, q_out);
      *iterations += lma->lastNrOfIter;
      return rc;
    }
    pinv->steps = 0;
    const int rc = nr_jl->CartToJnt(q_init, goal, q_out);
    *iterations += pinv->steps;
    return rc;
  }

  std::shared_ptr<const Model> model;
  KdlOptions options;
  // KDL's solvers hold references to the chain and to each other: all of
  // them live here, at fixed addresses, for the solver's lifetime.
  KdlChain kdl;
  int nj;
  KDL::JntArray q_init, q_out, lower, upper;
  KDL::ChainFkSolverPos_recursive fk;
  std::unique_ptr<CountingPinv> pinv;
  std::unique_ptr<KDL::ChainIkSolverPos_NR_JL> nr_jl;
  std::unique_ptr<KDL::ChainIkSolverPos_LMA> lma;
  std::mt19937_64 rng;
};

KdlBaselineSolver::KdlBaselineSolver(std::shared_ptr<const Model> model,
                                     int site, const KdlOptions& options) {
  if (!model) ThrowInvalidArgument("KdlBaselineSolver: the model is null");
  if (!(options.tolerance > 0.0)) {
    ThrowInvalidArgument("KdlBaselineSolver: tolerance must be > 0, got ",
                         options.tolerance);
  }
  impl_ = std::make_unique<Impl>(std::move(model), site, options);
}

KdlBaselineSolver::~KdlBaselineSolver() = default;

const char* KdlBaselineSolver::name() const {
  return impl_->options.method == KdlMethod::kLma ? "kdl-lma" : "kdl-nr-jl";
}

Result KdlBaselineSolver::Solve(const Eigen::Isometry3d& X_BT,
                                const Eigen::VectorXd& seed) {
  const auto start = std::chrono::steady_clock::now();
  const auto elapsed = [&start] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() -
                                         start)
        .count();
  };
  Impl& m = *impl_;
  Result result;
  result.solver = name();
  result.attempts = 0;
  if (m.nj == 0) {
    result.status = SolveStatus::kInvalidInput;
    result.message =
        "the chain to the tip has no moving joints (0 coordinates: the tip "
        "is the base, or only fixed joints lie between them); nothing to "
        "solve";
    result.q = seed.allFinite() ? seed : Eigen::VectorXd();
    return result;
  }
  if (m.nj > kMaxJoints) {
    result.status = SolveStatus::kInvalidInput;
    result.message = "the chain has " + std::to_string(m.nj) +
                     " joints, more than the " + std::to_string(kMaxJoints) +
                     " the KDL baselines accept (a KDL attempt cannot be "
                     "interrupted and its cost grows with the chain)";
    result.q = seed.allFinite() ? seed : Eigen::VectorXd();
    return result;
  }
  if (seed.size() != m.model->nq() || !seed.allFinite()) {
    result.status = SolveStatus::kInvalidInput;
    result.message = "the seed must have " + std::to_string(m.model->nq()) +
                     " finite coordinates; got " + std::to_string(seed.size());
    if (seed.size() == m.model->nq()) result.q = seed;
    return result;
  }
  for (int k = 0; k < m.nj; ++k) m.q_init(k) = seed[m.kdl.coordinates[k]];
  const KDL::Frame goal = ToKdl(X_BT);
  m.rng.seed(m.options.seed);
  const double budget = m.options.time_budget_seconds;
  int rc = 0;
  for (;;) {
    if (result.attempts > 0) m.DrawRandomStart();
    rc = m.Attempt(goal, &result.iterations);
    ++result.attempts;
    // KDL's convention: negative codes are failures.
    if (rc >= 0 || budget <= 0.0 || elapsed() >= budget) break;
  }
  result.q.resize(m.model->nq());
  for (int k = 0; k < m.nj; ++k) result.q[m.kdl.coordinates[k]] = m.q_out(k);
  const KDL::SolverI& kdl_solver =
      m.lma ? static_cast<const KDL::SolverI&>(*m.lma)
            : static_cast<const KDL::SolverI&>(*m.nr_jl);
  if (rc >= 0) {
    result.status = SolveStatus::kConverged;
    result.message = "KDL reports success (not verified here)";
  } else {
    result.status =
        budget > 0.0 ? SolveStatus::kTimeBudget : SolveStatus::kMaxIterations;
    result.message = std::string("KDL: ") + kdl_solver.strError(rc);
  }
  result.wall_time_seconds = elapsed();
  return result;
}

std::vector<BenchmarkSolver> KdlBaselineSolvers() {
  std::vector<BenchmarkSolver> solvers;
  for (KdlMethod method : {KdlMethod::kLma, KdlMethod::kNrJl}) {
    BenchmarkSolver s;
    s.name = method == KdlMethod::kLma ? "kdl-lma" : "kdl-nr-jl";
    s.make = [method](const std::shared_ptr<const Model>& model, int site,
                      double budget, double tolerance) -> TargetSolve {
      KdlOptions options;
      options.method = method;
      options.time_budget_seconds = budget;
      options.tolerance = tolerance;
      auto solver = std::make_shared<KdlBaselineSolver>(model, site, options);
      return
          [solver](const Eigen::Isometry3d& X_BT, const Eigen::VectorXd& seed) {
            return solver->Solve(X_BT, seed);
          };
    };
    solvers.push_back(std::move(s));
  }
  return solvers;
}

}  // namespace iklab
