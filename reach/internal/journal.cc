#include "reach/internal/journal.h"

#include <cstring>
#include <stdexcept>

#include "reach/internal/file_checks.h"

namespace iklab::internal {

namespace {

constexpr char kJournalMagic[8] = {'I', 'K', 'L', 'A', 'B', 'R', 'J', '1'};

// Bytes per voxel before its orientation flags: index, state, reached,
// manipulability min, mean, max.
constexpr size_t kVoxelFixedBytes = 8 + 1 + 2 + 3 * 4;

template <typename T>
void Put(Bytes* out, const T& value) {
  const auto* p = reinterpret_cast<const unsigned char*>(&value);
  out->insert(out->end(), p, p + sizeof(T));
}

template <typename T>
T Take(const unsigned char* data) {
  T value;
  std::memcpy(&value, data, sizeof(T));
  return value;
}

}  // namespace

Bytes JournalHeader(std::uint64_t fingerprint, std::int64_t num_voxels,
                    int orientations) {
  Bytes header(kJournalMagic, kJournalMagic + sizeof kJournalMagic);
  Put(&header, fingerprint);
  Put(&header, num_voxels);
  Put(&header, static_cast<std::int32_t>(orientations));
  return header;
}

void EncodeVoxel(std::int64_t v, const VoxelResult& r, Bytes* out) {
  Put(out, v);
  Put(out, static_cast<std::uint8_t>(r.state));
  Put(out, static_cast<std::uint16_t>(r.reached));
  Put(out, r.manipulability_min);
  Put(out, r.manipulability_mean);
  Put(out, r.manipulability_max);
  out->insert(out->end(), r.reached_orientations.begin(),
              r.reached_orientations.end());
}

std::string DecodeVoxels(
    const unsigned char* data, size_t size, std::int64_t num_voxels,
    int orientations,
    const std::function<void(std::int64_t, const VoxelResult&)>& use) {
  const size_t n = static_cast<size_t>(orientations);
  const size_t stride = kVoxelFixedBytes + n;
  if (size % stride != 0) {
    return std::to_string(size) + " bytes are not whole voxel results (" +
           std::to_string(stride) + " bytes each)";
  }
  VoxelResult r;
  r.reached_orientations.resize(n);
  for (size_t at = 0; at < size; at += stride) {
    const unsigned char* p = data + at;
    const auto v = Take<std::int64_t>(p);
    const auto state = Take<std::uint8_t>(p + 8);
    const auto reached = Take<std::uint16_t>(p + 9);
    r.manipulability_min = Take<float>(p + 11);
    r.manipulability_mean = Take<float>(p + 15);
    r.manipulability_max = Take<float>(p + 19);
    const std::string where = "voxel " + std::to_string(v);
    if (v < 0 || v >= num_voxels) {
      return where + " is outside the grid [0, " + std::to_string(num_voxels) +
             ")";
    }
    const std::string fault = VoxelFault(
        state, reached, r.manipulability_min, r.manipulability_mean,
        r.manipulability_max, p + kVoxelFixedBytes, orientations);
    if (!fault.empty()) return where + ": " + fault;
    r.state = static_cast<VoxelState>(state);
    r.reached = reached;
    std::memcpy(r.reached_orientations.data(), p + kVoxelFixedBytes, n);
    use(v, r);
  }
  return "";
}

size_t ReadJournal(
    const std::string& bytes, const JournalExpectation& expected,
    const std::string& source,
    const std::function<void(std::int64_t, const VoxelResult&)>& use) {
  const auto* data = reinterpret_cast<const unsigned char*>(bytes.data());
  const Bytes& header = expected.header;
  if (bytes.size() < sizeof kJournalMagic ||
      std::memcmp(data, kJournalMagic, sizeof kJournalMagic) != 0) {
    throw std::invalid_argument(
        "'" + source + "' is not an iklab reach journal (it does not begin "
        "with IKLABRJ1); delete it to start over");
  }
  if (bytes.size() < header.size() ||
      std::memcmp(data, header.data(), header.size()) != 0) {
    throw std::invalid_argument(
        "'" + source + "' was written for other settings or another model "
        "(its fingerprint differs); resume with the same options, or "
        "delete it to start over");
  }
  std::vector<bool> seen(static_cast<size_t>(expected.num_voxels), false);
  size_t at = header.size();
  int record = 0;
  // One size (uint32) and checksum (uint64) before each payload.
  constexpr size_t kRecordHead = 4 + 8;
  while (at < bytes.size()) {
    ++record;
    const std::string where = "'" + source + "': record " +
                              std::to_string(record) + " (at byte " +
                              std::to_string(at) + ")";
    if (bytes.size() - at < kRecordHead) break;  // torn: its head incomplete
    const auto size = Take<std::uint32_t>(data + at);
    const auto checksum = Take<std::uint64_t>(data + at + 4);
    if (bytes.size() - at - kRecordHead < size) break;  // torn: payload short
    const unsigned char* payload = data + at + kRecordHead;
    const size_t end = at + kRecordHead + size;
    if (Fnv1a64(payload, size) != checksum) {
      if (end == bytes.size()) break;  // torn: the last record, damaged
      throw std::invalid_argument(
          where + " fails its checksum and records follow it: the journal "
          "is damaged; delete it to start over");
    }
    if (size == 0) {
      throw std::invalid_argument(where + " holds no voxel");
    }
    std::string duplicate;
    const std::string fault = DecodeVoxels(
        payload, size, expected.num_voxels, expected.orientations,
        [&](std::int64_t v, const VoxelResult& r) {
          if (!duplicate.empty()) return;
          if (!expected.inside[static_cast<size_t>(v)]) {
            duplicate = "voxel " + std::to_string(v) +
                        " lies beyond the reach bound; a run never solves it";
          } else if (r.state != VoxelState::kSolved) {
            duplicate = "voxel " + std::to_string(v) +
                        " is not marked solved; a run journals only solved "
                        "voxels";
          } else if (seen[static_cast<size_t>(v)]) {
            duplicate = "voxel " + std::to_string(v) +
                        " was already given by an earlier record";
          } else {
            seen[static_cast<size_t>(v)] = true;
            use(v, r);
          }
        });
    if (!fault.empty() || !duplicate.empty()) {
      throw std::invalid_argument(
          where + ": " + (fault.empty() ? duplicate : fault) +
          "; the journal disagrees with its settings or itself: delete it to "
          "start over");
    }
    at = end;
  }
  return at;
}

}  // namespace iklab::internal
