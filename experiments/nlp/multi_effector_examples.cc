// NLP paper (IK by nonlinear programming, L-BFGS-B, multiple end effectors),
// §5–6: dual and multiple end effectors on branched planar chains, solved by
// the paper's recursion (§6, Theorem 6.19):
//
//     dθ_1 = J_1⁺ dX_1,  dθ_k = dθ_{k−1} + (J_k F_{k−1})⁺ (dX_k − J_k dθ_{k−1}),
//     F_0 = I,  F_k = F_{k−1} − (J_k F_{k−1})⁺ (J_k F_{k−1}),
//
// the minimal 2-norm solution of the consistent systems dX_i = J_i dθ
// (Theorem 6.19), with the effectors moved along straight segments through
// internal points (as §3) and the angles found frame by frame.
//
//  * nlp-example-5.7: Example 5.7, Figures 4–6 — the 6-joint chain with a
//    3-joint branch after joint 3, two effectors; the closed form
//    b = J_1⁺dX_1 + [J_2(I − J_1⁺J_1)]⁺(dX_2 − J_2J_1⁺dX_1) (Theorem 5.6) and
//    Lemma 5.4 (A projects onto null(J_1) ∩ null(J_2)).
//  * nlp-3-effector: Figures 7–8 — three effectors; the paper's M = 3 closed
//    form dθ = Z_1dX_1 + Z_2dX_2 + Z_3dX_3 with
//    Z_1 = [J_1{I − [J_2(I − J_3⁺J_3)]⁺J_2 − [J_3(I − J_2⁺J_2)]⁺J_3}]⁺ and
//    cyclically for Z_2, Z_3.
//  * nlp-4-effector: Figure 9 — a 4th effector inserted at P2 with target
//    P2 + (0, −1); F_3 = F_2[I − (J_3F_2)⁺J_3F_2].
//
// What the paper shows: pictures of the figures reaching their targets, and
// the theorems. Our checks at every frame's linearization (J_i: the x, y rows
// of each effector's Jacobian; dX_i = frame target − effector position):
// the library's recursion (PrioritizedStep) vs the stacked pseudo-inverse
// [J_1; …; J_M]⁺[dX_1; …] (Eigen's complete orthogonal decomposition, an
// independent computation) vs the paper's closed form written out with
// explicit pseudo-inverses; and the projector F_M (symmetric, idempotent,
// J_i F_M = 0, trace n − 2M).
//
// Parameters we chose (the text gives no lengths, poses or targets): every
// link 1 long (framework/builders.h: NlpBranchedFigure); the start poses, and
// targets taken from a second pose, in Setup() below; 20 frames (M = 19 internal
// points), equally spaced; per frame the recursion is iterated (Newton-like)
// until every effector is within 1e-9 of its frame target, at most 30
// iterations; no joint limits (the paper's §5–6 has none).

#include <algorithm>
#include <cmath>
#include <string>

#include "constraints/position_goal.h"
#include "constraints/problem.h"
#include "experiments/experiments_list.h"
#include "experiments/nlp/runs.h"
#include "framework/builders.h"
#include "lab/experiment.h"
#include "lab/planar_tracking.h"
#include "lab/plot.h"
#include "solvers/differential/jacobian_steps.h"
#include "solvers/differential/multi_effector_solver.h"

