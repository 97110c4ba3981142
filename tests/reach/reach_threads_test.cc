// A thread-pool (TBB) worker that the system refuses to start is an error
// that names `iklab reach`, never std::terminate.
#include <pthread.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <memory>
#include <stdexcept>
#include <string>

#include <catch2/catch.hpp>
#include <tbb/global_control.h>

#include "framework/figure.h"
#include "framework/validate.h"
#include "reach/reach_map.h"
#include "reach/reach_run.h"

namespace iklab {
namespace {

// One pitch joint and a tip 0.5 along x: a map of a few voxels.
std::shared_ptr<const Model> OnePitchArm() {
  Figure figure("base");
  Joint joint;
  joint.name = "pitch";
  joint.parent = "base";
  joint.child = "link";
  joint.axis = Eigen::Vector3d::UnitY();
  joint.WithLimits(-1.5, 1.5);
  figure.AddJoint(joint);
  figure.AddSite({"tip", "link",
                  Eigen::Isometry3d(Eigen::Translation3d(0.5, 0, 0))});
  return std::make_shared<const Model>(figure.Compile());
}

TEST_CASE(
    "A TBB worker the system refuses to start stops iklab reach with an "
    "error naming it, never std::terminate",
    "[reach]") {  // not under valgrind: its own address space would not fit
  if (MaxWorkerThreads() < 2) {
    WARN("SKIPPED: needs two hardware threads (TBB starts no worker on one)");
    return;
  }
  ReachSettings settings;
  settings.resolution = 0.25;
  settings.approach_axes = 2;
  settings.max_attempts = 1;
  settings.max_iterations = 20;
  const ReachTask task(OnePitchArm(), "tip", settings);
  std::fflush(nullptr);
  const pid_t pid = ::fork();
  if (pid == 0) {
    // Plain threads (reach's own worker) get small stacks and fit; TBB's
    // workers ask for 64 MB, which the lowered address space has no room
    // for. This process has started no TBB worker yet (a test per process).
    pthread_attr_t attributes;
    ::pthread_attr_init(&attributes);
    ::pthread_attr_setstacksize(&attributes, std::size_t{256} << 10);
    if (::pthread_setattr_default_np(&attributes) != 0) ::_exit(3);
    const tbb::global_control stack(tbb::global_control::thread_stack_size,
                                    std::size_t{64} << 20);
    long pages = 0;
    std::ifstream("/proc/self/statm") >> pages;
    const rlim_t limit = static_cast<rlim_t>(pages) * ::sysconf(_SC_PAGESIZE) +
                         (rlim_t{16} << 20);
    const rlimit lowered{limit, limit};
    if (::setrlimit(RLIMIT_AS, &lowered) != 0) ::_exit(3);
    const std::unique_ptr<ProcessGroup> local = LocalProcessGroup();
    ReachRunOptions options;
    options.threads = 2;
    try {
      RunReach(task, "arm", "base", local.get(), options);
    } catch (const std::runtime_error& e) {
      const std::string message = e.what();
      std::fprintf(stderr, "child: %s\n", message.c_str());
      ::_exit(message.find("iklab reach: the solving threads") !=
                          std::string::npos &&
                      message.find("request fewer threads") != std::string::npos
                  ? 0
                  : 1);
    }
    ::_exit(2);  // every thread started: the limit did not bite
  }
  int status = 0;
  ::waitpid(pid, &status, 0);
  INFO("child status " << status);
  REQUIRE(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 0);
}

}  // namespace
}  // namespace iklab
