#include "bench/internal/chunk_pipeline.h"

#include <tbb/parallel_pipeline.h>
#include <tbb/task_arena.h>

#include <algorithm>
#include <utility>

namespace iklab::internal {

std::size_t PipelineChunk(std::size_t count, int threads) {
  const std::size_t per_thread = 16 * static_cast<std::size_t>(std::max(threads, 1));
  return std::clamp<std::size_t>((count + per_thread - 1) / per_thread, 16,
                                 1024);
}

namespace {

struct Chunk {
  std::size_t begin = 0;
  std::size_t end = 0;
  std::string text;
};

}  // namespace

void RunChunkPipeline(
    std::size_t count, int threads, std::size_t chunk,
    const std::function<void(std::size_t, std::size_t, std::string*)>& work,
    const std::function<void(std::size_t, std::size_t, const std::string&)>&
        emit) {
  if (count == 0) return;
  chunk = std::max<std::size_t>(chunk, 1);
  threads = std::max(threads, 1);
  std::size_t next = 0;  // touched by the serial input stage only
  const auto take = [&](tbb::flow_control& control) -> Chunk {
    Chunk c;
    if (next >= count) {
      control.stop();
      return c;
    }
    c.begin = next;
    c.end = std::min(count, next + chunk);
    next = c.end;
    return c;
  };
  const auto run = [&](Chunk c) -> Chunk {
    work(c.begin, c.end, &c.text);
    return c;
  };
  const auto give = [&](Chunk c) { emit(c.begin, c.end, c.text); };
  tbb::task_arena arena(threads);
  arena.execute([&] {
    tbb::parallel_pipeline(
        static_cast<std::size_t>(4 * threads),
        tbb::make_filter<void, Chunk>(tbb::filter_mode::serial_in_order, take) &
            tbb::make_filter<Chunk, Chunk>(tbb::filter_mode::parallel, run) &
            tbb::make_filter<Chunk, void>(tbb::filter_mode::serial_in_order,
                                          give));
  });
}

}  // namespace iklab::internal
