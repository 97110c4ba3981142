#ifndef IKLAB_BENCH_COMMAND_OPTIONS_H_
#define IKLAB_BENCH_COMMAND_OPTIONS_H_

/// @file
/// Checks shared by the `iklab` subcommands: option values read in full and
/// range-checked with readable bounds (no NaN, no infinity, no saturation),
/// and output folders checked before any work starts.

#include <cstdint>
#include <string>

#include <CLI/CLI.hpp>

#include "framework/mjcf_loader.h"
#include "framework/urdf_loader.h"

namespace iklab {

/// A CLI11 validator accepting one finite decimal number (the whole field)
/// in [lower, upper], or (lower, upper] when `open_lower`. Rejects "nan",
/// "inf", trailing characters and out-of-range values with a message that
/// states the bounds, e.g. "must be a number in (0, 60000]; got 'nan'".
CLI::Validator NumberIn(double lower, double upper, bool open_lower);

/// A CLI11 validator accepting one integer written in decimal digits (an
/// optional leading '+', a '-' only if lower < 0) in [lower, upper]; values
/// beyond the range of the type are errors, never saturated.
CLI::Validator IntegerIn(std::int64_t lower, std::int64_t upper);

/// A CLI11 validator for a worker-thread count: an integer in decimal
/// digits, then the library's one rule (CheckThreadCount,
/// framework/validate.h: ≥ 1, more than the machine's hardware threads are
/// capped, not refused), with its message.
CLI::Validator ThreadCount();

/// The URDF options of every subcommand that solves a chain (bench, reach):
/// mimic joints enforced (UrdfMimicPolicy::kEnforce: solved on the free
/// coordinates, each answer verified with the full joint vector) and the
/// joint limits of
/// `joint_limits` ("hard": <limit> only; else narrowed to
/// <safety_controller> soft limits).
UrdfOptions SolvingUrdfOptions(const std::string& joint_limits);

/// The MJCF chain base_body → tip of a subcommand that solves it (bench,
/// reach), with the same rule as URDF mimic joints: a joint `<equality>`
/// (a coupled joint, MjcfFigure::mimics) is enforced (Figure::AddMimic), so
/// the model's coordinates are the free ones. MJCF has no soft limits: the
/// ranges are the limits.
/// @throws std::invalid_argument as LoadMjcfChain, and naming a coupling the
/// figure cannot take (its leader outside the chain, a cycle).
MjcfFigure LoadSolvingMjcfChain(const std::string& path,
                                const std::string& base_body,
                                const std::string& tip);

/// The same for unsigned 64-bit values such as seeds: [0, 2^64 - 1].
CLI::Validator UnsignedInteger64();

/// Makes sure `dir` can receive output before any work starts: not empty,
/// not an existing file, creatable (with its parents), and writable (a probe
/// file is created and removed).
/// @param dir the folder.
/// @param option the option that named it, for messages (e.g. "--out").
/// @throws std::invalid_argument naming the option, the folder and what to
///   fix.
void PrepareOutputFolder(const std::string& dir, const std::string& option);

/// Throws if an allocation of about `bytes` cannot fit: more than 3/4 of the
/// physical memory (or, when that is unknown, more than 2^46 bytes).
/// @param bytes the estimate.
/// @param what what needs it, e.g. "8 threads x 10000000 targets".
/// @param fix what to change, e.g. "reduce --targets".
/// @throws std::invalid_argument naming the estimate, the limit and the fix.
void CheckMemoryEstimate(double bytes, const std::string& what,
                         const std::string& fix);

}  // namespace iklab

#endif  // IKLAB_BENCH_COMMAND_OPTIONS_H_
