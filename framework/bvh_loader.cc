#include "framework/bvh_loader.h"

#include <charconv>
#include <cmath>
#include <fstream>
#include <limits>
#include <sstream>
#include <stdexcept>
#include <string_view>
#include <system_error>
#include <unordered_map>
#include <utility>

#include <Eigen/Geometry>

#include "framework/internal/check.h"
#include "framework/internal/model_magnitude.h"
#include "framework/internal/read_file.h"
#include "framework/model.h"

namespace iklab {

const char* BvhChannelName(BvhChannelType type) {
  switch (type) {
    case BvhChannelType::kXposition:
      return "Xposition";
    case BvhChannelType::kYposition:
      return "Yposition";
    case BvhChannelType::kZposition:
      return "Zposition";
    case BvhChannelType::kXrotation:
      return "Xrotation";
    case BvhChannelType::kYrotation:
      return "Yrotation";
    case BvhChannelType::kZrotation:
      return "Zrotation";
  }
  return "unknown";
}

namespace {

using internal::ReadFile;
using internal::StrCat;

constexpr double kDegreesToRadians = M_PI / 180.0;

bool IsRotation(BvhChannelType t) {
  return t == BvhChannelType::kXrotation || t == BvhChannelType::kYrotation ||
         t == BvhChannelType::kZrotation;
}

Eigen::Vector3d ChannelAxis(BvhChannelType t) {
  switch (t) {
    case BvhChannelType::kXposition:
    case BvhChannelType::kXrotation:
      return Eigen::Vector3d::UnitX();
    case BvhChannelType::kYposition:
    case BvhChannelType::kYrotation:
      return Eigen::Vector3d::UnitY();
    case BvhChannelType::kZposition:
    case BvhChannelType::kZrotation:
      break;
  }
  return Eigen::Vector3d::UnitZ();
}

// Channel names are matched case-insensitively ("XROTATION" occurs in the
// wild); returns false for anything else.
bool ParseChannel(std::string_view word, BvhChannelType* type) {
  static constexpr BvhChannelType kAll[] = {
      BvhChannelType::kXposition, BvhChannelType::kYposition,
      BvhChannelType::kZposition, BvhChannelType::kXrotation,
      BvhChannelType::kYrotation, BvhChannelType::kZrotation};
  for (BvhChannelType t : kAll) {
    const std::string_view name = BvhChannelName(t);
    if (name.size() != word.size()) continue;
    bool same = true;
    for (std::size_t i = 0; i < name.size() && same; ++i) {
      const auto lower = [](char c) {
        return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
      };
      same = lower(name[i]) == lower(word[i]);
    }
    if (same) {
      *type = t;
      return true;
    }
  }
  return false;
}

// Parses all of `word` as a double (locale-independent; a leading '+' is
// allowed). NaN and infinities parse; callers reject them.
bool ParseDouble(std::string_view word, double* value) {
  if (!word.empty() && word.front() == '+') word.remove_prefix(1);
  if (word.empty()) return false;
  const auto [end, error] =
      std::from_chars(word.data(), word.data() + word.size(), *value);
  return error == std::errc() && end == word.data() + word.size();
}

bool ParseInt(std::string_view word, long long* value) {
  if (!word.empty() && word.front() == '+') word.remove_prefix(1);
  if (word.empty()) return false;
  const auto [end, error] =
      std::from_chars(word.data(), word.data() + word.size(), *value);
  return error == std::errc() && end == word.data() + word.size();
}

// Shortens a word quoted in a message (fuzzed input can be huge or binary).
std::string Quote(std::string_view word) {
  std::string out = "'";
  for (std::size_t i = 0; i < word.size() && i < 40; ++i) {
    const unsigned char c = static_cast<unsigned char>(word[i]);
    out += (c >= 32 && c < 127) ? static_cast<char>(c) : '?';
  }
  if (word.size() > 40) out += "...";
  return out + "'";
}

struct Token {
  std::string_view text;  // empty at the end of the input
  int line = 0;
};

// Whitespace-separated words with '{' and '}' as words of their own, and the
// line of each. A line ends at LF, CRLF or a lone CR.
class Lexer {
 public:
  explicit Lexer(std::string_view text) : text_(text) {
    if (text_.substr(0, 3) == "\xEF\xBB\xBF") pos_ = 3;  // UTF-8 BOM
  }

  int line() const { return line_; }

