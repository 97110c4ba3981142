// libFuzzer harness for the URDF loader (framework/urdf_loader.h).
//
// Any input must either load into a figure that compiles and runs FK, or be
// rejected with std::invalid_argument whose message starts with the source
// name. Anything else (a crash, a sanitizer report, another exception type,
// a message without the file name) is a finding.

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <stdexcept>
#include <string>

#include <Eigen/Core>

#include "framework/kinematics.h"
#include "framework/model.h"
#include "framework/urdf_loader.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data,
                                      std::size_t size) {
  const std::string xml(reinterpret_cast<const char*>(data), size);
  const std::string source = "fuzz.urdf";
  try {
    const iklab::UrdfFigure urdf = iklab::LoadUrdfFromString(xml, source);
    const iklab::Model model = urdf.figure.Compile();
    iklab::Data workspace(model);
    // q = 0 is always a valid configuration (limits are not checked by FK);
    // mid-limits could overflow for absurd limits, which is not the loader's
    // business.
    iklab::ForwardKinematics(model, Eigen::VectorXd::Zero(model.nq()),
                             &workspace);
    for (int s = 0; s < model.num_sites(); ++s) {
      iklab::SitePosition(model, workspace, s);
    }
  } catch (const std::invalid_argument& e) {
    if (std::string(e.what()).rfind(source, 0) != 0) std::abort();
  }
  return 0;
}
