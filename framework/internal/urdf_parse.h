#ifndef IKLAB_FRAMEWORK_INTERNAL_URDF_PARSE_H_
#define IKLAB_FRAMEWORK_INTERNAL_URDF_PARSE_H_

/// @file
/// The URDF loader's checked urdfdom parse (malformed XML with its line,
/// joint cycles and '%' refused before urdfdom, urdfdom's complaints
/// quoted), for the other readers of a URDF (collision geometry). Not
/// installed: urdfdom types never appear in a public header.

#include <string>

#include <urdf_model/model.h>
#include <urdf_world/types.h>

namespace iklab::internal {

/// urdfdom's model of `xml`.
/// @throws std::invalid_argument as LoadUrdfFromString, the message starting
///   with `source_name`.
urdf::ModelInterfaceSharedPtr ParseUrdfChecked(const std::string& xml,
                                               const std::string& source_name);

}  // namespace iklab::internal

#endif  // IKLAB_FRAMEWORK_INTERNAL_URDF_PARSE_H_
