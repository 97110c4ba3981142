#ifndef IKLAB_CONSTRAINTS_REACH_CERTIFICATE_H_
#define IKLAB_CONSTRAINTS_REACH_CERTIFICATE_H_

/// @file
/// Evidence that a problem's goal is out of reach: a position target farther
/// from its chain's fixed base than the chain can reach. A solver that stops
/// short of the goals may call the goal out of reach
/// (SolveStatus::kUnreachable) only with evidence — this certificate, or an
/// analytic solver's closed form; a stationary point alone is a local
/// minimum (solvers/solver.h).

#include <optional>
#include <string>

#include <Eigen/Core>

#include "constraints/problem.h"

namespace iklab {

/// Looks for a goal that no pose in the box [lower, upper] meets: a
/// PositionGoal, or the position part of a PositionOrientationGoal, among
/// the problem's goals and hard equality constraints, whose target p_WT is
/// farther than R + position_tolerance from the centre c of its site's
/// chain (framework/chain_reach.h: c the origin of the first moving joint,
/// fixed in the world; R the sum of the link offsets from there to the site
/// and the prismatic travel). Then for every q in the box
///
///     ‖p_WT − p_WS(q)‖ ≥ ‖p_WT − c‖ − ‖p_WS(q) − c‖ ≥ ‖p_WT − c‖ − R
///                       > position_tolerance,
///
/// so no solver can bring that goal within tolerance. A chain with
/// unbounded prismatic travel (a floating base, a rail without limits) has
/// no finite R and gives no certificate. Other goal kinds (orientation,
/// planes, distances, composites, ...) are not examined.
/// @param lower, upper the box the solver keeps to (the problem's bounds, or
///   ±∞ with limits off); only prismatic coordinates read it.
/// @param position_tolerance the solve's SolveOptions::position_tolerance.
/// @return the first certificate in words with its numbers, e.g.
///   "goal 'position(hand)': target 2.31 from the chain's fixed base at
///   (0, 0, 0.3), which reaches at most 1.9", or std::nullopt when no goal
///   gives one.
/// @throws std::invalid_argument if lower or upper does not have nq entries.
std::optional<std::string> OutOfReachCertificate(const Problem& problem,
                                                 const Eigen::VectorXd& lower,
                                                 const Eigen::VectorXd& upper,
                                                 double position_tolerance);

}  // namespace iklab

#endif  // IKLAB_CONSTRAINTS_REACH_CERTIFICATE_H_
