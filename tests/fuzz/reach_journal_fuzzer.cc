// libFuzzer harness for the reach journal reader (reach/internal/journal.h),
// on seeds that `iklab reach --stop-after` wrote.
//
// The expected header is the input's own when it begins with the journal's
// magic and declares at most 2^16 voxels of at most 256 orientations (so the
// fingerprint always matches and the records are what is fuzzed); the voxels
// within the reach bound are all of them, or, when the fingerprint is odd,
// the even ones. Every input must either be read — each voxel handed over
// once, within the grid, solved and within the bound, and the intact length
// within the input — or be refused with std::invalid_argument whose message
// names the source. Anything else is a finding.

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#include "reach/internal/journal.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data,
                                      std::size_t size) {
  const std::string bytes(reinterpret_cast<const char*>(data), size);
  iklab::internal::JournalExpectation expected;
  std::uint64_t fingerprint = 0;
  std::int64_t voxels = 64;
  std::int32_t orientations = 3;
  if (size >= 28 && std::memcmp(data, "IKLABRJ1", 8) == 0) {
    std::memcpy(&fingerprint, data + 8, 8);
    std::memcpy(&voxels, data + 16, 8);
    std::memcpy(&orientations, data + 24, 4);
    if (voxels < 1 || voxels > (1 << 16) || orientations < 1 ||
        orientations > 256) {
      voxels = 64;
      orientations = 3;
    }
  }
  expected.header =
      iklab::internal::JournalHeader(fingerprint, voxels, orientations);
  expected.num_voxels = voxels;
  expected.orientations = orientations;
  expected.inside.resize(static_cast<size_t>(voxels));
  for (std::int64_t v = 0; v < voxels; ++v) {
    expected.inside[static_cast<size_t>(v)] = (fingerprint & 1) == 0 || v % 2 == 0;
  }
  const std::string source = "fuzz.partial";
  std::vector<bool> seen(static_cast<size_t>(voxels), false);
  try {
    const size_t good = iklab::internal::ReadJournal(
        bytes, expected, source,
        [&](std::int64_t v, const iklab::VoxelResult& r) {
          if (v < 0 || v >= voxels || seen[static_cast<size_t>(v)] ||
              !expected.inside[static_cast<size_t>(v)] ||
              r.state != iklab::VoxelState::kSolved || r.reached < 0 ||
              r.reached > orientations ||
              static_cast<int>(r.reached_orientations.size()) != orientations) {
            std::abort();
          }
          seen[static_cast<size_t>(v)] = true;
        });
    if (good < expected.header.size() || good > size) std::abort();
  } catch (const std::invalid_argument& e) {
    if (std::string(e.what()).find(source) == std::string::npos) std::abort();
  }
  return 0;
}