  Token Next() {
    SkipSpace();
    Token t{{}, line_};
    if (pos_ >= text_.size()) return t;
    const std::size_t start = pos_;
    if (text_[pos_] == '{' || text_[pos_] == '}') {
      ++pos_;
    } else {
      while (pos_ < text_.size() && !IsSpace(text_[pos_]) &&
             text_[pos_] != '{' && text_[pos_] != '}') {
        ++pos_;
      }
    }
    t.text = text_.substr(start, pos_ - start);
    return t;
  }

  Token Peek() {
    const std::size_t pos = pos_;
    const int line = line_;
    const Token t = Next();
    pos_ = pos;
    line_ = line;
    return t;
  }

  // The rest of the current line up to a brace, trimmed (joint names may
  // contain spaces).
  std::string_view RestOfLine() {
    while (pos_ < text_.size() && (text_[pos_] == ' ' || text_[pos_] == '\t')) {
      ++pos_;
    }
    const std::size_t start = pos_;
    while (pos_ < text_.size() && text_[pos_] != '\n' && text_[pos_] != '\r' &&
           text_[pos_] != '{' && text_[pos_] != '}') {
      ++pos_;
    }
    std::string_view rest = text_.substr(start, pos_ - start);
    while (!rest.empty() && (rest.back() == ' ' || rest.back() == '\t')) {
      rest.remove_suffix(1);
    }
    return rest;
  }

  // The rest of the current physical line (without its line break), then
  // moves to the next line. Returns false at the end of the input.
  bool ReadLine(std::string_view* text, int* line) {
    if (pos_ >= text_.size()) return false;
    const std::size_t start = pos_;
    while (pos_ < text_.size() && text_[pos_] != '\n' && text_[pos_] != '\r') {
      ++pos_;
    }
    *text = text_.substr(start, pos_ - start);
    *line = line_;
    if (pos_ < text_.size()) Consume();
    return true;
  }

 private:
  static bool IsSpace(char c) {
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' ||
           c == '\v';
  }

  // Consumes one character, counting line breaks (CRLF counts once).
  void Consume() {
    const char c = text_[pos_++];
    if (c == '\n') {
      ++line_;
    } else if (c == '\r') {
      if (pos_ < text_.size() && text_[pos_] == '\n') ++pos_;
      ++line_;
    }
  }

  void SkipSpace() {
    while (pos_ < text_.size() && IsSpace(text_[pos_])) Consume();
  }

  std::string_view text_;
  std::size_t pos_ = 0;
  int line_ = 1;
};

class Parser {
 public:
  Parser(std::string_view text, std::string source)
      : lexer_(text), source_(std::move(source)) {}

  BvhFigure Parse() {
    BvhFigure result{Figure("world"), source_, {}, {}, {}, 0.0, {}};
    ParseHierarchy(&result);
    BuildFigure(&result);
    ParseMotion(&result);
    return result;
  }

 private:
  template <typename... Args>
  [[noreturn]] void Fail(int line, const Args&... args) const {
    throw std::invalid_argument(StrCat(source_, ":", line, ": ", args...));
  }

  // Runs a Figure call, prefixing its std::invalid_argument with source:line.
  template <typename F>
  void WithLine(int line, F&& f) const {
    try {
      f();
    } catch (const std::invalid_argument& e) {
      Fail(line, e.what());
    }
  }

  // The message arguments are formatted only on failure (this runs for every
  // word of the hierarchy).
  template <typename... Context>
  Token Expect(std::string_view word, const Context&... context) {
    const Token t = lexer_.Next();
    if (t.text != word) {
      Fail(t.line, "expected '", word, "' ", context..., ", got ",
           t.text.empty() ? std::string("the end of the file") : Quote(t.text));
    }
    return t;
  }

  template <typename... What>
  double ReadNumber(const What&... what) {
    const Token t = lexer_.Next();
    last_number_line_ = t.line;
    if (t.text.empty()) {
      Fail(t.line, "unexpected end of the file; expected ", what...);
    }
    double value;
    if (!ParseDouble(t.text, &value)) {
      Fail(t.line, Quote(t.text), " is not a number (", what..., ")");
    }
    if (!std::isfinite(value)) {
      Fail(t.line, what..., " must be finite; got ", Quote(t.text));
    }
    return value;
  }

  long long ReadCount(const std::string& what) {
    const Token t = lexer_.Next();
    long long value;
    if (t.text.empty()) {
      Fail(t.line, "unexpected end of the file; expected ", what);
    }
    if (!ParseInt(t.text, &value) || value < 0 ||
        value > std::numeric_limits<int>::max()) {
      Fail(t.line, what, " must be a non-negative integer; got ",
           Quote(t.text));
    }
    return value;
  }

