#include "framework/urdf_loader.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <mutex>
#include <sstream>
#include <stdexcept>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <utility>

#include <boost/graph/adjacency_list.hpp>
#include <boost/graph/depth_first_search.hpp>
#include <console_bridge/console.h>
#include <tinyxml.h>
#include <urdf_parser/urdf_parser.h>

#include "framework/internal/check.h"
#include "framework/internal/model_magnitude.h"
#include "framework/internal/read_file.h"
#include "framework/internal/urdf_parse.h"

namespace iklab {

namespace {

using internal::ReadFile;
using internal::StrCat;

// Builds messages "source:line: what" (or "source: what" when the line is
// unknown, line <= 0) and throws them.
class Reporter {
 public:
  explicit Reporter(std::string source) : source_(std::move(source)) {}

  template <typename... Args>
  [[noreturn]] void Fail(int line, const Args&... args) const {
    throw std::invalid_argument(Prefix(line) + StrCat(args...));
  }

  std::string Prefix(int line) const {
    return line > 0 ? StrCat(source_, ":", line, ": ") : source_ + ": ";
  }

 private:
  std::string source_;
};

// One top-level <link> or <joint> element: its name and line; for a joint,
// also the links its <parent> and <child> name (empty where absent).
struct Element {
  std::string name;
  int line = 0;
  std::string parent;
  std::string child;
};

// What the TinyXML pre-parse learns: the elements in file order (urdfdom keeps
// them in std::maps, i.e. alphabetically) and their lines, for messages.
struct XmlIndex {
  std::vector<Element> links;
  std::vector<Element> joints;
  std::unordered_map<std::string, int> link_line;
  std::unordered_map<std::string, int> joint_line;
};

// Real URDFs nest a handful of levels; TinyXML parses recursively, so absurd
// nesting (fuzzed input) would overflow the stack before it could report.
constexpr int kMaxXmlDepth = 256;

// A conservative estimate of the element nesting depth of `xml` (skips
// comments, CDATA, declarations, processing instructions and quoted attribute
// values). Returns the line where kMaxXmlDepth is exceeded, or 0.
int FindExcessiveNesting(const std::string& xml) {
  int depth = 0;
  int line = 1;
  const std::size_t n = xml.size();
  auto skip_to = [&](std::size_t from, const char* end) {
    const std::size_t k = xml.find(end, from);
    const std::size_t stop = k == std::string::npos ? n : k;
    for (std::size_t j = from; j < stop; ++j) line += xml[j] == '\n';
    return k == std::string::npos ? n : k + std::char_traits<char>::length(end);
  };
  std::size_t i = 0;
  while (i < n) {
    const char c = xml[i];
    if (c == '\n') ++line;
    if (c != '<') {
      ++i;
      continue;
    }
    if (xml.compare(i, 4, "<!--") == 0) {
      i = skip_to(i + 4, "-->");
    } else if (xml.compare(i, 9, "<![CDATA[") == 0) {
      i = skip_to(i + 9, "]]>");
    } else if (xml.compare(i, 2, "<?") == 0 || xml.compare(i, 2, "<!") == 0) {
      i = skip_to(i + 2, ">");
    } else if (xml.compare(i, 2, "</") == 0) {
      --depth;
      i = skip_to(i + 2, ">");
    } else {
      // A start tag: scan to its '>' outside quotes; "/>" closes it at once.
      ++i;
      char quote = 0;
      bool self_closing = false;
      while (i < n) {
        const char d = xml[i];
        if (d == '\n') ++line;
        if (quote) {
          if (d == quote) quote = 0;
        } else if (d == '"' || d == '\'') {
          quote = d;
        } else if (d == '>') {
          self_closing = xml[i - 1] == '/';
          ++i;
          break;
        }
        ++i;
      }
      if (!self_closing && ++depth > kMaxXmlDepth) return line;
    }
  }
  return 0;
}

// Line of the first byte that breaks UTF-8 (RFC 3629: no overlong forms, no
// surrogates, nothing above U+10FFFF, no NUL), or 0 if the text is valid.
// TinyXML 2.6 trusts a lead byte's length and can read past the end of the
// text on a truncated or invalid sequence (found by the URDF fuzzer), so
// the text is checked before it is parsed.
int FindInvalidUtf8(const std::string& text, unsigned* bad_byte) {
  int line = 1;
  const std::size_t n = text.size();
  for (std::size_t i = 0; i < n;) {
    const auto b = static_cast<unsigned char>(text[i]);
    int length = 0;
    unsigned low = 0x80, high = 0xBF;  // allowed range of the 2nd byte
    if (b == 0) {
      length = 0;
    } else if (b < 0x80) {
      length = 1;
    } else if (b >= 0xC2 && b <= 0xDF) {
      length = 2;
    } else if (b >= 0xE0 && b <= 0xEF) {
      length = 3;
      if (b == 0xE0) low = 0xA0;
      if (b == 0xED) high = 0x9F;
    } else if (b >= 0xF0 && b <= 0xF4) {
      length = 4;
      if (b == 0xF0) low = 0x90;
      if (b == 0xF4) high = 0x8F;
    }
    bool ok = length > 0 && i + length <= n;
    for (int k = 1; ok && k < length; ++k) {
      const auto c = static_cast<unsigned char>(text[i + k]);
      ok = k == 1 ? (c >= low && c <= high) : (c >= 0x80 && c <= 0xBF);
    }
    if (!ok) {
      *bad_byte = b;
      return line;
    }
    if (b == '\n') ++line;
    i += length;
  }
  return 0;
}

// urdfdom builds some error messages from the file's text (a malformed
// number or vector, a material's name) and hands them to console_bridge as
// the printf format, so a '%' there is read as a conversion: "%n" crashed
// the URDF fuzzer. No URDF number has a '%', and names seldom do, so any
// attribute value with one is refused before urdfdom reads it; mesh and
// texture file names (URL-encoded paths may have one) are exempt, as urdfdom
// never prints them.
void RefusePercentSigns(const TiXmlElement& robot, const Reporter& report) {
  // Depth-first over the elements (nesting is bounded, see kMaxXmlDepth).
  const TiXmlElement* e = &robot;
  while (e != nullptr) {
    for (const TiXmlAttribute* a = e->FirstAttribute(); a != nullptr;
         a = a->Next()) {
      if (a->NameTStr() != "filename" &&
          std::string_view(a->Value()).find('%') != std::string_view::npos) {
        report.Fail(e->Row(), "<", e->ValueStr(), "> attribute ",
                    a->NameTStr(), "=\"", a->ValueStr(),
                    "\" contains '%', which urdfdom would read as a printf "
                    "format; remove or replace it (only file names may have "
                    "one)");
      }
    }
    const TiXmlElement* next = e->FirstChildElement();
    while (next == nullptr && e != &robot) {
      next = e->NextSiblingElement();
      if (next == nullptr) e = e->Parent()->ToElement();
    }
    e = next;
  }
}

// The link attribute of a joint's <parent> or <child>, or "" if absent.
std::string LinkOf(const TiXmlElement* element) {
  const char* link = element ? element->Attribute("link") : nullptr;
  return link ? link : "";
}

XmlIndex IndexXml(const std::string& xml, const Reporter& report) {
  unsigned bad_byte = 0;
  if (const int line = FindInvalidUtf8(xml, &bad_byte)) {
    char hex[8];
    std::snprintf(hex, sizeof(hex), "0x%02X", bad_byte);
    report.Fail(line, "not valid UTF-8 text (byte ", hex,
                "); a URDF file is UTF-8 XML");
  }
  if (const int line = FindExcessiveNesting(xml)) {
    report.Fail(line, "malformed XML: elements nested more than ", kMaxXmlDepth,
                " deep");
  }
  TiXmlDocument doc;
  doc.Parse(xml.c_str());
  if (doc.Error()) {
    report.Fail(doc.ErrorRow(), "malformed XML: ", doc.ErrorDesc());
  }
  const TiXmlElement* robot = doc.RootElement();
  if (robot == nullptr) report.Fail(0, "no XML element (expected <robot>)");
  if (robot->ValueStr() != "robot") {
    report.Fail(robot->Row(), "the root element is <", robot->ValueStr(),
                ">; a URDF file must have <robot>");
  }
  RefusePercentSigns(*robot, report);
  XmlIndex index;
  for (const TiXmlElement* e = robot->FirstChildElement(); e != nullptr;
       e = e->NextSiblingElement()) {
    const bool is_link = e->ValueStr() == "link";
    if (!is_link && e->ValueStr() != "joint") continue;
    const char* kind = is_link ? "link" : "joint";
    const char* name = e->Attribute("name");
    if (name == nullptr || *name == '\0') {
      report.Fail(e->Row(), "<", kind, "> without a name");
    }
    auto& lines = is_link ? index.link_line : index.joint_line;
    const auto [it, inserted] = lines.emplace(name, e->Row());
    if (!inserted) {
      report.Fail(e->Row(), "duplicate ", kind, " name '", name,
                  "' (first defined at line ", it->second, ")");
    }
    Element element{name, e->Row(), {}, {}};
    if (!is_link) {
      element.parent = LinkOf(e->FirstChildElement("parent"));
      element.child = LinkOf(e->FirstChildElement("child"));
    }
    (is_link ? index.links : index.joints).push_back(std::move(element));
  }
  return index;
}

// Records the first edge that closes a cycle.
class CycleFinder : public boost::default_dfs_visitor {
 public:
  explicit CycleFinder(int* closing_joint) : closing_joint_(closing_joint) {}
  template <typename Edge, typename Graph>
  void back_edge(Edge e, const Graph& graph) {
    if (*closing_joint_ < 0) *closing_joint_ = graph[e];
  }

