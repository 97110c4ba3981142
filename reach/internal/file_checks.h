#ifndef IKLAB_REACH_INTERNAL_FILE_CHECKS_H_
#define IKLAB_REACH_INTERNAL_FILE_CHECKS_H_

/// @file
/// What the readers of reach maps (reach_hdf5.cc) and reach journals
/// (reach_journal.cc) check before they trust a file's bytes: a checksum over
/// them, and the rules every stored voxel obeys. Not installed.

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>

#include "reach/reach_map.h"

namespace iklab::internal {

/// 64-bit FNV-1a (Fowler, Noll, Vo; the IETF draft "The FNV Non-Cryptographic
/// Hash Algorithm", §2.3) of `size` bytes, continuing from `hash`. Every
/// change of a single byte changes the result (each step, XOR then
/// multiplication by an odd prime modulo 2^64, is a bijection); it guards
/// against damage, not against someone who rewrites the checksum too.
inline std::uint64_t Fnv1a64(const void* data, std::size_t size,
                             std::uint64_t hash = 0xcbf29ce484222325ULL) {
  const auto* bytes = static_cast<const unsigned char*>(data);
  for (std::size_t i = 0; i < size; ++i) {
    hash = (hash ^ bytes[i]) * 0x100000001b3ULL;
  }
  return hash;
}

/// "" if the values can be one voxel's stored outcome (reach_map.h: what
/// ReachTask::ComputeVoxel and the run produce), else what is wrong:
///   - `state` is solved, beyond the reach bound or skipped (never pending);
///   - `flags` (n entries) are 0 or 1 and `reached` is their count (≤ n);
///   - a voxel that was not solved reached nothing;
///   - the manipulability statistics are NaN when nothing was reached, and
///     otherwise finite, ≥ 0 and min ≤ mean ≤ max.
inline std::string VoxelFault(std::uint8_t state, long long reached,
                              float minimum, float mean, float maximum,
                              const std::uint8_t* flags, int n) {
  if (state != static_cast<std::uint8_t>(VoxelState::kSolved) &&
      state != static_cast<std::uint8_t>(VoxelState::kOutsideReach) &&
      state != static_cast<std::uint8_t>(VoxelState::kSkipped)) {
    return "state " + std::to_string(state) +
           " is none of 1 (solved), 2 (beyond the reach bound), 3 (skipped)";
  }
  long long count = 0;
  for (int o = 0; o < n; ++o) {
    if (flags[o] > 1) {
      return "orientation " + std::to_string(o) + " has flag " +
             std::to_string(flags[o]) + " (0 or 1)";
    }
    count += flags[o];
  }
  if (reached < 0 || reached > n) {
    return "reached " + std::to_string(reached) + " of " + std::to_string(n) +
           " orientations";
  }
  if (reached != count) {
    return "reached " + std::to_string(reached) + " but " +
           std::to_string(count) + " orientations are flagged reached";
  }
  if (reached > 0 && state != static_cast<std::uint8_t>(VoxelState::kSolved)) {
    return "reached " + std::to_string(reached) +
           " orientations but was not solved (state " + std::to_string(state) +
           ")";
  }
  if (reached == 0) {
    if (!std::isnan(minimum) || !std::isnan(mean) || !std::isnan(maximum)) {
      return "reached nothing but has a manipulability (NaN expected)";
    }
    return "";
  }
  if (!std::isfinite(minimum) || !std::isfinite(mean) ||
      !std::isfinite(maximum) || !(minimum >= 0.0f) || !(minimum <= mean) ||
      !(mean <= maximum)) {
    return "manipulability min/mean/max " + std::to_string(minimum) + "/" +
           std::to_string(mean) + "/" + std::to_string(maximum) +
           " (finite, >= 0, min <= mean <= max expected)";
  }
  return "";
}

}  // namespace iklab::internal

#endif  // IKLAB_REACH_INTERNAL_FILE_CHECKS_H_