  Eigen::Vector3d ReadOffset(const std::string& owner) {
    Expect("OFFSET", "in ", owner);
    Eigen::Vector3d offset;
    for (int i = 0; i < 3; ++i) {
      offset[i] = ReadNumber("OFFSET ", "xyz"[i], " of ", owner);
      // A finite but overflow-scale offset (1e308) would turn into inf and
      // NaN inside FK, far from the line that holds it.
      if (std::abs(offset[i]) > internal::kMaxModelMagnitude) {
        Fail(last_number_line_, "OFFSET ", "xyz"[i], " of ", owner,
             " has a magnitude above 1e+09 (got ", offset[i],
             "); check the units and the exponent");
      }
    }
    return offset;
  }

  // "ROOT name" / "JOINT name" (the keyword already read), '{', OFFSET,
  // optional CHANNELS.
  void BeginJoint(BvhFigure* r, int parent, const Token& keyword) {
    const std::string_view name = lexer_.RestOfLine();
    if (name.empty()) {
      Fail(keyword.line, "expected a joint name after ", keyword.text);
    }
    BvhJoint joint;
    joint.name = std::string(name);
    joint.parent = parent;
    joint.line = keyword.line;
    const std::string quoted = Quote(name);
    const std::string owner = "joint " + quoted;
    Expect("{", "after ", keyword.text, " ", quoted);
    joint.offset = ReadOffset(owner);
    joint.first_channel = static_cast<int>(r->channels.size());
    const int index = static_cast<int>(r->joints.size());
    if (lexer_.Peek().text == "CHANNELS") {
      const Token channels = lexer_.Next();
      const long long count = ReadCount("CHANNELS count of " + owner);
      for (long long i = 0; i < count; ++i) {
        const Token t = lexer_.Next();
        BvhChannelType type;
        if (t.text.empty()) {
          Fail(t.line, "CHANNELS of ", owner, " (line ", channels.line,
               ") declares ", count, " channels but the file ends after ", i);
        }
        if (!ParseChannel(t.text, &type)) {
          Fail(t.line, "CHANNELS of ", owner, " (line ", channels.line,
               ") declares ", count, " channels but lists ", i, ": ",
               Quote(t.text),
               " is not a channel name (Xposition, Yposition, Zposition, "
               "Xrotation, Yrotation or Zrotation)");
        }
        for (int c = joint.first_channel;
             c < static_cast<int>(r->channels.size()); ++c) {
          if (r->channels[c].type == type) {
            Fail(t.line, "CHANNELS of ", owner, " lists ", BvhChannelName(type),
                 " twice");
          }
        }
        r->channels.push_back({index, type, -1});
      }
    }
    joint.num_channels =
        static_cast<int>(r->channels.size()) - joint.first_channel;
    r->joints.push_back(std::move(joint));
  }

  void ParseHierarchy(BvhFigure* r) {
    Expect("HIERARCHY", "at the start of a BVH file");
    Token t = lexer_.Next();
    if (t.text != "ROOT") {
      Fail(t.line, "expected 'ROOT' after HIERARCHY, got ",
           t.text.empty() ? std::string("the end of the file") : Quote(t.text));
    }
    // Iterative, so that deeply nested (fuzzed) input cannot overflow the
    // stack: `open` holds the joints whose '}' is still to come.
    std::vector<int> open;
    while (true) {
      BeginJoint(r, open.empty() ? -1 : open.back(), t);
      open.push_back(static_cast<int>(r->joints.size()) - 1);
      while (!open.empty()) {
        const BvhJoint& current = r->joints[open.back()];
        t = lexer_.Next();
        if (t.text == "JOINT") break;
        if (t.text == "}") {
          open.pop_back();
        } else if (t.text == "End") {
          const std::string owner =
              StrCat("the End Site of joint ", Quote(current.name));
          Expect("Site", "after 'End'");
          Expect("{", "after 'End Site'");
          const Eigen::Vector3d offset = ReadOffset(owner);
          Expect("}", "to close ", owner);
          r->joints[open.back()].end_sites.push_back(offset);
        } else if (t.text.empty()) {
          Fail(t.line, "unexpected end of the file: joint ",
               Quote(current.name), " (line ", current.line,
               ") is not closed by '}'");
        } else {
          Fail(t.line, "expected 'JOINT', 'End Site' or '}' in joint ",
               Quote(current.name), " (line ", current.line, "), got ",
               Quote(t.text));
        }
      }
      if (!open.empty()) continue;  // t is a JOINT inside open.back()
      t = lexer_.Next();
      if (t.text == "ROOT") continue;
      if (t.text == "MOTION") break;
      Fail(t.line, "expected 'ROOT' or 'MOTION' after the hierarchy, got ",
           t.text.empty() ? std::string("the end of the file") : Quote(t.text));
    }
  }