namespace iklab {

namespace {

constexpr int kMultiEffectorFrames = 20;
constexpr double kTheoremTolerance = 1e-8;

struct MultiSetup {
  int effectors = 2;
  std::shared_ptr<const Model> model;
  /// Start and target poses θ_1 … θ_n in the paper's numbering.
  std::vector<double> theta0;
  std::vector<double> theta1;
  Eigen::VectorXd q0;  // in model coordinate order
  std::vector<Eigen::Vector2d> ends;
};

Eigen::VectorXd ModelPose(const Model& model, const std::vector<double>& theta) {
  Eigen::VectorXd q = Eigen::VectorXd::Zero(model.nq());
  for (std::size_t i = 0; i < theta.size(); ++i) {
    q[model.DofIndex("theta" + std::to_string(i + 1))] = theta[i];
  }
  return q;
}

// Start poses (paper numbering θ1 …): a trunk θ1–θ3 standing up, a "head"
// θ4–θ6, branch 1 θ7–θ9 to the right, branch 2 θ10–θ12 to the left. The
// targets are the effector positions of a second pose θ' (so they are
// reachable together); the solver is free to reach them in any pose. With 4
// effectors, effector 4's target is P2 + (0, −1) exactly, and θ'_1, θ'_2 are
// the (elbow-left) two-link solution putting P2 there: |P2 + (0, −1)| =
// 0.99998, so θ'_2 = 2.0944 (120°) and θ'_1 = 0.6236.
MultiSetup Setup(int effectors) {
  MultiSetup s;
  s.effectors = effectors;
  s.model = std::make_shared<const Model>(NlpBranchedFigure(effectors).Compile());
  if (effectors == 2) {
    s.theta0 = {M_PI / 2, 0.1, 0.1, 0.3, 0.2, 0.2, -1.3, -0.4, -0.3};
    s.theta1 = {M_PI / 2 + 0.2, -0.1, 0.2, 0.6, 0.4, 0.3, -0.9, -0.6, -0.2};
  } else {
    s.theta0 = {M_PI / 2, 0.1, 0.1, 0.1, 0.1, 0.1,
                -1.3,     -0.4, -0.3, 1.3, 0.4, 0.3};
    s.theta1 = {M_PI / 2 - 0.2, 0.2, 0.1, 0.3, 0.2, 0.1,
                -0.8,           -0.6, -0.4, 1.6, 0.6, 0.5};
    if (effectors == 4) {
      s.theta1[0] = 0.6236;
      s.theta1[1] = 2.0944;
      s.theta1[2] = -1.15;
    }
  }
  s.q0 = ModelPose(*s.model, s.theta0);
  const Eigen::VectorXd q1 = ModelPose(*s.model, s.theta1);
  for (int e = 0; e < effectors; ++e) {
    const int site = s.model->SiteIndex("effector" + std::to_string(e + 1));
    s.ends.push_back(e == 3 ? SitePoint(*s.model, s.q0, site) +
                                  Eigen::Vector2d(0.0, -1.0)
                            : SitePoint(*s.model, q1, site));
  }
  return s;
}

// The paper's closed forms, written out with explicit pseudo-inverses.
Eigen::VectorXd ClosedForm(const std::vector<Eigen::MatrixXd>& J,
                           const std::vector<Eigen::VectorXd>& dX) {
  const int n = static_cast<int>(J[0].cols());
  const Eigen::MatrixXd I = Eigen::MatrixXd::Identity(n, n);
  const auto pinv = [](const Eigen::MatrixXd& A) -> Eigen::MatrixXd {
    return PseudoInverse(A);
  };
  const auto N = [&](const Eigen::MatrixXd& A) -> Eigen::MatrixXd {
    return I - pinv(A) * A;
  };
  if (J.size() == 2) {  // Theorem 5.6's b
    const Eigen::MatrixXd J1p = pinv(J[0]);
    return J1p * dX[0] + pinv(J[1] * N(J[0])) * (dX[1] - J[1] * J1p * dX[0]);
  }
  if (J.size() == 3) {  // §6, M = 3: Z_1 dX_1 + Z_2 dX_2 + Z_3 dX_3
    Eigen::VectorXd dq = Eigen::VectorXd::Zero(n);
    for (int k = 0; k < 3; ++k) {
      const Eigen::MatrixXd& a = J[(k + 1) % 3];
      const Eigen::MatrixXd& b = J[(k + 2) % 3];
      const Eigen::MatrixXd P = I - pinv(a * N(b)) * a - pinv(b * N(a)) * b;
      dq += pinv(J[k] * P) * dX[k];
    }
    return dq;
  }
  // General M (Theorem 6.19 with F_3 = F_2[I − (J_3F_2)⁺J_3F_2], …).
  Eigen::MatrixXd F = I;
  Eigen::VectorXd dq = Eigen::VectorXd::Zero(n);
  for (std::size_t k = 0; k < J.size(); ++k) {
    const Eigen::MatrixXd JF = J[k] * F;
    const Eigen::MatrixXd JFp = pinv(JF);
    dq += JFp * (dX[k] - J[k] * dq);
    F = F * (I - JFp * JF);
  }
  return dq;
}

struct FrameCheck {
  double recursion_vs_pinv = 0.0;  // relative
  double closed_vs_pinv = 0.0;     // relative
  double projector = 0.0;  // max of ‖J_i F‖, ‖F² − F‖, ‖Fᵀ − F‖
  double trace_error = 0.0;  // |trace F − (n − 2M)|
};

FrameCheck CheckFrame(const Model& model, const Eigen::VectorXd& q,
                      const std::vector<int>& sites,
                      const std::vector<Eigen::Vector2d>& targets) {
  const int n = model.nq();
  const int M = static_cast<int>(sites.size());
  std::vector<Eigen::MatrixXd> J;
  std::vector<Eigen::VectorXd> dX;
  Eigen::MatrixXd stacked(2 * M, n);
  Eigen::VectorXd V(2 * M);
  std::vector<RowBlock> levels;
  for (int e = 0; e < M; ++e) {
    J.push_back(PlanarJacobian(model, q, sites[e]));
    dX.push_back(targets[e] - SitePoint(model, q, sites[e]));
    stacked.middleRows(2 * e, 2) = J.back();
    V.segment(2 * e, 2) = dX.back();
    levels.push_back({2 * e, 2});
  }
  const Eigen::VectorXd minimal = PseudoInverse(stacked) * V;
  PrioritizedStep step(levels, n);
  Eigen::VectorXd recursion(n);
  step.Compute(stacked, V, 1e-10, 0.0, recursion);
  const Eigen::VectorXd closed = ClosedForm(J, dX);
  const double scale = std::max(minimal.norm(), 1e-300);
  FrameCheck check;
  check.recursion_vs_pinv = (recursion - minimal).norm() / scale;
  check.closed_vs_pinv = (closed - minimal).norm() / scale;
  const Eigen::MatrixXd& F = step.null_space_projector();
  double worst = std::max((F * F - F).norm(), (F.transpose() - F).norm());
  for (const Eigen::MatrixXd& Ji : J) worst = std::max(worst, (Ji * F).norm());
  check.projector = worst;
  check.trace_error = std::abs(F.trace() - (n - 2 * M));
  return check;
}

std::string ClosedFormName(int effectors) {
  switch (effectors) {
    case 2:
      return "b = J1+dX1 + [J2(I - J1+J1)]+(dX2 - J2J1+dX1) (Theorem 5.6)";
    case 3:
      return "Z1dX1 + Z2dX2 + Z3dX3 with Z1 = [J1{I - [J2(I - J3+J3)]+J2 - "
             "[J3(I - J2+J2)]+J3}]+ etc. (M = 3 formula of Section 6)";
    default:
      return "the F-recursion written out, F3 = F2[I - (J3F2)+J3F2] (Section "
             "6, M = 4)";
  }
}

void SetMultiParameters(const MultiSetup& s, ExperimentOutput* out) {
  out->SetParameter("effectors", s.effectors);
  out->SetParameter("joints", s.model->nq());
  out->SetParameter("link_length", 1.0);
  out->SetParameter("start_theta_rad_paper_order", s.theta0);
  out->SetParameter("target_theta_rad_paper_order", s.theta1);
  std::vector<std::vector<double>> ends;
  for (int e = 0; e < s.effectors; ++e) {
    ends.push_back({s.ends[e].x(), s.ends[e].y()});
  }
  out->SetParameter("effector_targets", ends);
  out->SetParameter("frames", kMultiEffectorFrames);
  out->SetParameter("spacing", "equal");
  out->SetParameter("solver", "multi-effector recursion (F_i), exact "
                              "(no damping), singular-value cutoff 1e-10, "
                              "iterated per frame to 1e-9, max 30 iterations");
}

// The frames solved by the recursion, and the checks at each frame.
struct MultiRun {
  SegmentRun run;
  std::vector<FrameCheck> checks;
};

MultiRun RunFrames(const MultiSetup& s, const ExperimentContext& context) {
  const Model& model = *s.model;
  Problem problem(s.model);
  std::vector<std::shared_ptr<PositionGoal>> goals;
  std::vector<int> sites;
  for (int e = 0; e < s.effectors; ++e) {
    const std::string site = "effector" + std::to_string(e + 1);
    goals.push_back(std::make_shared<PositionGoal>(model, site,
                                                   Eigen::Vector3d::Zero()));
    problem.AddGoal(goals.back());
    sites.push_back(model.SiteIndex(site));
  }
  MultiEffectorOptions options;
  options.common.max_iterations = 30;
  options.common.position_tolerance = 1e-9;
  options.common.respect_limits = false;
  const MultiEffectorSolver solver(options);

  // Checks at each frame's first linearization (start pose of the frame,
  // the frame's targets): done inside the run through the BeforeFrame hook.
  MultiRun result;
  context.Progress(0.0, "frames");
  result.run = FollowSegments(
      solver, &problem, goals, s.ends, s.q0, kMultiEffectorFrames, Spacing::kLinear,
      [&](int, const Eigen::VectorXd& q) {
        std::vector<Eigen::Vector2d> targets;
        for (const auto& g : goals) targets.push_back(g->target().head<2>());
        result.checks.push_back(CheckFrame(model, q, sites, targets));
      });
  return result;
}

// CSV: per frame, pose, effectors, targets, iterations and checks.
void WriteFramesCsv(const MultiSetup& s, const MultiRun& m,
                    ExperimentOutput* out) {
  const Model& model = *s.model;
  const int n = model.nq();
  std::vector<std::string> header = {"frame"};
  for (int i = 1; i <= n; ++i) header.push_back("theta" + std::to_string(i));
  for (int e = 1; e <= s.effectors; ++e) {
    for (const char* c : {"x", "y", "target_x", "target_y"}) {
      header.push_back("effector" + std::to_string(e) + "_" + c);
    }
  }
  for (const char* c :
       {"iterations", "recursion_vs_pinv", "closed_form_vs_pinv",
        "projector_error", "trace_error"}) {
    header.push_back(c);
  }
  std::vector<std::vector<double>> rows;
  for (int k = 0; k <= kMultiEffectorFrames; ++k) {
    std::vector<double> row = {static_cast<double>(k)};
    for (int i = 1; i <= n; ++i) {
      row.push_back(m.run.q[k][model.DofIndex("theta" + std::to_string(i))]);
    }
    for (int e = 0; e < s.effectors; ++e) {
      row.insert(row.end(),
                 {m.run.effector[k][e].x(), m.run.effector[k][e].y(),
                  m.run.target[k][e].x(), m.run.target[k][e].y()});
    }
    if (k == 0) {
      row.insert(row.end(), {0, 0, 0, 0, 0});
    } else {
      const FrameCheck& c = m.checks[k - 1];
      row.insert(row.end(),
                 {static_cast<double>(m.run.results[k - 1].iterations),
                  c.recursion_vs_pinv, c.closed_vs_pinv, c.projector,
                  c.trace_error});
    }
    rows.push_back(row);
  }
  out->WriteCsv("frames.csv", header, rows);
}

// Pictures: the figure at some frames, and the checks per frame.
void DrawMultiPictures(const MultiSetup& s, const MultiRun& m,
                       const std::string& figures, ExperimentOutput* out) {
  const std::string tag = "nlp_" + std::to_string(s.effectors) + "_effectors";
  DrawLinePlot(SegmentRunPlot(*s.model, m.run, {0, 5, 10, 15, 20},
                              figures + ": " + std::to_string(s.effectors) +
                                  " end effectors, frames 0, 5, 10, 15, 20"),
               out->dir(), tag + "_frames");
  out->AddFigure(tag + "_frames.png",
                 figures + " (ours): the branched figure at frames 0, 5, 10, "
                           "15, 20; black: effector paths, dashed: the "
                           "segments to the targets (magenta)");

  LinePlot check_plot;
  check_plot.title = figures + ": the paper's formulas checked at every frame";
  check_plot.x_label = "frame";
  check_plot.y_label = "error (log scale; 1e-18 = exact)";
  check_plot.log_y = true;
  check_plot.key = "outside right top";
  const char* names[3] = {"recursion vs [J1;...;JM]+ (relative)",
                          "closed form vs [J1;...;JM]+ (relative)",
                          "projector F: max |Ji F|, |F^2 - F|, |F^T - F|"};
  for (int c = 0; c < 3; ++c) {
    Series series;
    series.title = names[c];
    series.style = "linespoints";
    series.color = PaletteColor(c);
    for (int k = 1; k <= kMultiEffectorFrames; ++k) {
      const FrameCheck& f = m.checks[k - 1];
      const double v = c == 0 ? f.recursion_vs_pinv
                              : (c == 1 ? f.closed_vs_pinv : f.projector);
      series.x.push_back(k);
      series.y.push_back(std::max(v, 1e-18));
    }
    check_plot.series.push_back(series);
  }
  check_plot.width_px = 1100;
  DrawLinePlot(check_plot, out->dir(), tag + "_checks");
  out->AddFigure(tag + "_checks.png",
                 "Per frame: difference of the recursion and of the paper's "
                 "closed form from the minimal-norm step, and the projector "
                 "F_M's defects (values below 1e-18 drawn at 1e-18)");
}

// The effectors reach their targets (and, with 4 effectors, the 4th goes
// from P2 to P2 + (0, -1)).
void AddReachClaims(const MultiSetup& s, const SegmentRun& run,
                    const std::string& figures, ExperimentOutput* out) {
  double final_error = FrameError(run, kMultiEffectorFrames);
  double worst_frame = 0.0;
  int converged = 0, max_iterations = 0;
  double mean_iterations = 0.0;
  for (int k = 1; k <= kMultiEffectorFrames; ++k) {
    worst_frame = std::max(worst_frame, FrameError(run, k));
    converged += run.results[k - 1].converged();
    max_iterations = std::max(max_iterations, run.results[k - 1].iterations);
    mean_iterations += run.results[k - 1].iterations / double(kMultiEffectorFrames);
  }
  const double worst_jump = MaxJointJump(run.q);
  const bool reached = converged == kMultiEffectorFrames && final_error <= 1e-6;
  out->AddClaim(
      {"Every end effector follows its segment to its target",
       figures + ": the figure reaches all targets (picture)",
       std::to_string(converged) + "/" + std::to_string(kMultiEffectorFrames) +
           " frames converged, " + FormatNumber(mean_iterations, 3) +
           " iterations per frame on average (max " +
           std::to_string(max_iterations) + "); largest effector error after "
           "a frame " + FormatNumber(worst_frame, 3) + ", at the end " +
           FormatNumber(final_error, 3) + "; largest joint change per frame " +
           FormatNumber(worst_jump, 3) + " rad",
       reached ? Verdict::kReproduced : Verdict::kDiffers,
       reached ? "all frames converged and every effector ends within 1e-6 of "
                 "its target"
               : "some frame did not converge or an effector ends away from "
                 "its target"});
  if (s.effectors != 4) return;
  const Eigen::Vector2d p2 = run.effector.back()[3];
  const double err = (p2 - (run.target.front()[3] + Eigen::Vector2d(0, -1)))
                         .norm();
  out->AddClaim(
      {"The inserted 4th effector moves from P2 to P2 + (0, -1)",
       "initial P2, target P2 + (0, -1)",
       "P2 = (" + FormatNumber(run.target.front()[3].x(), 3) + ", " +
           FormatNumber(run.target.front()[3].y(), 3) + "), end (" +
           FormatNumber(p2.x(), 4) + ", " + FormatNumber(p2.y(), 4) +
           "), distance to P2 + (0, -1) " + FormatNumber(err, 3),
       err <= 1e-6 ? Verdict::kReproduced : Verdict::kDiffers,
       err <= 1e-6 ? "effector 4 ends within 1e-6 of P2 + (0, -1)"
                   : "effector 4 ends away from P2 + (0, -1)"});
}

// The theorems checked at every frame: recursion and closed form against
// the minimal-norm step, and the projector F_M.
void AddTheoremClaims(const MultiSetup& s, const std::vector<FrameCheck>& checks,
                      ExperimentOutput* out) {
  double rec = 0.0, closed = 0.0, proj = 0.0, tr = 0.0;
  for (const FrameCheck& c : checks) {
    rec = std::max(rec, c.recursion_vs_pinv);
    closed = std::max(closed, c.closed_vs_pinv);
    proj = std::max(proj, c.projector);
    tr = std::max(tr, c.trace_error);
  }
  out->AddClaim(
      {"The recursion gives the minimal 2-norm solution of all effectors' "
       "systems (Theorem 6.19)",
       "dtheta_1 = [J1; ...; JM]+ [dX1; ...; dXM] (theorem)",
       "largest relative difference from the stacked pseudo-inverse over " +
           std::to_string(kMultiEffectorFrames) + " frames: " + FormatNumber(rec, 3),
       rec <= kTheoremTolerance ? Verdict::kReproduced : Verdict::kDiffers,
       rec <= kTheoremTolerance
           ? "equal to round-off (<= 1e-8) at every frame"
           : "the recursion differs from the minimal-norm step"});
  out->AddClaim(
      {"The paper's closed form equals the minimal-norm solution",
       ClosedFormName(s.effectors),
       "largest relative difference from the stacked pseudo-inverse: " +
           FormatNumber(closed, 3),
       closed <= kTheoremTolerance ? Verdict::kReproduced : Verdict::kDiffers,
       closed <= kTheoremTolerance
           ? "equal to round-off (<= 1e-8) at every frame"
           : "the closed form as written differs from the minimal-norm step"});
  const bool projector_ok = proj <= 1e-10 && tr <= 1e-8;
  out->AddClaim(
      {"F_M is the orthogonal projection onto the intersection of the "
       "effectors' null spaces (Lemmas 5.4, 6.12)",
       "F_M symmetric, idempotent, J_i F_M = 0 (lemma)",
       "largest of |J_i F|, |F^2 - F|, |F^T - F| over frames " +
           FormatNumber(proj, 3) + "; trace F = n - 2M = " +
           std::to_string(s.model->nq() - 2 * s.effectors) + " up to " +
           FormatNumber(tr, 3),
       projector_ok ? Verdict::kReproduced : Verdict::kDiffers,
       projector_ok ? "the defects are round-off (<= 1e-10) and the rank is "
                      "n - 2M"
                    : "F_M is not the projector onto the common null space"});
}

void RunMultiEffector(int effectors, const std::string& figures,
                      const ExperimentContext& context,
                      ExperimentOutput* out) {
  const MultiSetup s = Setup(effectors);
  SetMultiParameters(s, out);
  const MultiRun m = RunFrames(s, context);
  WriteFramesCsv(s, m, out);
  DrawMultiPictures(s, m, figures, out);
  std::vector<std::string> sites;
  for (int e = 1; e <= effectors; ++e) {
    sites.push_back("effector" + std::to_string(e));
  }
  WriteSegmentScene(*s.model, figures + ": " + std::to_string(effectors) +
                                  " end effectors",
                    {{"frames 0-" + std::to_string(kMultiEffectorFrames),
                      {{"multi-effector recursion", &m.run}}}},
                    sites, "nlp_" + std::to_string(effectors) +
                               "_effectors_scene.json",
                    "The branched figure in 3D over the frames: every "
                    "effector's path (coloured) runs along its straight "
                    "target path (black) to its target.",
                    out);
  AddReachClaims(s, m.run, figures, out);
  AddTheoremClaims(s, m.checks, out);
}

}  // namespace

void AddNlpMultiEffectorExamples(std::vector<Experiment>* experiments) {
  experiments->push_back(
      {"nlp-example-5.7", "Dual end effectors on the branched planar chain",
       "NLP multi-effector paper, §5, Example 5.7 and Figures 4-6",
       [](const ExperimentContext& c, ExperimentOutput* o) {
         RunMultiEffector(2, "Example 5.7", c, o);
       }});
  experiments->push_back(
      {"nlp-3-effector", "Three end effectors: the M = 3 closed form",
       "NLP multi-effector paper, §6, Figures 7-8",
       [](const ExperimentContext& c, ExperimentOutput* o) {
         RunMultiEffector(3, "Figure 8", c, o);
       }});
  experiments->push_back(
      {"nlp-4-effector", "Four end effectors: effector 4 at P2 to P2 + (0, -1)",
       "NLP multi-effector paper, §6, Figure 9",
       [](const ExperimentContext& c, ExperimentOutput* o) {
         RunMultiEffector(4, "Figure 9", c, o);
       }});
}

}  // namespace iklab
