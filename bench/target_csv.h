#ifndef IKLAB_BENCH_TARGET_CSV_H_
#define IKLAB_BENCH_TARGET_CSV_H_

/// @file
/// The bring-your-own target file of the IK benchmark (`iklab bench
/// --targets-csv`): per row the seed joint vector (nq numbers, model order)
/// then the target pose as position (x, y, z) and unit quaternion
/// (qw, qx, qy, qz): nq + 7 comma-separated numbers.
///
/// The rules, stated so that nothing is guessed:
///  * Lines that are empty (after trimming spaces, tabs and a trailing CR)
///    or start with '#' are skipped.
///  * Header rule: the first other line is a header if and only if its last
///    seven fields are exactly `x,y,z,qw,qx,qy,qz` (spaces around fields
///    allowed; this is what WriteTargetsCsv writes). Any other first line is
///    a data row and must parse as one: a misspelt header is an error naming
///    the line, not a silently dropped row.
///  * Every field of a data row is one finite number in full: leading and
///    trailing spaces are allowed, anything else after the number (`1.5x`,
///    `2,,3`) is an error, as are `nan`, `inf` and numbers that overflow.
///  * A file with no data row (empty, comments only, header only) is an
///    error.
///  * Quaternions must have unit length within 1e-6.

#include <istream>
#include <string>
#include <vector>

#include <Eigen/Core>
#include <Eigen/Geometry>

namespace iklab {

/// One target of the protocol.
struct BenchmarkTarget {
  /// Seed (start) pose of the solve.
  Eigen::VectorXd seed;
  /// Target pose of the tip in the base frame.
  Eigen::Isometry3d target = Eigen::Isometry3d::Identity();
};

/// Parses a target CSV (see the file comment for the rules) from `in`.
/// @param in the text.
/// @param name the file name used in messages ("name:line: ...").
/// @param nq the model's coordinate count; ≥ 0.
/// @return at least one target.
/// @throws std::invalid_argument naming the file, line, column and problem
///   (wrong column count, a field that is not one finite number, a
///   quaternion far from unit length, no data rows).
std::vector<BenchmarkTarget> ParseTargetsCsv(std::istream& in,
                                             const std::string& name, int nq);

/// Reads a target CSV file (ParseTargetsCsv on its contents).
/// @throws std::invalid_argument if the file cannot be opened or read, or
///   as ParseTargetsCsv.
std::vector<BenchmarkTarget> ReadTargetsCsv(const std::string& path, int nq);

}  // namespace iklab

#endif  // IKLAB_BENCH_TARGET_CSV_H_
