// The readers of reach maps and reach journals trust nothing they have not
// checked: every single damaged byte of a map file is refused with the file
// named (never a crash inside HDF5), old maps without a checksum are refused
// with a reason, journals whose records disagree with their settings or with
// each other are refused naming the record, and a folder or a missing file
// given to any reader is named as such.
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <string>

#include <catch2/catch.hpp>
#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/lsan_interface.h>
#endif

#include "bench/target_csv.h"
#include "framework/bvh_loader.h"
#include "framework/figure.h"
#include "framework/urdf_loader.h"
#include "lab/scene.h"
#include "reach/internal/file_checks.h"
#include "reach/reach_hdf5.h"
#include "reach/reach_map.h"
#include "reach/reach_run.h"
#include "tests/test_utilities.h"

namespace iklab {
namespace {

namespace fs = std::filesystem;

// Two pitch joints (y, ±1.5) with links of 0.4 and 0.3: a small arm whose
// maps take milliseconds.
std::shared_ptr<const Model> TwoPitchArmForFiles() {
  Figure figure("base");
  Joint first;
  first.name = "first";
  first.parent = "base";
  first.child = "l1";
  first.axis = Eigen::Vector3d::UnitY();
  first.WithLimits(-1.5, 1.5);
  figure.AddJoint(first);
  Joint second = first;
  second.name = "second";
  second.parent = "l1";
  second.child = "l2";
  second.X_PJ.translation() = Eigen::Vector3d(0.4, 0, 0);
  figure.AddJoint(second);
  figure.AddSite({"tip", "l2",
                  Eigen::Isometry3d(Eigen::Translation3d(0.3, 0, 0))});
  return std::make_shared<const Model>(figure.Compile());
}

std::string FileBytes(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

void PutBytes(const fs::path& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
}

// The header WriteReachMapHdf5 puts in front of `hdf5` (reach_hdf5.h).
std::string MapHeaderFor(const std::string& hdf5) {
  char text[512] = {};
  std::snprintf(text, sizeof text,
                "iklab reachability map\nformat_version 2\nhdf5_bytes %zu\n"
                "fnv1a64 %016" PRIx64 "\n",
                hdf5.size(), internal::Fnv1a64(hdf5.data(), hdf5.size()));
  return std::string(text, sizeof text);
}

ReachMap SmallPoseMap() {
  ReachSettings settings;
  settings.resolution = 0.35;
  settings.approach_axes = 2;
  settings.max_attempts = 2;
  settings.max_iterations = 50;
  ReachMap map = ComputeReachMap(
      ReachTask(TwoPitchArmForFiles(), "tip", settings), 1);
  map.robot = "two-pitch";
  map.base_link = "base";
  return map;
}

TEST_CASE("Every single damaged byte of a reach map is refused naming the file",
          "[reach][files]") {
  const fs::path dir = testing::ScratchPath("reach-damaged");
  fs::remove_all(dir);
  fs::create_directories(dir);
  const ReachMap map = SmallPoseMap();
  REQUIRE(map.CountState(VoxelState::kSolved) > 0);
  const fs::path good = dir / "map.h5";
  WriteReachMapHdf5(map, good.string());
  const std::string bytes = FileBytes(good);
  const ReachMap back = ReadReachMapHdf5(good.string());
  CHECK(back.reached_orientations == map.reached_orientations);

  const fs::path damaged = dir / "damaged.h5";
  int refused = 0;
  for (size_t at = 0; at < bytes.size(); ++at) {
    for (const unsigned char flip : {0x01, 0x80, 0xff}) {
      std::string copy = bytes;
      copy[at] = static_cast<char>(copy[at] ^ flip);
      PutBytes(damaged, copy);
      try {
        ReadReachMapHdf5(damaged.string());
        FAIL("byte " << at << " xor " << int{flip} << " was read as a map");
      } catch (const std::runtime_error& e) {
        REQUIRE_THAT(e.what(), Catch::Contains(damaged.string()));
        ++refused;
      }
    }
  }
  CHECK(refused == static_cast<int>(3 * bytes.size()));
  // A truncated map and an empty file.
  for (const size_t size : {size_t{0}, size_t{100}, size_t{600}, bytes.size() - 1}) {
    PutBytes(damaged, bytes.substr(0, size));
    REQUIRE_THROWS_WITH(ReadReachMapHdf5(damaged.string()),
                        Catch::Contains(damaged.string()));
  }
  fs::remove_all(dir);
}

TEST_CASE("A damaged map whose checksum was made to match is refused or read, never a crash",
          "[reach][files]") {
  // HDF5 checks its own metadata checksums (the 1.8 format) and the reader
  // checks the structure and every voxel: no byte of the HDF5 part, changed
  // and covered by a recomputed header, crashes the reader.
  const fs::path dir = testing::ScratchPath("reach-resummed");
  fs::remove_all(dir);
  fs::create_directories(dir);
  const fs::path good = dir / "map.h5";
  WriteReachMapHdf5(SmallPoseMap(), good.string());
  const std::string hdf5 = FileBytes(good).substr(512);
#if defined(__SANITIZE_ADDRESS__)
  // libhdf5 1.10.8 itself leaks on some failed opens of these crafted files
  // (it also prints "infinite loop closing library" at exit); those
  // allocations are the library's, not the reader's: not reported here.
  __lsan::ScopedDisabler library_leaks_not_reported;
#endif
  int refused = 0;
  for (size_t at = 0; at < hdf5.size(); ++at) {
    std::string copy = hdf5;
    copy[at] = static_cast<char>(copy[at] ^ 0xff);
    const std::string source = "resummed byte " + std::to_string(at);
    try {
      const ReachMap map = ReadReachMapHdf5FromBytes(MapHeaderFor(copy) + copy,
                                                     source);
      CHECK(map.state.size() == map.reached.size());
    } catch (const std::runtime_error& e) {
      REQUIRE_THAT(e.what(), Catch::StartsWith(source + ": "));
      ++refused;
    }
  }
  // Most bytes are metadata or voxel data that the checks cover.
  CHECK(refused > static_cast<int>(hdf5.size() / 2));
  fs::remove_all(dir);
}

TEST_CASE("A reach map without the iklab header is refused with the reason",
          "[reach][files]") {
  const fs::path dir = testing::ScratchPath("reach-legacy");
  fs::remove_all(dir);
  fs::create_directories(dir);
  WriteReachMapHdf5(SmallPoseMap(), (dir / "map.h5").string());
  // The HDF5 part alone: what a map of format_version 1 looks like to the
  // reader (an HDF5 file from its first byte).
  PutBytes(dir / "old.h5", FileBytes(dir / "map.h5").substr(512));
  REQUIRE_THROWS_WITH(ReadReachMapHdf5((dir / "old.h5").string()),
                      Catch::Contains("old.h5") &&
                          Catch::Contains("format_version 1") &&
                          Catch::Contains("iklab reach"));
  PutBytes(dir / "text.h5", "hello\n");
  REQUIRE_THROWS_WITH(ReadReachMapHdf5((dir / "text.h5").string()),
                      Catch::Contains("text.h5: not an iklab reachability map"));
  std::string future = FileBytes(dir / "map.h5");
  future.replace(future.find("format_version 2"), 16, "format_version 3");
  PutBytes(dir / "future.h5", future);
  REQUIRE_THROWS_WITH(ReadReachMapHdf5((dir / "future.h5").string()),
                      Catch::Contains("format_version 3; this iklab reads 2"));
  fs::remove_all(dir);
}

// The journal's layout (reach_run.h): a 28-byte header, then records of
// size (uint32), FNV-1a checksum (uint64) and payload; per voxel index
// (int64), state (uint8), reached (uint16), three floats, n flags.
struct JournalRecord {
  size_t offset = 0;
  std::string payload;
};

std::vector<JournalRecord> JournalRecords(const std::string& bytes) {
  std::vector<JournalRecord> records;
  size_t at = 28;
  while (at + 12 <= bytes.size()) {
    std::uint32_t size = 0;
    std::memcpy(&size, bytes.data() + at, 4);
    records.push_back({at, bytes.substr(at + 12, size)});
    at += 12 + size;
  }
  return records;
}

std::string JournalRecordBytes(const std::string& payload) {
  const auto size = static_cast<std::uint32_t>(payload.size());
  const std::uint64_t checksum =
      internal::Fnv1a64(payload.data(), payload.size());
  return std::string(reinterpret_cast<const char*>(&size), 4) +
         std::string(reinterpret_cast<const char*>(&checksum), 8) + payload;
}

TEST_CASE("A journal whose records are well formed but inconsistent is refused naming the record",
          "[reach][files]") {
  ReachSettings settings;
  settings.resolution = 0.2;
  settings.approach_axes = 3;
  settings.max_attempts = 2;
  settings.max_iterations = 50;
  const ReachTask task(TwoPitchArmForFiles(), "tip", settings);
  const int n = settings.orientations_per_voxel();
  const size_t stride = 23 + n;
  const fs::path dir = testing::ScratchPath("reach-journal-checks");
  fs::remove_all(dir);
  fs::create_directories(dir);
  const std::unique_ptr<ProcessGroup> local = LocalProcessGroup();
  ReachRunOptions options;
  options.journal = (dir / "map.h5.partial").string();
  options.stop_after = 20;
  REQUIRE_FALSE(RunReach(task, "arm", "base", local.get(), options).complete);
  const std::string journal = FileBytes(options.journal);
  const std::vector<JournalRecord> records = JournalRecords(journal);
  REQUIRE(records.size() >= 2);
  const std::string head = journal.substr(0, records[0].offset);
  options.resume = true;
  options.stop_after = 1;

  const auto refused = [&](const std::string& bytes, const std::string& what) {
    PutBytes(options.journal, bytes);
    REQUIRE_THROWS_WITH(RunReach(task, "arm", "base", local.get(), options),
                        Catch::Contains(options.journal) &&
                            Catch::Contains(what));
  };
  const auto with_first = [&](const std::string& payload) {
    std::string bytes = head + JournalRecordBytes(payload);
    for (size_t r = 1; r < records.size(); ++r) {
      bytes += JournalRecordBytes(records[r].payload);
    }
    return bytes;
  };
  SECTION("a voxel that reached more orientations than it has") {
    std::string payload = records[0].payload;
    const std::uint16_t reached = 65535;  // a fraction of 65535 / n
    std::memcpy(&payload[9], &reached, 2);
    refused(with_first(payload), "record 1 (at byte 28)");
    refused(with_first(payload), "reached 65535 of " + std::to_string(n));
  }
  SECTION("a count that disagrees with the voxel's orientation flags") {
    std::string payload = records[0].payload;
    payload[23] = static_cast<char>(payload[23] ^ 1);  // its first flag
    refused(with_first(payload), "orientations are flagged reached");
  }
  SECTION("a voxel index outside the grid") {
    std::string payload = records[0].payload;
    const std::int64_t v = -5;
    std::memcpy(&payload[0], &v, 8);
    refused(with_first(payload), "voxel -5 is outside the grid");
  }
  SECTION("a voxel given twice") {
    refused(journal + JournalRecordBytes(records[0].payload),
            "was already given by an earlier record");
  }
  SECTION("a payload that is not whole voxels") {
    refused(with_first(records[0].payload + "x"),
            "are not whole voxel results");
  }
  SECTION("a record damaged in the middle of the journal") {
    std::string bytes = journal;
    bytes[records[0].offset + 12 + 3] ^= 0x10;
    refused(bytes, "record 1 (at byte 28) fails its checksum");
  }
  SECTION("a voxel beyond the reach bound") {
    std::int64_t outside = -1;
    for (std::int64_t v = 0; v < task.grid().num_voxels(); ++v) {
      if (!task.InsideReach(v)) outside = v;
    }
    REQUIRE(outside >= 0);
    std::string payload = records[0].payload.substr(0, stride);
    std::memcpy(&payload[0], &outside, 8);
    refused(with_first(payload), "lies beyond the reach bound");
  }
  SECTION("not a journal at all") {
    refused("garbage", "is not an iklab reach journal");
  }
  SECTION("a folder where the journal is") {
    fs::remove(options.journal);
    fs::create_directories(options.journal);
    REQUIRE_THROWS_WITH(
        RunReach(task, "arm", "base", local.get(), options),
        Catch::Contains(options.journal + " is a folder; expected an iklab "
                                          "reach journal"));
  }
  SECTION("a torn last record is still dropped, and the run resumes") {
    PutBytes(options.journal, journal + JournalRecordBytes("torn").substr(0, 9));
    options.stop_after = 0;
    const ReachRun run = RunReach(task, "arm", "base", local.get(), options);
    CHECK(run.complete);
    CHECK(run.resumed_voxels == 20);
    CHECK(run.map.reached_orientations ==
          ComputeReachMap(task, 1).reached_orientations);
  }
  fs::remove_all(dir);
}

TEST_CASE("Every reader names a folder, a missing file and a too long name as such",
          "[reach][files]") {
  const fs::path dir = testing::ScratchPath("reader-folders");
  fs::remove_all(dir);
  fs::create_directories(dir / "robot.urdf");
  const std::string folder = (dir / "robot.urdf").string();
  const std::string missing = (dir / "missing.file").string();
  const std::string too_long = (dir / std::string(300, 'x')).string();
  REQUIRE_THROWS_WITH(LoadUrdf(folder),
                      folder + " is a folder; expected a URDF file");
  REQUIRE_THROWS_WITH(LoadBvh(folder),
                      folder + " is a folder; expected a BVH file");
  REQUIRE_THROWS_WITH(ReadTargetsCsv(folder, 2),
                      folder + " is a folder; expected a target CSV file");
  REQUIRE_THROWS_WITH(ReadReachMapHdf5(folder),
                      folder + " is a folder; expected an iklab reachability "
                               "map (.h5)");
  REQUIRE_THROWS_WITH(ReadScene(folder),
                      folder + " is a folder; expected an iklab scene file "
                               "(.json)");
  REQUIRE_THROWS_WITH(LoadUrdf(missing),
                      missing + " does not exist; expected a URDF file");
  REQUIRE_THROWS_WITH(ReadReachMapHdf5(missing),
                      Catch::Contains(missing + " does not exist"));
  REQUIRE_THROWS_WITH(LoadBvh(too_long),
                      Catch::Contains("the file name is too long"));
  fs::remove_all(dir);
}

}  // namespace
}  // namespace iklab