 private:
  int* closing_joint_;
};

// urdfdom links each joint's child into its parent's list of children, held
// by shared_ptr, before it checks that the links form a tree: on a cycle of
// joints those links keep each other alive and leak, whether the parse then
// fails or not (found by the URDF fuzzer). So cycles are refused before
// urdfdom sees the file. Joints naming links that do not exist are left to
// urdfdom's own message.
void RefuseJointCycles(const XmlIndex& index, const Reporter& report) {
  using Graph = boost::adjacency_list<boost::vecS, boost::vecS,
                                      boost::directedS, boost::no_property,
                                      int>;  // edge: index into index.joints
  std::unordered_map<std::string, int> vertex_of;
  for (const Element& link : index.links) {
    vertex_of.emplace(link.name, static_cast<int>(vertex_of.size()));
  }
  Graph graph(index.links.size());
  for (std::size_t j = 0; j < index.joints.size(); ++j) {
    const Element& joint = index.joints[j];
    if (!joint.parent.empty() && joint.parent == joint.child) {
      report.Fail(joint.line, "joint '", joint.name,
                  "': parent and child are the same link '", joint.parent,
                  "' (a joint must connect two links)");
    }
    const auto parent = vertex_of.find(joint.parent);
    const auto child = vertex_of.find(joint.child);
    if (parent != vertex_of.end() && child != vertex_of.end()) {
      boost::add_edge(parent->second, child->second, static_cast<int>(j),
                      graph);
    }
  }
  int closing_joint = -1;
  boost::depth_first_search(graph, boost::visitor(CycleFinder(&closing_joint)));
  if (closing_joint >= 0) {
    const Element& joint = index.joints[closing_joint];
    report.Fail(joint.line, "joint '", joint.name, "' (parent '", joint.parent,
                "', child '", joint.child,
                "') closes a cycle of joints; a URDF must be a tree");
  }
}

// Collects console_bridge error messages while urdfdom parses.
class CapturingHandler : public console_bridge::OutputHandler {
 public:
  void log(const std::string& text, console_bridge::LogLevel level,
           const char* /*filename*/, int /*line*/) override {
    if (level >= console_bridge::CONSOLE_BRIDGE_LOG_ERROR) {
      messages.push_back(text);
    }
  }
  std::vector<std::string> messages;
};

// urdfdom reports problems only through console_bridge's process-wide output
// handler, so parses are serialized while our handler is installed.
urdf::ModelInterfaceSharedPtr ParseWithUrdfdom(
    const std::string& xml, std::vector<std::string>* errors) {
  static std::mutex mutex;
  std::lock_guard<std::mutex> lock(mutex);
  CapturingHandler handler;
  console_bridge::useOutputHandler(&handler);
  struct Restore {
    ~Restore() { console_bridge::restorePreviousOutputHandler(); }
  } restore;
  urdf::ModelInterfaceSharedPtr model;
  try {
    model = urdf::parseURDF(xml);
  } catch (const std::exception& e) {
    handler.messages.push_back(e.what());
    model.reset();
  }
  *errors = std::move(handler.messages);
  return model;
}

// urdfdom names elements in brackets ("Joint [elbow] ..."); the first bracketed
// name that is a joint or link of the file gives the line for the message.
int LineOfNamedElement(const std::string& message, const XmlIndex& index) {
  std::size_t open = message.find('[');
  while (open != std::string::npos) {
    const std::size_t close = message.find(']', open + 1);
    if (close == std::string::npos) break;
    const std::string name = message.substr(open + 1, close - open - 1);
    if (auto it = index.joint_line.find(name); it != index.joint_line.end()) {
      return it->second;
    }
    if (auto it = index.link_line.find(name); it != index.link_line.end()) {
      return it->second;
    }
    open = message.find('[', close + 1);
  }
  return 0;
}

// Which soft-limit attributes each joint's <safety_controller> actually
// writes (urdfdom reads absent ones as 0, so its values cannot tell).
struct SoftLimitAttributes {
  bool lower = false;
  bool upper = false;
};
std::unordered_map<std::string, SoftLimitAttributes> FindSoftLimitAttributes(
    const std::string& xml) {
  std::unordered_map<std::string, SoftLimitAttributes> found;
  TiXmlDocument doc;
  doc.Parse(xml.c_str());  // well-formed: IndexXml checked it
  const TiXmlElement* robot = doc.RootElement();
  if (robot == nullptr) return found;
  for (const TiXmlElement* joint = robot->FirstChildElement("joint");
       joint != nullptr; joint = joint->NextSiblingElement("joint")) {
    const TiXmlElement* safety = joint->FirstChildElement("safety_controller");
    const char* name = joint->Attribute("name");
    if (safety == nullptr || name == nullptr) continue;
    const SoftLimitAttributes a{
        safety->Attribute("soft_lower_limit") != nullptr,
        safety->Attribute("soft_upper_limit") != nullptr};
    if (a.lower || a.upper) found[name] = a;
  }
  return found;
}

// Narrows a bounded joint's limits to the soft limits the file writes
// (MoveIt's and TRAC-IK's max(lower, soft_lower), min(upper, soft_upper)).
// Returns whether a limit changed.
bool NarrowToSoftLimits(const urdf::Joint& in, const SoftLimitAttributes& a,
                        int line, const Reporter& report, Joint* out) {
  if (!in.safety ||
      (in.type != urdf::Joint::REVOLUTE && in.type != urdf::Joint::PRISMATIC)) {
    return false;
  }
  const double soft_lower = in.safety->soft_lower_limit;
  const double soft_upper = in.safety->soft_upper_limit;
  if ((a.lower && !std::isfinite(soft_lower)) ||
      (a.upper && !std::isfinite(soft_upper))) {
    report.Fail(line, "joint '", in.name,
                "': <safety_controller> soft limits must be finite numbers");
  }
  const double lower =
      a.lower ? std::max(out->lower[0], soft_lower) : out->lower[0];
  const double upper =
      a.upper ? std::min(out->upper[0], soft_upper) : out->upper[0];
  if (lower > upper) {
    report.Fail(line, "joint '", in.name,
                "': the <safety_controller> soft "
                "limits leave no range inside <limit> (lower ",
                lower, " > upper ", upper,
                "); fix the file or load with "
                "UrdfSoftLimits::kIgnore");
  }
  const bool changed = lower != out->lower[0] || upper != out->upper[0];
  out->WithLimits(lower, upper);
  return changed;
}

// Largest magnitude accepted for lengths, limits and axis components
// (framework/internal/model_magnitude.h).
constexpr double kMaxMagnitude = internal::kMaxModelMagnitude;

// "%g" form of a number for messages (0.1, not 0.10000000000000001).
std::string ShortNumber(double v) {
  char buffer[32];
  std::snprintf(buffer, sizeof(buffer), "%g", v);
  return buffer;
}

void CheckMagnitude(const Reporter& report, int line, const std::string& owner,
                    const char* what, const Eigen::Ref<const Eigen::VectorXd>& v) {
  for (Eigen::Index i = 0; i < v.size(); ++i) {
    if (std::isfinite(v[i]) && std::abs(v[i]) > kMaxMagnitude) {
      report.Fail(line, owner, what, " has a value of magnitude above ",
                  ShortNumber(kMaxMagnitude), " (got ", internal::FormatVector(v),
                  "); check the units and the exponent");
    }
  }
}

// Converts one URDF joint (see the table in urdf_loader.h).
Joint ToJoint(const urdf::Joint& in, int line, const Reporter& report) {
  Joint out;
  out.name = in.name;
  out.parent = in.parent_link_name;
  out.child = in.child_link_name;
  const std::string owner = "joint '" + in.name + "': ";

  const urdf::Pose& origin = in.parent_to_joint_origin_transform;
  const Eigen::Vector3d xyz(origin.position.x, origin.position.y,
                            origin.position.z);
  const Eigen::Vector4d quaternion(origin.rotation.w, origin.rotation.x,
                                   origin.rotation.y, origin.rotation.z);
  if (!xyz.allFinite() || !quaternion.allFinite() ||
      quaternion.norm() < 1e-12) {
    report.Fail(line, owner, "<origin> is not a finite pose (xyz ",
                internal::FormatVector(xyz), ")");
  }
  CheckMagnitude(report, line, owner, "<origin xyz>", xyz);
  out.X_PJ = Eigen::Translation3d(xyz) *
             Eigen::Quaterniond(quaternion[0], quaternion[1], quaternion[2],
                                quaternion[3])
                 .normalized();

  auto read_axis = [&]() {
    const Eigen::Vector3d axis(in.axis.x, in.axis.y, in.axis.z);
    CheckMagnitude(report, line, owner, "<axis>", axis);
    const double norm = axis.norm();
    if (!axis.allFinite() || norm < 1e-12) {
      report.Fail(line, owner, "<axis> must be a finite non-zero vector; got ",
                  internal::FormatVector(axis));
    }
    out.axis = axis / norm;
  };
  auto read_limits = [&]() {
    if (!in.limits) report.Fail(line, owner, "missing <limit>");
    const double lower = in.limits->lower;
    const double upper = in.limits->upper;
    if (std::isnan(lower) || std::isnan(upper) || lower > upper) {
      report.Fail(line, owner, "<limit> must have lower <= upper; got lower ",
                  lower, ", upper ", upper);
    }
    CheckMagnitude(report, line, owner, "<limit lower/upper>",
                   Eigen::Vector2d(lower, upper));
    out.WithLimits(lower, upper);
  };

  switch (in.type) {
    case urdf::Joint::REVOLUTE:
      out.kind = JointKind::kRevolute;
      read_axis();
      read_limits();
      break;
    case urdf::Joint::CONTINUOUS:
      out.kind = JointKind::kRevolute;
      read_axis();
      out.WithLimits(-kInfinity, kInfinity);
      break;
    case urdf::Joint::PRISMATIC:
      out.kind = JointKind::kPrismatic;
      read_axis();
      read_limits();
      break;
    case urdf::Joint::FIXED:
      out.kind = JointKind::kFixed;
      break;
    case urdf::Joint::FLOATING:
      out.kind = JointKind::kFloating;
      out.WithLimits(-kInfinity, kInfinity);
      break;
    case urdf::Joint::PLANAR:
      report.Fail(line, owner,
                  "planar joints are not supported (use a floating joint, or "
                  "prismatic + revolute joints)");
    default:
      report.Fail(line, owner, "unknown joint type");
  }
  return out;
}

// Runs a Figure call, prefixing its std::invalid_argument with source:line.
template <typename F>
void WithLine(const Reporter& report, int line, F&& f) {
  try {
    f();
  } catch (const std::invalid_argument& e) {
    throw std::invalid_argument(report.Prefix(line) + e.what());
  }
}

// Parses with urdfdom; a failure is reported with urdfdom's messages and the
// line of the first element they name.
urdf::ModelInterfaceSharedPtr ParseOrFail(const std::string& xml,
                                          const XmlIndex& index,
                                          const Reporter& report) {
  std::vector<std::string> errors;
  const urdf::ModelInterfaceSharedPtr model = ParseWithUrdfdom(xml, &errors);
  if (!model) {
    std::string what = "urdfdom could not parse the model";
    int line = 0;
    for (std::size_t i = 0; i < errors.size(); ++i) {
      what += (i == 0 ? ": " : "; ") + errors[i];
      if (line == 0) line = LineOfNamedElement(errors[i], index);
    }
    report.Fail(line, what);
  }
  if (!model->getRoot()) report.Fail(0, "the URDF has no root link");
  return model;
}

// Every joint of the file, in file order, converted and checked.
struct FileJoints {
  std::vector<Joint> joints;
  std::vector<int> lines;
  std::unordered_map<std::string, int> parent_joint_of;  // child link → joint
  std::vector<std::string> soft_limited;  // joints of the file, file order
};

FileJoints ReadJoints(const std::string& xml, const XmlIndex& index,
                      const urdf::ModelInterface& model,
                      const UrdfOptions& options, const Reporter& report) {
  FileJoints out;
  std::vector<Joint>& joints = out.joints;
  std::vector<int>& joint_lines = out.lines;
  const auto soft_attributes =
      options.soft_limits == UrdfSoftLimits::kNarrow
          ? FindSoftLimitAttributes(xml)
          : std::unordered_map<std::string, SoftLimitAttributes>();
  for (const Element& e : index.joints) {
    const auto it = model.joints_.find(e.name);
    if (it == model.joints_.end() || !it->second) {
      report.Fail(e.line, "joint '", e.name, "' was not read by urdfdom");
    }
    joints.push_back(ToJoint(*it->second, e.line, report));
    joint_lines.push_back(e.line);
    if (const auto soft = soft_attributes.find(e.name);
        soft != soft_attributes.end() &&
        NarrowToSoftLimits(*it->second, soft->second, e.line, report,
                           &joints.back())) {
      out.soft_limited.push_back(e.name);
    }
    const auto [prev, inserted] = out.parent_joint_of.emplace(
        joints.back().child, static_cast<int>(joints.size()) - 1);
    if (!inserted) {
      report.Fail(e.line, "link '", joints.back().child,
                  "' has two parent joints, '", joints[prev->second].name,
                  "' (line ", joint_lines[prev->second], ") and '", e.name,
                  "'; a URDF must be a tree");
    }
  }
  return out;
}

// The links and joints the loaded figure keeps.
struct FigureContents {
  std::vector<std::string> links;
  std::unordered_set<std::string> joints;
};

// Chain mode: replaces the figure by the chain base_link → tip_link and lists
// the joints left out.
FigureContents SelectChain(const XmlIndex& index, const FileJoints& file,
                           const std::string& root_name,
                           const UrdfOptions& options, const Reporter& report,
                           UrdfFigure* result) {
  const std::vector<Joint>& joints = file.joints;
  FigureContents kept;
  for (const std::string* name : {&options.base_link, &options.tip_link}) {
    if (!index.link_line.count(*name)) {
      report.Fail(0, "unknown link '", *name, "' (chain ", options.base_link,
                  " -> ", options.tip_link, ")");
    }
  }
  // Walk up from the tip; the tree check above guarantees termination.
  std::vector<int> path;  // joint indices, tip first
  std::string link = options.tip_link;
  while (link != options.base_link) {
    const auto it = file.parent_joint_of.find(link);
    if (it == file.parent_joint_of.end()) {
      report.Fail(0, "tip link '", options.tip_link,
                  "' is not below base link '", options.base_link,
                  "': the path from the tip up to the root '", root_name,
                  "' does not pass through it");
    }
    path.push_back(it->second);
    link = joints[it->second].parent;
  }
  result->figure = Figure(options.base_link);
  kept.links.push_back(options.base_link);
  for (auto it = path.rbegin(); it != path.rend(); ++it) {
    WithLine(report, file.lines[*it],
             [&] { result->figure.AddJoint(joints[*it]); });
    kept.links.push_back(joints[*it].child);
    kept.joints.insert(joints[*it].name);
  }
  for (const Joint& j : joints) {
    if (!kept.joints.count(j.name)) {
      result->dropped_joints.push_back(j.name);
    }
  }
  return kept;
}

// The mimic joints of the figure, checked against options.mimic.
void AddMimics(const XmlIndex& index, const urdf::ModelInterface& model,
               const FileJoints& file, const FigureContents& kept,
               const UrdfOptions& options, const Reporter& report,
               UrdfFigure* result) {
  const std::vector<Joint>& joints = file.joints;
  for (std::size_t i = 0; i < joints.size(); ++i) {
    if (!kept.joints.count(joints[i].name)) continue;
    const urdf::Joint& in = *model.joints_.at(joints[i].name);
    if (!in.mimic) continue;
    const std::string& leader = in.mimic->joint_name;
    if (!index.joint_line.count(leader)) {
      report.Fail(file.lines[i], "joint '", in.name,
                  "' mimics unknown joint '", leader, "'");
    }
    if (options.mimic == UrdfMimicPolicy::kReject) {
      report.Fail(file.lines[i], "joint '", in.name, "' mimics joint '",
                  leader, "' (q = ", ShortNumber(in.mimic->multiplier), " q_",
                  leader, " + ", ShortNumber(in.mimic->offset),
                  "); mimic joints are rejected (UrdfMimicPolicy::kReject): "
                  "the relation is not enforced, so choose a chain without "
                  "mimic joints");
    }
    if (!std::isfinite(in.mimic->multiplier) ||
        !std::isfinite(in.mimic->offset)) {
      report.Fail(file.lines[i], "joint '", in.name,
                  "': <mimic> multiplier and offset must be finite");
    }
    if (options.mimic == UrdfMimicPolicy::kEnforce) {
      if (!kept.joints.count(leader)) {
        report.Fail(file.lines[i], "joint '", in.name, "' mimics joint '",
                    leader, "', which is not in the loaded chain ",
                    options.base_link, " -> ", options.tip_link,
                    "; choose a chain that contains '", leader,
                    "' or ends before '", in.name,
                    "' (or load with UrdfMimicPolicy::kIndependent)");
      }
      WithLine(report, file.lines[i], [&] {
        result->figure.AddMimic({in.name, leader, in.mimic->multiplier,
                                 in.mimic->offset});
      });
    }
    result->mimics.push_back(
        {in.name, leader, in.mimic->multiplier, in.mimic->offset});
  }
}

// Sites, named like their links.
void AddSites(const XmlIndex& index, const FigureContents& kept,
              const UrdfOptions& options, const Reporter& report,
              UrdfFigure* result) {
  std::vector<std::string> site_links = options.site_links;
  if (site_links.empty()) site_links = kept.links;
  if (!options.tip_link.empty()) {
    bool has_tip = false;
    for (const std::string& s : site_links) has_tip |= s == options.tip_link;
    if (!has_tip) site_links.push_back(options.tip_link);
  }
  const std::unordered_set<std::string> loaded(kept.links.begin(),
                                               kept.links.end());
  for (const std::string& name : site_links) {
    if (!loaded.count(name)) {
      report.Fail(0, "site link '", name, "' is not a link of the loaded ",
                  options.base_link.empty() ? "figure" : "chain");
    }
    const auto line = index.link_line.find(name);
    WithLine(report, line == index.link_line.end() ? 0 : line->second, [&] {
      result->figure.AddSite({name, name, Eigen::Isometry3d::Identity()});
    });
  }
}

}  // namespace

namespace internal {

urdf::ModelInterfaceSharedPtr ParseUrdfChecked(const std::string& xml,
                                               const std::string& source_name) {
  const Reporter report(source_name);
  const XmlIndex index = IndexXml(xml, report);
  RefuseJointCycles(index, report);
  return ParseOrFail(xml, index, report);
}

}  // namespace internal

UrdfFigure LoadUrdfFromString(const std::string& xml,
                              const std::string& source_name,
                              const UrdfOptions& options) {
  const Reporter report(source_name);
  if (options.base_link.empty() != options.tip_link.empty()) {
    report.Fail(0,
                "chain mode needs both a base link and a tip link; got "
                "base '",
                options.base_link, "' and tip '", options.tip_link, "'");
  }
  const XmlIndex index = IndexXml(xml, report);
  RefuseJointCycles(index, report);
  const urdf::ModelInterfaceSharedPtr model = ParseOrFail(xml, index, report);
  const FileJoints file = ReadJoints(xml, index, *model, options, report);

  // The whole tree is always built, so that a file that is not a tree is
  // rejected in chain mode too.
  UrdfFigure result{Figure(model->getRoot()->name),
                    model->getName(),
                    source_name,
                    {},
                    {},
                    {}};
  for (const Element& e : index.links) {
    if (e.name == model->getRoot()->name) continue;
    WithLine(report, e.line, [&] { result.figure.AddLink(e.name); });
  }
  for (std::size_t i = 0; i < file.joints.size(); ++i) {
    WithLine(report, file.lines[i],
             [&] { result.figure.AddJoint(file.joints[i]); });
  }
  WithLine(report, 0, [&] { result.figure.Validate(); });

  FigureContents kept;  // what the loaded figure keeps
  if (options.base_link.empty()) {
    for (const Element& e : index.links) kept.links.push_back(e.name);
    for (const Joint& j : file.joints) kept.joints.insert(j.name);
  } else {
    kept = SelectChain(index, file, model->getRoot()->name, options, report,
                       &result);
  }

  AddMimics(index, *model, file, kept, options, report, &result);
  for (const std::string& name : file.soft_limited) {
    if (kept.joints.count(name)) {
      result.soft_limited_joints.push_back(name);
    }
  }
  AddSites(index, kept, options, report, &result);
  return result;
}

const char* UrdfSoftLimitsName(UrdfSoftLimits policy) {
  return policy == UrdfSoftLimits::kNarrow ? "soft" : "hard";
}

UrdfFigure LoadUrdf(const std::string& path, const UrdfOptions& options) {
  return LoadUrdfFromString(ReadFile(path, "a URDF file"), path, options);
}

UrdfFigure LoadUrdfChain(const std::string& path, const std::string& base_link,
                         const std::string& tip_link, UrdfOptions options) {
  options.base_link = base_link;
  options.tip_link = tip_link;
  return LoadUrdf(path, options);
}

}  // namespace iklab
