#ifndef IKLAB_REACH_INTERNAL_JOURNAL_H_
#define IKLAB_REACH_INTERNAL_JOURNAL_H_

/// @file
/// The reach journal's bytes (reach_run.h, "Journal"): the header, the
/// records, the voxel results inside them, and the checks a resumed run
/// makes before it trusts any of them. Not installed.

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "reach/reach_map.h"

namespace iklab::internal {

using Bytes = std::vector<unsigned char>;

/// What a journal must agree with: the run's header (magic "IKLABRJ1",
/// fingerprint, voxel count, orientations per voxel) and the voxels the run
/// solves (those within the reach bound).
struct JournalExpectation {
  Bytes header;
  std::int64_t num_voxels = 0;
  int orientations = 1;
  /// inside[v]: voxel v lies within the reach bound (only these are solved
  /// and journaled).
  std::vector<bool> inside;
};

/// The header bytes of a journal of these values.
Bytes JournalHeader(std::uint64_t fingerprint, std::int64_t num_voxels,
                    int orientations);

/// Appends voxel v's result to a record payload (host byte order: the
/// journal is read back on the machine family that wrote it).
void EncodeVoxel(std::int64_t v, const VoxelResult& r, Bytes* out);

/// Decodes a payload of voxel results (a journal record or a rank's
/// message), calling `use` per voxel; returns "" or what is wrong: a size
/// that is not whole voxels, an index out of range, a result that breaks the
/// rules of file_checks.h VoxelFault.
std::string DecodeVoxels(
    const unsigned char* data, size_t size, std::int64_t num_voxels,
    int orientations,
    const std::function<void(std::int64_t, const VoxelResult&)>& use);

/// Reads a journal's bytes: the header must equal `expected.header`; every
/// record must pass its checksum and hold solved voxels within the reach
/// bound, each at most once in the whole journal, with consistent results.
/// A torn last record (shorter than its size field says, or failing its
/// checksum at the end of the file: a crash while it was written) is
/// dropped. Calls `use` for every voxel of the intact records.
/// @return the length of the intact part (the header and the whole records).
/// @throws std::invalid_argument naming `source`, the record (its number
///   and byte offset) and the fault.
size_t ReadJournal(
    const std::string& bytes, const JournalExpectation& expected,
    const std::string& source,
    const std::function<void(std::int64_t, const VoxelResult&)>& use);

}  // namespace iklab::internal

#endif  // IKLAB_REACH_INTERNAL_JOURNAL_H_
