#ifndef IKLAB_BENCH_INTERNAL_CHUNK_PIPELINE_H_
#define IKLAB_BENCH_INTERNAL_CHUNK_PIPELINE_H_

/// @file
/// The benchmark's streaming pipeline: items cut into chunks of consecutive
/// indices, each chunk worked on by whichever thread takes it, the chunks'
/// output handed on in index order as soon as every earlier chunk is done.
/// Not installed.

#include <cstddef>
#include <functional>
#include <string>

namespace iklab::internal {

/// Items per chunk for `count` items on `threads` threads: about 16 chunks
/// per thread (so that a slow chunk does not leave the others idle), at
/// least 16 and at most 1024 items (a chunk's text stays small, and the
/// per-chunk overhead small against its items).
std::size_t PipelineChunk(std::size_t count, int threads);

/// Runs work(begin, end, &text) for the chunks [begin, end) of [0, count)
/// on `threads` threads (TBB parallel_pipeline in an arena of that many;
/// at most 4 chunks per thread in flight, so memory stays bounded), and
/// emit(begin, end, text) for each chunk in index order, one call at a time.
/// The first exception of either stops the pipeline and is rethrown here.
/// @param threads ≥ 1 (checked by the callers' rules).
void RunChunkPipeline(
    std::size_t count, int threads, std::size_t chunk,
    const std::function<void(std::size_t, std::size_t, std::string*)>& work,
    const std::function<void(std::size_t, std::size_t, const std::string&)>&
        emit);

}  // namespace iklab::internal

#endif  // IKLAB_BENCH_INTERNAL_CHUNK_PIPELINE_H_
