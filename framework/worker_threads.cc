#include "framework/worker_threads.h"

#include <stdexcept>
#include <system_error>
#include <thread>
#include <vector>

#include "framework/internal/check.h"

namespace iklab {

void RunWorkerThreads(int threads, const std::function<void(int)>& work,
                      const std::function<void()>& stop,
                      const std::string& what) {
  std::vector<std::thread> pool;
  pool.reserve(threads > 1 ? threads - 1 : 0);
  std::string failure;
  for (int t = 1; t < threads; ++t) {
    try {
      pool.emplace_back(work, t);
    } catch (const std::system_error& e) {
      failure = e.what();
      break;
    }
  }
  if (failure.empty())
    work(0);
  else
    stop();
  for (std::thread& thread : pool) thread.join();
  if (!failure.empty()) {
    throw std::runtime_error(internal::StrCat(
        what, ": could not start worker thread ", pool.size() + 1, " of ",
        threads, " (", failure,
        "); the system limits threads or memory: request fewer threads"));
  }
}

}  // namespace iklab
