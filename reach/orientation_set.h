#ifndef IKLAB_REACH_ORIENTATION_SET_H_
#define IKLAB_REACH_ORIENTATION_SET_H_

/// @file
/// The approach orientations a capability map tests at every voxel: a
/// deterministic, near-uniform set of approach axes on the unit sphere (the
/// spherical Fibonacci lattice), each with evenly spaced rolls about it.
///
/// Axes. Point k of N (k = 0 … N − 1) of the spherical Fibonacci lattice
/// (González, "Measurement of areas on a sphere using Fibonacci and
/// latitude–longitude lattices", Math. Geosci. 42, 2010, Eq. 2):
///
///     z_k = 1 − (2k + 1)/N,   φ_k = 2π k / Φ²  (Φ = (1 + √5)/2),
///     a_k = (√(1 − z_k²) cos φ_k, √(1 − z_k²) sin φ_k, z_k),
///
/// equal-area bands in z with a golden-angle turn between consecutive
/// points: every a_k stands for about the same area 4π/N of the sphere.
///
/// Orientations. The site frame's z axis is the approach axis (the
/// direction a tool points along, as in Zacharias et al.'s capability maps):
/// R_kj = R_min(e_z → a_k) · R_z(2π j / M), j = 0 … M − 1 rolls, where
/// R_min is the smallest rotation taking e_z onto a_k (Eigen's
/// Quaternion::FromTwoVectors; for a_k = −e_z, which the lattice never
/// produces, a half turn about e_x). Orientation index = k · M + j.

#include <vector>

#include <Eigen/Core>
#include <Eigen/Geometry>

namespace iklab {

/// The N approach axes a_k of the spherical Fibonacci lattice (unit vectors,
/// in the order k = 0 … N − 1).
/// @throws std::invalid_argument if count < 1.
std::vector<Eigen::Vector3d> FibonacciSphere(int count);

/// The num_axes × num_rolls orientations R_kj of the file comment, index
/// k · num_rolls + j, as unit quaternions.
/// @throws std::invalid_argument if num_axes < 1 or num_rolls < 1.
std::vector<Eigen::Quaterniond> ApproachOrientations(int num_axes,
                                                     int num_rolls);

}  // namespace iklab

#endif  // IKLAB_REACH_ORIENTATION_SET_H_
