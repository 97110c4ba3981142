// libFuzzer harness for the scene reader's checks (lab/scene.h
// ValidateScene, what ReadScene runs after parsing), on seeds that iklab
// wrote (scenes of a robot, a motion and a reach map).
//
// Any input that parses as JSON must either pass ValidateScene or be
// refused with std::invalid_argument whose message starts with the source
// name. Anything else (a crash, a sanitizer report, another exception) is a
// finding.

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <stdexcept>
#include <string>

#include <nlohmann/json.hpp>

#include "lab/scene.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data,
                                      std::size_t size) {
  const nlohmann::json scene =
      nlohmann::json::parse(data, data + size, nullptr, /*allow_exceptions=*/false);
  if (scene.is_discarded()) return 0;  // not JSON: ReadScene says so
  const std::string source = "fuzz.json";
  try {
    iklab::ValidateScene(scene, source);
  } catch (const std::invalid_argument& e) {
    if (std::string(e.what()).rfind(source + ": ", 0) != 0) std::abort();
  }
  return 0;
}
