#include "framework/bvh_writer.h"

#include <cerrno>
#include <cmath>
#include <cstring>
#include <fstream>
#include <functional>
#include <sstream>
#include <stdexcept>

#include "framework/internal/check.h"

namespace iklab {

using internal::ThrowInvalidArgument;

namespace {

constexpr double kRadiansToDegrees = 180.0 / M_PI;

bool IsRotation(BvhChannelType type) {
  return type == BvhChannelType::kXrotation ||
         type == BvhChannelType::kYrotation ||
         type == BvhChannelType::kZrotation;
}

void CheckFinite(const Eigen::Vector3d& v, const std::string& what) {
  if (!v.allFinite()) {
    ThrowInvalidArgument("WriteBvh: ", what, " must be finite");
  }
}

// The order BVH text implies (depth-first, children in index order) must be
// the order of `joints` and of `channels`, or the frame values would land on
// the wrong channels when the text is read back.
void CheckLayout(const BvhFigure& bvh) {
  if (bvh.joints.empty()) {
    ThrowInvalidArgument(
        "WriteBvh: bvh.joints is empty; a BVH file needs a "
        "ROOT joint");
  }
  if (!(bvh.frame_time > 0.0) || !std::isfinite(bvh.frame_time)) {
    ThrowInvalidArgument(
        "WriteBvh: bvh.frame_time must be a positive number "
        "of seconds; got ",
        bvh.frame_time);
  }
  int next_channel = 0;
  std::vector<int> order;  // joints in depth-first (text) order
  std::function<void(int)> visit = [&](int j) {
    order.push_back(j);
    for (std::size_t k = j + 1; k < bvh.joints.size(); ++k) {
      if (bvh.joints[k].parent == j) visit(static_cast<int>(k));
    }
  };
  for (std::size_t j = 0; j < bvh.joints.size(); ++j) {
    const BvhJoint& joint = bvh.joints[j];
    if (joint.name.empty() ||
        joint.name.find_first_of("\r\n") != std::string::npos ||
        joint.name.front() == ' ' || joint.name.back() == ' ') {
      ThrowInvalidArgument(
          "WriteBvh: bvh.joints[", j, "] has name '", joint.name,
          "'; a name is one line of text, not empty, without leading "
          "or trailing spaces");
    }
    if (joint.parent >= static_cast<int>(j) || joint.parent < -1) {
      ThrowInvalidArgument("WriteBvh: bvh.joints[", j, "] ('", joint.name,
                           "') has parent ", joint.parent,
                           "; parents must come before their children");
    }
    if (joint.parent < 0) visit(static_cast<int>(j));
  }
  for (std::size_t k = 0; k < order.size(); ++k) {
    if (order[k] != static_cast<int>(k)) {
      ThrowInvalidArgument(
          "WriteBvh: bvh.joints are not in depth-first "
          "order (joint '",
          bvh.joints[k].name, "' would be written at position ", order[k], ")");
    }
    const BvhJoint& joint = bvh.joints[k];
    CheckFinite(joint.offset, "the OFFSET of joint '" + joint.name + "'");
    for (const Eigen::Vector3d& end : joint.end_sites) {
      CheckFinite(end, "the End Site OFFSET of joint '" + joint.name + "'");
    }
    if (joint.num_channels < 0 || joint.first_channel != next_channel) {
      ThrowInvalidArgument(
          "WriteBvh: joint '", joint.name, "' has first_channel ",
          joint.first_channel, " and num_channels ", joint.num_channels,
          "; expected its channels to start at ", next_channel);
    }
    next_channel += joint.num_channels;
  }
  if (next_channel != static_cast<int>(bvh.channels.size())) {
    ThrowInvalidArgument("WriteBvh: the joints declare ", next_channel,
                         " channels but bvh.channels has ",
                         bvh.channels.size());
  }
  for (std::size_t c = 0; c < bvh.channels.size(); ++c) {
    const BvhChannel& channel = bvh.channels[c];
    const BvhJoint& owner = bvh.joints[channel.joint < 0 ? 0 : channel.joint];
    if (channel.joint < 0 ||
        channel.joint >= static_cast<int>(bvh.joints.size()) ||
        static_cast<int>(c) < owner.first_channel ||
        static_cast<int>(c) >= owner.first_channel + owner.num_channels) {
      ThrowInvalidArgument("WriteBvh: bvh.channels[", c, "] names joint ",
                           channel.joint, ", which does not own it");
    }
    if (channel.q_index < 0 || channel.q_index >= bvh.poses.cols()) {
      ThrowInvalidArgument("WriteBvh: bvh.channels[", c, "].q_index is ",
                           channel.q_index, "; bvh.poses has ",
                           bvh.poses.cols(), " columns");
    }
  }
  if (!bvh.poses.allFinite()) {
    ThrowInvalidArgument("WriteBvh: bvh.poses holds a NaN or infinite value");
  }
}

}  // namespace

std::string WriteBvh(const BvhFigure& bvh) {
  CheckLayout(bvh);
  std::ostringstream text;
  text.precision(17);
  std::function<void(int, int)> write = [&](int j, int depth) {
    const BvhJoint& joint = bvh.joints[j];
    const std::string pad(depth, '\t');
    text << pad << (joint.parent < 0 ? "ROOT " : "JOINT ") << joint.name << "\n"
         << pad << "{\n";
    text << pad << "\tOFFSET " << joint.offset.x() << " " << joint.offset.y()
         << " " << joint.offset.z() << "\n";
    text << pad << "\tCHANNELS " << joint.num_channels;
    for (int c = joint.first_channel;
         c < joint.first_channel + joint.num_channels; ++c) {
      text << " " << BvhChannelName(bvh.channels[c].type);
    }
    text << "\n";
    for (std::size_t k = j + 1; k < bvh.joints.size(); ++k) {
      if (bvh.joints[k].parent == j) write(static_cast<int>(k), depth + 1);
    }
    for (const Eigen::Vector3d& end : joint.end_sites) {
      text << pad << "\tEnd Site\n"
           << pad << "\t{\n"
           << pad << "\t\tOFFSET " << end.x() << " " << end.y() << " "
           << end.z() << "\n"
           << pad << "\t}\n";
    }
    text << pad << "}\n";
  };
  text << "HIERARCHY\n";
  for (std::size_t j = 0; j < bvh.joints.size(); ++j) {
    if (bvh.joints[j].parent < 0) write(static_cast<int>(j), 0);
  }
  text << "MOTION\nFrames: " << bvh.poses.rows()
       << "\nFrame Time: " << bvh.frame_time << "\n";
  for (Eigen::Index f = 0; f < bvh.poses.rows(); ++f) {
    for (std::size_t c = 0; c < bvh.channels.size(); ++c) {
      const double v = bvh.poses(f, bvh.channels[c].q_index);
      text << (c ? " " : "")
           << (IsRotation(bvh.channels[c].type) ? v * kRadiansToDegrees : v);
    }
    text << "\n";
  }
  return text.str();
}

void SaveBvh(const BvhFigure& bvh, const std::string& path) {
  const std::string text = WriteBvh(bvh);
  std::ofstream file(path, std::ios::binary);
  file << text;
  file.close();
  if (!file) {
    const int error = errno;  // of the failed open or write
    ThrowInvalidArgument(path, ": cannot write the BVH file (",
                         std::strerror(error),
                         "); check that the folder exists and is writable");
  }
}

}  // namespace iklab
