#include "solvers/registry.h"

#include <stdexcept>
#include <utility>

#include "solvers/analytic/six_r_solver.h"
#include "solvers/analytic/tolani/srs_arm.h"
#include "solvers/analytic/tolani/tolani_solver.h"
#include "solvers/analytic/two_link_analytic.h"
#include "solvers/constrained/ipopt_solver.h"
#include "solvers/constrained/slsqp_solver.h"
#include "solvers/differential/ccd_solver.h"
#include "solvers/differential/damped_least_squares_solver.h"
#include "solvers/differential/extended_jacobian_solver.h"
#include "solvers/differential/jacobian_transpose_solver.h"
#include "solvers/differential/multi_effector_solver.h"
#include "solvers/differential/pseudo_inverse_solver.h"
#include "solvers/optimization/bounded_lm_solver.h"
#include "solvers/optimization/ceres_solver.h"
#include "solvers/optimization/lbfgsb_solver.h"

namespace iklab {
namespace {

// Differential methods take first-order steps; 200 iterations is short for
// them on random targets (the studies' long-standing choice).
constexpr int kDifferentialIterations = 500;

// The text of an entry, apart from its options.
struct Description {
  const char* name;
  SolverFamily family;
  const char* summary;
  const char* accepts;
  const char* reference;
};

// An entry whose solver is made from `options` with the caller's common
// settings in place of options.common.
template <typename Options>
SolverEntry Entry(const Description& d, Options options) {
  SolverEntry e;
  e.name = d.name;
  e.family = d.family;
  e.summary = d.summary;
  e.accepts = d.accepts;
  e.reference = d.reference;
  if (d.family == SolverFamily::kDifferential) {
    options.common.max_iterations = kDifferentialIterations;
  }
  e.defaults = options.common;
  e.make = [options](const SolveOptions& common) {
    Options o = options;
    o.common = common;
    return MakeSolver(o);
  };
  return e;
}

constexpr SolverFamily kOptimization = SolverFamily::kOptimization;
constexpr SolverFamily kConstrained = SolverFamily::kConstrained;
constexpr SolverFamily kDifferential = SolverFamily::kDifferential;
constexpr SolverFamily kAnalytic = SolverFamily::kAnalytic;

constexpr const char* kAnyGoals =
    "any goals and regularizers; hard constraints are refused";

std::vector<SolverEntry> BuildRegistry() {
  std::vector<SolverEntry> r;
  // --- optimization
  r.push_back(Entry(
      {"lbfgsb", kOptimization,
       "bounded L-BFGS-B (LBFGSpp) on the potential F(q) = Σ ½ w_i ‖r_i‖², "
       "l ≤ q ≤ u",
       kAnyGoals, "NLP paper §3 (L-BFGS-B with Tikhonov regularization)"},
      LbfgsbOptions{}));
  r.push_back(Entry(
      {"ceres-lm", kOptimization,
       "Ceres bounded nonlinear least squares on the stacked residual, "
       "Levenberg-Marquardt",
       kAnyGoals, "Levenberg 1944, Marquardt 1963 (Ceres Solver)"},
      CeresOptions{}));
  CeresOptions dogleg;
  dogleg.method = CeresOptions::Method::kDogleg;
  r.push_back(Entry(
      {"ceres-dogleg", kOptimization,
       "Ceres bounded nonlinear least squares on the stacked residual, "
       "Powell's dogleg trust region",
       kAnyGoals, "Powell 1970 (Ceres Solver)"},
      dogleg));
  SolverEntry bounded_lm = Entry(
      {"bounded-lm", kOptimization,
       "bounded Levenberg-Marquardt with an active set and random restarts "
       "on the stacked residual",
       kAnyGoals,
       "Levenberg 1944, Marquardt 1963; the damped step of Parent Eq. 5.24"},
      BoundedLmOptions{});
  bounded_lm.own_restarts = true;
  r.push_back(std::move(bounded_lm));
  // --- constrained NLP
  SolverEntry slsqp = Entry(
      {"slsqp", kConstrained,
       "sequential quadratic programming (NLopt's SLSQP): minimize the "
       "potential subject to h(q) = 0, c(q) ≤ 0, l ≤ q ≤ u",
       "any goals, regularizers and hard constraints",
       "Kraft 1988; the counterpart of CFSQP in Tolani et al. Tables 4-7"},
      SlsqpOptions{});
  slsqp.hard_constraints = true;
  r.push_back(std::move(slsqp));
  SolverEntry ipopt = Entry(
      {"ipopt", kConstrained,
       "interior-point NLP (IPOPT): minimize the potential subject to "
       "h(q) = 0, c(q) ≤ 0, l ≤ q ≤ u",
       "any goals, regularizers and hard constraints",
       "Wächter & Biegler 2006"},
      IpoptOptions{});
  ipopt.hard_constraints = true;
  r.push_back(std::move(ipopt));
  // --- differential
  r.push_back(Entry({"pseudo-inverse", kDifferential,
                     "Δq = J⁺V, J⁺ from the SVD", kAnyGoals,
                     "Parent §5.3.3, Eq. 5.20-5.23"},
                    PseudoInverseOptions{}));
  r.push_back(Entry({"dls", kDifferential,
                     "damped least squares Δq = Jᵀ(JJᵀ + λ²I)⁻¹V, fixed or "
                     "adaptive λ",
                     kAnyGoals, "Parent Eq. 5.24; NLP paper §7"},
                    DampedLeastSquaresOptions{}));
  r.push_back(Entry({"sdls", kDifferential,
                     "selectively damped least squares: a damping per "
                     "singular direction",
                     kAnyGoals, "Buss & Kim 2005"},
                    SelectivelyDampedOptions{}));
  r.push_back(Entry({"bounded-dls", kDifferential,
                     "damped least squares with l − q ≤ Δq ≤ u − q, solved "
                     "exactly by an active set",
                     kAnyGoals, "NLP paper §7, Example 7.4"},
                    BoundedDampedLeastSquaresOptions{}));
  r.push_back(Entry({"jacobian-transpose", kDifferential, "Δq = α JᵀV", kAnyGoals,
                     "Parent §5.3.3 (avoiding the inverse); Šoch & Lórencz "
                     "Eq. 7"},
                    JacobianTransposeOptions{}));
  r.push_back(Entry(
      {"ccd", kDifferential,
       "cyclic coordinate descent: each joint in turn set to its best value "
       "in closed form",
       "position, orientation, position + orientation and axis goals; no "
       "aiming, plane or composite goals, no regularizers",
       "Parent §5.3.3; Wang & Chen 1991"},
      CcdOptions{}));
  r.push_back(Entry(
      {"control-term", kDifferential,
       "Δq = J⁺V + (J⁺J − I) z with the joint-centre bias "
       "z_i = 2 a_i (q_i − q_ci)",
       kAnyGoals, "Parent Eq. 5.25-5.31 (after Liégeois)"},
      ControlTermOptions{}));
  r.push_back(Entry(
      {"alternative-jacobian", kDifferential,
       "Δq = J⁺V with the Jacobian taken as if the effector were at the goal",
       kAnyGoals, "Parent §5.3.3 (Fig. 5.23)"},
      AlternativeJacobianOptions{}));
  r.push_back(Entry(
      {"multi-effector", kDifferential,
       "several effectors by the F_i recursion: the minimal 2-norm step, "
       "task priority when the effectors conflict",
       kAnyGoals, "NLP paper §5-6, Theorem 6.19"},
      MultiEffectorOptions{}));
  r.push_back(Entry(
      {"extended-jacobian", kDifferential,
       "the Extended Jacobian: rows added from basic elements so the system "
       "is never rank-deficient, solved by normal equations + LU",
       "a planar revolute chain with exactly one position goal",
       "Šoch & Lórencz 2005, §2.2-2.4, Eq. 8-9"},
      ExtendedJacobianOptions{}));
  // --- analytic
  r.push_back(Entry(
      {"two-link", kAnalytic,
       "the planar two-link arm by the law of cosines, both elbow solutions",
       "a model with two parallel revolute axes and one position goal",
       "Parent §5.3.1, Figs. 5.14-5.15"},
      TwoLinkOptions{}));
  SolverEntry tolani = Entry(
      {"tolani", kAnalytic,
       "the 7-DOF SRS limb in closed form: elbow angle, swivel angle within "
       "the limits, Table 3 fallback",
       "an SRS arm (spherical shoulder and wrist, revolute elbow) with a "
       "pose, position, partial-orientation or aiming goal on its last link",
       "Tolani, Goswami & Badler 2000, §3, Tables 2-3"},
      TolaniLimbOptions{});
  tolani.not_applicable = [](const Model& model, int site) {
    std::string why;
    return SrsArm::Create(model, site, &why) ? std::string() : why;
  };
  r.push_back(std::move(tolani));
  SolverEntry six_r = Entry(
      {"analytic-6r", kAnalytic,
       "every solution (up to 8) of a 6R arm by subproblem decomposition, "
       "the one nearest the start within the limits",
       "a 6R arm with a spherical wrist or three parallel axes and one "
       "position + orientation goal",
       "Paden & Kahan subproblems, as IK-Geo (Elias & Wen) organizes them"},
      SixRAnalyticOptions{});
  six_r.not_applicable = [](const Model& model, int site) {
    std::string why;
    return SixRArm::Create(model, site, &why) ? std::string() : why;
  };
  r.push_back(std::move(six_r));
  return r;
}

}  // namespace

const char* SolverFamilyName(SolverFamily family) {
  switch (family) {
    case SolverFamily::kOptimization:
      return "optimization";
    case SolverFamily::kConstrained:
      return "constrained";
    case SolverFamily::kDifferential:
      return "differential";
    case SolverFamily::kAnalytic:
      return "analytic";
  }
  return "?";
}

const std::vector<SolverEntry>& SolverRegistry() {
  static const std::vector<SolverEntry> registry = BuildRegistry();
  return registry;
}

const SolverEntry* FindSolver(std::string_view name) {
  for (const SolverEntry& e : SolverRegistry()) {
    if (e.name == name) return &e;
  }
  return nullptr;
}

const SolverEntry& SolverNamed(std::string_view name) {
  if (const SolverEntry* e = FindSolver(name)) return *e;
  throw std::invalid_argument("no solver named '" + std::string(name) +
                              "'; the known ones are " + SolverNames());
}

std::string SolverNames(std::string_view separator) {
  std::string names;
  for (const SolverEntry& e : SolverRegistry()) {
    if (!names.empty()) names += separator;
    names += e.name;
  }
  return names;
}

std::unique_ptr<Solver> MakeSolver(std::string_view name) {
  const SolverEntry& e = SolverNamed(name);
  return e.make(e.defaults);
}

std::unique_ptr<Solver> MakeSolver(std::string_view name,
                                   const SolveOptions& common) {
  return SolverNamed(name).make(common);
}

}  // namespace iklab
