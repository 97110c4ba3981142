// libFuzzer harness for the reach map reader (reach/reach_hdf5.h), on the
// bytes of a map in memory (HDF5 opens them as a file image).
//
// Each input is read twice: as it is (the header and its checksum guard
// HDF5 from damaged bytes), and, when it begins with the map header's first
// line, with the header recomputed for the bytes after it, so that damaged
// HDF5 data reaches HDF5's own checks and the reader's structural checks.
// Either read must give a map whose arrays fit its grid, or throw
// std::runtime_error whose message starts with the source name. Anything
// else (a crash, a sanitizer report, another exception) is a finding.

#include <cinttypes>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <string>

#include "reach/internal/file_checks.h"
#include "reach/reach_hdf5.h"

namespace {

void ReadOne(const std::string& bytes, const std::string& source) {
  try {
    const iklab::ReachMap map = iklab::ReadReachMapHdf5FromBytes(bytes, source);
    const auto voxels = static_cast<size_t>(map.grid.num_voxels());
    const auto n = static_cast<size_t>(map.settings.orientations_per_voxel());
    if (map.state.size() != voxels || map.reached.size() != voxels ||
        map.manipulability_max.size() != voxels ||
        map.reached_orientations.size() != voxels * n) {
      std::abort();
    }
  } catch (const std::runtime_error& e) {
    if (std::string(e.what()).rfind(source + ": ", 0) != 0) std::abort();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data,
                                      std::size_t size) {
  const std::string bytes(reinterpret_cast<const char*>(data), size);
  ReadOne(bytes, "fuzz.h5");
  const std::string first_line = "iklab reachability map\n";
  if (bytes.size() > 512 && bytes.compare(0, first_line.size(), first_line) == 0) {
    const std::string hdf5 = bytes.substr(512);
    char header[512] = {};
    std::snprintf(header, sizeof header,
                  "iklab reachability map\nformat_version 2\nhdf5_bytes %zu\n"
                  "fnv1a64 %016" PRIx64 "\n",
                  hdf5.size(),
                  iklab::internal::Fnv1a64(hdf5.data(), hdf5.size()));
    ReadOne(std::string(header, sizeof header) + hdf5, "resummed.h5");
  }
  return 0;
}
