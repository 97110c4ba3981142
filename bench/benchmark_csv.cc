// The benchmark's CSV output (declared in bench/ik_benchmark.h): targets and
// per-target outcomes, formatted in chunks on the worker threads with fmt
// (the shortest text that reads back to the same double, no locale, no
// stream state) and written in order through one stdio stream.

#include <cerrno>
#include <cstring>
#include <iterator>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <fmt/compile.h>
#include <fmt/format.h>

#include "bench/ik_benchmark.h"
#include "bench/internal/chunk_pipeline.h"
#include "framework/internal/read_file.h"
#include "framework/validate.h"

namespace iklab {

namespace {

std::FILE* Open(const std::string& path, const char* mode) {
  std::FILE* file = std::fopen(path.c_str(), mode);
  if (file == nullptr) {
    throw std::runtime_error(internal::CannotWrite(path));
  }
  return file;
}

void WriteAll(std::FILE* file, const std::string& text, bool* failed) {
  if (!text.empty() &&
      std::fwrite(text.data(), 1, text.size(), file) != text.size()) {
    *failed = true;
  }
}

void CloseChecked(std::FILE* file, const std::string& path, bool failed) {
  failed |= std::fflush(file) != 0;
  failed |= std::ferror(file) != 0;
  failed |= std::fclose(file) != 0;
  if (failed) throw std::runtime_error(internal::CannotWrite(path));
}

}  // namespace

void WriteTargetsCsv(const std::string& path, const Model& model,
                     const std::vector<BenchmarkTarget>& targets,
                     int threads) {
  CheckThreadCount(threads, "WriteTargetsCsv: threads");
  std::FILE* file = Open(path, "wb");
  bool failed = false;
  std::string header;
  for (int i = 0; i < model.nq(); ++i) {
    fmt::format_to(std::back_inserter(header), "seed_{},", model.dof_name(i));
  }
  header += "x,y,z,qw,qx,qy,qz\n";
  WriteAll(file, header, &failed);
  try {
    internal::RunChunkPipeline(
        targets.size(), threads,
        internal::PipelineChunk(targets.size(), threads),
        [&](std::size_t begin, std::size_t end, std::string* text) {
          fmt::memory_buffer buffer;
          auto out = std::back_inserter(buffer);
          for (std::size_t k = begin; k < end; ++k) {
            const BenchmarkTarget& t = targets[k];
            for (Eigen::Index i = 0; i < t.seed.size(); ++i) {
              fmt::format_to(out, FMT_COMPILE("{},"), t.seed[i]);
            }
            const Eigen::Quaterniond r(t.target.linear());
            const Eigen::Vector3d p = t.target.translation();
            fmt::format_to(out, FMT_COMPILE("{},{},{},{},{},{},{}\n"), p.x(),
                           p.y(), p.z(), r.w(), r.x(), r.y(), r.z());
          }
          text->append(buffer.data(), buffer.size());
        },
        [&](std::size_t, std::size_t, const std::string& text) {
          WriteAll(file, text, &failed);
        });
  } catch (...) {
    std::fclose(file);
    throw;
  }
  CloseChecked(file, path, failed);
}

OutcomesCsvWriter::OutcomesCsvWriter(const std::string& path,
                                     const Model& model, std::string solver,
                                     bool append)
    : path_(path), model_(&model), solver_(std::move(solver)) {
  file_ = Open(path, append ? "ab" : "wb");
  if (append) return;
  std::string header =
      "target,solver,status,success,microseconds,iterations,"
      "position_error,rotation_error,within_limits";
  // The answer as the full joint vector (mimic joints included).
  for (int i = 0; i < model.nq_full(); ++i) {
    header += ',';
    header += model.full_dof_name(i);
  }
  header += '\n';
  Write(header);
}

OutcomesCsvWriter::~OutcomesCsvWriter() {
  if (file_ != nullptr) std::fclose(file_);
}

void OutcomesCsvWriter::Format(std::size_t first,
                               const TargetOutcome* outcomes,
                               std::size_t count, std::string* text) const {
  const Model& model = *model_;
  fmt::memory_buffer buffer;  // grows on the stack first, then once per chunk
  auto out = std::back_inserter(buffer);
  // The full joint vector of an answer, expanded without allocating when
  // the model has no mimic joints (then it is the answer itself).
  Eigen::VectorXd q_full;
  for (std::size_t k = 0; k < count; ++k) {
    const TargetOutcome& o = outcomes[k];
    fmt::format_to(out, FMT_COMPILE("{},{},{},{},{},{},{},{},{}"), first + k,
                   solver_,
                   SolveStatusName(o.status), o.success ? 1 : 0,
                   o.microseconds, o.iterations, o.check.position_error,
                   o.check.rotation_error, o.check.within_limits ? 1 : 0);
    const bool expand = o.q.size() == model.nq() && model.has_mimics();
    if (expand) q_full = model.FullConfiguration(o.q);
    const Eigen::VectorXd& q = expand ? q_full : o.q;
    for (Eigen::Index i = 0; i < q.size(); ++i) {
      fmt::format_to(out, FMT_COMPILE(",{}"), q[i]);
    }
    buffer.push_back('\n');
  }
  text->append(buffer.data(), buffer.size());
}

void OutcomesCsvWriter::Write(const std::string& text) {
  WriteAll(file_, text, &failed_);
  if (failed_) throw std::runtime_error(internal::CannotWrite(path_));
}

void OutcomesCsvWriter::Close() {
  if (file_ == nullptr) return;
  std::FILE* file = file_;
  file_ = nullptr;
  CloseChecked(file, path_, failed_);
}

void WriteOutcomesCsv(const std::string& path, const Model& model,
                      const std::string& solver,
                      const std::vector<TargetOutcome>& outcomes, bool append,
                      int threads) {
  CheckThreadCount(threads, "WriteOutcomesCsv: threads");
  OutcomesCsvWriter writer(path, model, solver, append);
  internal::RunChunkPipeline(
      outcomes.size(), threads,
      internal::PipelineChunk(outcomes.size(), threads),
      [&](std::size_t begin, std::size_t end, std::string* text) {
        writer.Format(begin, outcomes.data() + begin, end - begin, text);
      },
      [&](std::size_t, std::size_t, const std::string& text) {
        writer.Write(text);
      });
  writer.Close();
}

}  // namespace iklab
