#include "bench/target_csv.h"

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <string_view>

#include "framework/internal/check.h"
#include "framework/internal/read_file.h"

namespace iklab {

using internal::ThrowInvalidArgument;

namespace {

constexpr const char* kPoseColumns[] = {"x", "y", "z", "qw", "qx", "qy", "qz"};
// Longer lines are not a target row of any plausible robot; refusing them
// bounds the memory a hostile file can make us use per line.
constexpr std::size_t kMaxLineLength = 1 << 20;

std::string_view Trim(std::string_view s) {
  const auto blank = [](char c) { return c == ' ' || c == '\t' || c == '\r'; };
  while (!s.empty() && blank(s.front())) s.remove_prefix(1);
  while (!s.empty() && blank(s.back())) s.remove_suffix(1);
  return s;
}

std::vector<std::string_view> SplitFields(std::string_view line) {
  std::vector<std::string_view> fields;
  std::size_t begin = 0;
  while (true) {
    const std::size_t comma = line.find(',', begin);
    fields.push_back(Trim(line.substr(begin, comma == std::string_view::npos
                                                  ? std::string_view::npos
                                                  : comma - begin)));
    if (comma == std::string_view::npos) break;
    begin = comma + 1;
  }
  return fields;
}

// The header rule: the last seven fields name the pose columns.
bool IsHeader(const std::vector<std::string_view>& fields) {
  if (fields.size() < 7) return false;
  const std::size_t first = fields.size() - 7;
  for (std::size_t k = 0; k < 7; ++k) {
    if (fields[first + k] != kPoseColumns[k]) return false;
  }
  return true;
}

// Printable form of a field for messages: at most 40 characters, bytes
// outside printable ASCII as \xNN.
std::string Printable(std::string_view field) {
  std::string out;
  for (std::size_t i = 0; i < field.size() && i < 40; ++i) {
    const unsigned char c = static_cast<unsigned char>(field[i]);
    if (c >= 32 && c < 127) {
      out += static_cast<char>(c);
    } else {
      static const char* kHex = "0123456789ABCDEF";
      out += "\\x";
      out += kHex[c >> 4];
      out += kHex[c & 15];
    }
  }
  if (field.size() > 40) out += "...";
  return out;
}

// One finite number filling the whole field, or false.
bool ParseNumber(std::string_view field, double* value) {
  if (field.empty()) return false;
  const std::string text(field);  // strtod needs a terminated string
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  // Overflow gives ±HUGE_VAL (not finite); underflow to a subnormal or zero
  // is a number close enough to what was meant.
  if (end != text.c_str() + text.size() || !std::isfinite(v)) return false;
  *value = v;
  return true;
}

}  // namespace

std::vector<BenchmarkTarget> ParseTargetsCsv(std::istream& in,
                                             const std::string& name, int nq) {
  if (nq < 0) ThrowInvalidArgument("ParseTargetsCsv: nq must be >= 0, got ", nq);
  const std::size_t columns = static_cast<std::size_t>(nq) + 7;
  std::vector<BenchmarkTarget> targets;
  std::string line;
  long line_number = 0;
  bool first = true;
  bool header_seen = false;
  std::vector<double> values(columns);
  while (std::getline(in, line)) {
    ++line_number;
    if (line.size() > kMaxLineLength) {
      ThrowInvalidArgument(name, ":", line_number, ": the line is longer than ",
                           kMaxLineLength, " characters");
    }
    const std::string_view text = Trim(line);
    if (text.empty() || text[0] == '#') continue;
    const std::vector<std::string_view> fields = SplitFields(text);
    if (first) {
      first = false;
      if (IsHeader(fields)) {
        header_seen = true;
        if (fields.size() != columns) {
          ThrowInvalidArgument(
              name, ":", line_number, ": the header has ", fields.size(),
              " columns; the chain has ", nq, " coordinates, so expected ",
              columns, " (", nq, " seed coordinates, x, y, z, qw, qx, qy, qz)");
        }
        continue;
      }
    }
    if (fields.size() != columns) {
      ThrowInvalidArgument(name, ":", line_number, ": expected ", columns,
                           " values (", nq,
                           " seed coordinates, x, y, z, qw, qx, qy, qz), got ",
                           fields.size());
    }
    for (std::size_t k = 0; k < columns; ++k) {
      if (!ParseNumber(fields[k], &values[k])) {
        ThrowInvalidArgument(
            name, ":", line_number, ": column ", k + 1, " ('",
            Printable(fields[k]), "') is not a finite number",
            targets.empty() && !header_seen
                ? " (a header line must end in x,y,z,qw,qx,qy,qz)"
                : "");
      }
    }
    BenchmarkTarget t;
    t.seed = Eigen::Map<const Eigen::VectorXd>(values.data(), nq);
    const Eigen::Vector3d p(values[nq], values[nq + 1], values[nq + 2]);
    const Eigen::Quaterniond rotation(values[nq + 3], values[nq + 4],
                                      values[nq + 5], values[nq + 6]);
    if (!std::isfinite(rotation.norm()) ||
        std::abs(rotation.norm() - 1.0) > 1e-6) {
      ThrowInvalidArgument(name, ":", line_number,
                           ": the quaternion (qw, qx, qy, qz) must have unit "
                           "length; its norm is ",
                           rotation.norm());
    }
    t.target = Eigen::Translation3d(p) * rotation.normalized();
    targets.push_back(std::move(t));
  }
  if (in.bad()) ThrowInvalidArgument(name, ": read error");
  if (targets.empty()) {
    ThrowInvalidArgument(name, ": no target rows", header_seen ? " after the header" : "",
                         " (expected per row ", columns, " numbers: ", nq,
                         " seed coordinates, x, y, z, qw, qx, qy, qz)");
  }
  return targets;
}

std::vector<BenchmarkTarget> ReadTargetsCsv(const std::string& path, int nq) {
  internal::CheckReadableFile(path, "a target CSV file");
  std::ifstream file(path, std::ios::binary);
  if (!file) ThrowInvalidArgument(path, ": cannot open the target file");
  return ParseTargetsCsv(file, path, nq);
}

}  // namespace iklab