  void BuildFigure(BvhFigure* r) {
    std::unordered_map<std::string, int> names;
    for (const BvhJoint& j : r->joints) names.emplace(j.name, 0);
    r->root_link = "world";
    while (names.count(r->root_link)) r->root_link += "_";
    r->figure = Figure(r->root_link);

    // Figure joint name → the channels it carries, in coordinate order.
    std::unordered_map<std::string, std::vector<int>> joint_channels;
    for (int index = 0; index < static_cast<int>(r->joints.size()); ++index) {
      const BvhJoint& b = r->joints[index];
      const std::string parent =
          b.parent < 0 ? r->root_link : r->joints[b.parent].name;
      Joint joint;
      joint.name = b.name;
      joint.parent = parent;
      joint.child = b.name;
      joint.X_PJ = Eigen::Translation3d(b.offset);
      // Position channels first (they translate in the parent frame), then
      // rotations, each group in file order.
      std::vector<BvhChannelType> positions, rotations;
      std::vector<int> position_ids, rotation_ids;
      for (int c = b.first_channel; c < b.first_channel + b.num_channels; ++c) {
        const BvhChannelType type = r->channels[c].type;
        (IsRotation(type) ? rotations : positions).push_back(type);
        (IsRotation(type) ? rotation_ids : position_ids).push_back(c);
      }
      std::vector<BvhChannelType> types = positions;
      types.insert(types.end(), rotations.begin(), rotations.end());
      std::vector<int> channel_ids = position_ids;
      channel_ids.insert(channel_ids.end(), rotation_ids.begin(),
                         rotation_ids.end());
      const std::vector<BvhChannelType> kFloatingOrder = {
          BvhChannelType::kXposition, BvhChannelType::kYposition,
          BvhChannelType::kZposition, BvhChannelType::kZrotation,
          BvhChannelType::kYrotation, BvhChannelType::kXrotation};

      std::vector<Joint> steps;
      if (types.empty()) {
        joint.kind = JointKind::kFixed;
        steps.push_back(joint);
      } else if (types == kFloatingOrder) {
        joint.kind = JointKind::kFloating;
        steps.push_back(joint);
      } else if (positions.empty() && rotations.size() == 3) {
        joint.kind = JointKind::kSpherical;
        for (int i = 0; i < 3; ++i) {
          joint.spherical_axes[i] = ChannelAxis(rotations[i]);
        }
        steps.push_back(joint);
      } else if (types.size() == 1) {
        joint.kind =
            IsRotation(types[0]) ? JointKind::kRevolute : JointKind::kPrismatic;
        joint.axis = ChannelAxis(types[0]);
        steps.push_back(joint);
      } else {
        // One elementary joint per channel, through intermediate links.
        std::string link = parent;
        for (std::size_t i = 0; i < types.size(); ++i) {
          Joint step;
          step.name = b.name + "." + BvhChannelName(types[i]);
          step.parent = link;
          step.child = i + 1 == types.size() ? b.name : step.name;
          step.kind = IsRotation(types[i]) ? JointKind::kRevolute
                                           : JointKind::kPrismatic;
          step.axis = ChannelAxis(types[i]);
          if (i == 0) step.X_PJ = joint.X_PJ;
          link = step.child;
          steps.push_back(step);
        }
      }
      for (std::size_t i = 0; i < steps.size(); ++i) {
        WithLine(b.line, [&] { r->figure.AddJoint(steps[i]); });
        if (steps.size() == 1) {
          joint_channels[steps[i].name] = channel_ids;
        } else {
          joint_channels[steps[i].name] = {channel_ids[i]};
        }
      }
    }

    // Sites: every joint, every End Site.
    for (const BvhJoint& b : r->joints) {
      WithLine(b.line, [&] {
        r->figure.AddSite({b.name, b.name, Eigen::Isometry3d::Identity()});
      });
      for (std::size_t e = 0; e < b.end_sites.size(); ++e) {
        const std::string name =
            b.name + "_End" + (e == 0 ? std::string() : std::to_string(e + 1));
        Eigen::Isometry3d X_LS = Eigen::Isometry3d::Identity();
        X_LS.translation() = b.end_sites[e];
        WithLine(b.line, [&] { r->figure.AddSite({name, b.name, X_LS}); });
      }
    }

    // Channel → coordinate, read off the compiled model (depth-first order).
    Model model = [&] {
      try {
        return r->figure.Compile();
      } catch (const std::invalid_argument& e) {
        throw std::invalid_argument(source_ + ": " + e.what());
      }
    }();
    std::unordered_map<std::string, std::size_t> used;
    for (int i = 0; i < model.nq(); ++i) {
      const std::string& joint = model.dof_joint(i);
      const std::vector<int>& ids = joint_channels.at(joint);
      r->channels[ids.at(used[joint]++)].q_index = i;
    }
    if (model.nq() != static_cast<int>(r->channels.size())) {
      throw std::logic_error("BVH loader: coordinate count != channel count");
    }
  }

