// libFuzzer harness for the benchmark's target CSV reader
// (bench/target_csv.h).
//
// The first byte picks the coordinate count nq in [0, 15]; the rest is the
// file. Any input must either parse into at least one target with nq finite
// seed coordinates and a finite rigid pose, or be rejected with
// std::invalid_argument whose message starts with the source name. Anything
// else is a finding.

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <sstream>
#include <stdexcept>
#include <string>

#include "bench/target_csv.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data,
                                      std::size_t size) {
  if (size == 0) return 0;
  const int nq = data[0] % 16;
  std::istringstream in(
      std::string(reinterpret_cast<const char*>(data) + 1, size - 1));
  const std::string source = "fuzz.csv";
  try {
    const auto targets = iklab::ParseTargetsCsv(in, source, nq);
    if (targets.empty()) std::abort();
    for (const iklab::BenchmarkTarget& t : targets) {
      if (t.seed.size() != nq || !t.seed.allFinite()) std::abort();
      if (!t.target.matrix().allFinite()) std::abort();
      const Eigen::Matrix3d R = t.target.linear();
      if ((R.transpose() * R - Eigen::Matrix3d::Identity()).cwiseAbs().maxCoeff() >
          1e-9) {
        std::abort();
      }
    }
  } catch (const std::invalid_argument& e) {
    if (std::string(e.what()).rfind(source, 0) != 0) std::abort();
  }
  return 0;
}
