#include "reach/process_group.h"

#include <cstdio>
#include <cstdlib>
#include <stdexcept>

namespace iklab {

namespace {

class Local final : public ProcessGroup {
 public:
  int rank() const override { return 0; }
  int size() const override { return 1; }
  void Broadcast(std::vector<unsigned char>*) override {}
  void SendToRoot(const std::vector<unsigned char>&) override {
    throw std::logic_error("LocalProcessGroup: rank 0 has no root to send to");
  }
  bool TryReceive(std::vector<unsigned char>*) override { return false; }
  [[noreturn]] void Abort(int exit_code) override {
    std::fflush(stderr);
    std::exit(exit_code);
  }
};

}  // namespace

std::unique_ptr<ProcessGroup> LocalProcessGroup() {
  return std::make_unique<Local>();
}

bool LaunchedByMpi() {
  for (const char* name :
       {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK", "MPI_LOCALNRANKS"}) {
    if (std::getenv(name) != nullptr) return true;
  }
  return false;
}

}  // namespace iklab