  void ParseMotion(BvhFigure* r) {
    Expect("Frames:", "after MOTION");
    const Token frames_token = lexer_.Peek();
    const long long frames = ReadCount("the frame count");
    Expect("Frame", "after the frame count");
    Expect("Time:", "after 'Frame'");
    r->frame_time = ReadNumber("the frame time");
    std::string_view text;
    int line = 0;
    if (r->frame_time <= 0) {
      Fail(lexer_.line(), "the frame time must be positive; got ",
           r->frame_time);
    }
    if (lexer_.ReadLine(&text, &line) && !IsBlank(text)) {
      Fail(line, "unexpected ", Quote(Trim(text)), " after the frame time");
    }

    const int num_channels = static_cast<int>(r->channels.size());
    std::vector<double> values;
    long long read = 0;
    while (lexer_.ReadLine(&text, &line)) {
      if (IsBlank(text)) continue;
      if (read == frames || num_channels == 0) {
        Fail(line, "more frame lines than the ", frames,
             " declared by 'Frames:' (line ", frames_token.line, ")");
      }
      int count = 0;
      std::size_t pos = 0;
      while (true) {
        while (pos < text.size() && (text[pos] == ' ' || text[pos] == '\t')) {
          ++pos;
        }
        if (pos >= text.size()) break;
        const std::size_t start = pos;
        while (pos < text.size() && text[pos] != ' ' && text[pos] != '\t') {
          ++pos;
        }
        const std::string_view word = text.substr(start, pos - start);
        if (count == num_channels) {
          Fail(line, "frame ", read + 1, " has more than the ", num_channels,
               " values the hierarchy declares");
        }
        double value;
        if (!ParseDouble(word, &value)) {
          Fail(line, Quote(word), " is not a number (frame ", read + 1,
               ", value ", count + 1, ")");
        }
        if (!std::isfinite(value)) {
          Fail(line, "frame ", read + 1, ", value ", count + 1,
               " must be finite; got ", Quote(word));
        }
        values.push_back(value);
        ++count;
      }
      if (count != num_channels) {
        Fail(line, "frame ", read + 1, " has ", count,
             " values; the hierarchy"
             " declares ",
             num_channels, " channels");
      }
      ++read;
    }
    if (num_channels > 0 && read < frames) {
      Fail(lexer_.line(), "the file ends after ", read, " of the ", frames,
           " frames declared by 'Frames:' (line ", frames_token.line,
           "); is it truncated?");
    }

    r->poses.resize(frames, num_channels);
    // (With no channels there are no values, whatever 'Frames:' says.)
    for (long long f = 0; num_channels > 0 && f < frames; ++f) {
      for (int c = 0; c < num_channels; ++c) {
        const double v = values[f * num_channels + c];
        r->poses(f, r->channels[c].q_index) =
            IsRotation(r->channels[c].type) ? v * kDegreesToRadians : v;
      }
    }
  }

  static bool IsBlank(std::string_view text) {
    for (char c : text) {
      if (c != ' ' && c != '\t' && c != '\f' && c != '\v') return false;
    }
    return true;
  }

  static std::string_view Trim(std::string_view text) {
    while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) {
      text.remove_prefix(1);
    }
    return text;
  }

  Lexer lexer_;
  std::string source_;
  int last_number_line_ = 0;  // the line of the last ReadNumber token
};

}  // namespace

BvhFigure LoadBvhFromString(const std::string& text,
                            const std::string& source_name) {
  return Parser(text, source_name).Parse();
}

BvhFigure LoadBvh(const std::string& path) {
  return LoadBvhFromString(ReadFile(path, "a BVH file"), path);
}

}  // namespace iklab
