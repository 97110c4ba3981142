#ifndef IKLAB_FRAMEWORK_WORKER_THREADS_H_
#define IKLAB_FRAMEWORK_WORKER_THREADS_H_

/// @file
/// The one way iklab starts worker threads (batch solves, studies, the
/// benchmark): a thread the system refuses to start is an error the caller
/// can catch, never std::terminate (a std::vector<std::thread> destroyed with
/// joinable threads while unwinding from a failed start aborts the process).

#include <functional>
#include <string>

namespace iklab {

/// Runs `work(t)` for t = 0 … threads − 1: t = 0 on the calling thread, the
/// others on new std::threads, and returns when all have returned.
/// If the system cannot start one (std::thread throws std::system_error:
/// a process or address-space limit), `stop()` is called so that the
/// workers already running stop early, they are joined, and
/// std::runtime_error is thrown naming `what`, the number of threads
/// started and the system's reason; `work(0)` is then not run.
/// @pre threads ≥ 1 (see CheckThreadCount in framework/validate.h); `work`
/// does not throw (workers store their errors); `stop` is thread-safe.
void RunWorkerThreads(int threads, const std::function<void(int)>& work,
                      const std::function<void()>& stop,
                      const std::string& what);

}  // namespace iklab

#endif  // IKLAB_FRAMEWORK_WORKER_THREADS_H_
