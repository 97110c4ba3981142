#include <cmath>
#include <fstream>
#include <map>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "framework/internal/read_file.h"
#include "lab/scene.h"

// ValidateScene and ReadScene (lab/scene.h): the checks a reader of
// docs/scene-format.md makes, with the place of each fault named.

namespace iklab {

namespace {

using nlohmann::json;

[[noreturn]] void Fail(const std::string& source, const std::string& where,
                       const std::string& what) {
  throw std::invalid_argument(source + ": " + where + (where.empty() ? "" : ": ") +
                              what);
}

bool IsNumbers(const json& value, std::size_t size_or_multiple,
               bool multiple) {
  if (!value.is_array()) return false;
  for (const json& v : value) {
    if (!v.is_number() || !std::isfinite(v.get<double>())) return false;
  }
  if (multiple) {
    return size_or_multiple == 0 || value.size() % size_or_multiple == 0;
  }
  return value.size() == size_or_multiple;
}

void Require(const json& object, const char* key, const std::string& source,
             const std::string& where) {
  if (!object.contains(key)) Fail(source, where, std::string("no \"") + key + "\"");
}

void RequireNumbers(const json& layer, const char* key, std::size_t size,
                    bool multiple, const std::string& source,
                    const std::string& where) {
  Require(layer, key, source, where);
  if (!IsNumbers(layer[key], size, multiple)) {
    Fail(source, where,
         std::string("\"") + key + "\" must be " +
             (multiple ? "a list of finite numbers, a multiple of " +
                             std::to_string(size) + " long"
                       : std::to_string(size) + " finite numbers"));
  }
}

void RequireNumber(const json& layer, const char* key, const std::string& source,
                   const std::string& where) {
  Require(layer, key, source, where);
  if (!layer[key].is_number() || !std::isfinite(layer[key].get<double>())) {
    Fail(source, where, std::string("\"") + key + "\" must be a finite number");
  }
}

// Static flat list, or one list per frame when "animated".
void RequireMaybeAnimated(const json& layer, const char* key, std::size_t stride,
                          int frames, const std::string& source,
                          const std::string& where) {
  if (layer.value("animated", false)) {
    Require(layer, key, source, where);
    const json& list = layer[key];
    if (!list.is_array() || static_cast<int>(list.size()) != frames) {
      Fail(source, where,
           std::string("animated \"") + key + "\" must have one list per frame (" +
               std::to_string(frames) + ")");
    }
    for (const json& frame : list) {
      if (!IsNumbers(frame, stride, true)) {
        Fail(source, where, std::string("\"") + key +
                                "\" per frame must be finite numbers, a multiple of " +
                                std::to_string(stride) + " long");
      }
    }
  } else {
    RequireNumbers(layer, key, stride, true, source, where);
  }
}

void ValidateLayer(const json& layer, const json& figures, int frames,
                   const std::string& source, const std::string& where) {
  if (!layer.is_object()) Fail(source, where, "a layer must be an object");
  for (const char* key : {"type", "label", "color"}) {
    Require(layer, key, source, where);
    if (!layer[key].is_string()) {
      Fail(source, where, std::string("\"") + key + "\" must be a string");
    }
  }
  const std::string type = layer["type"];
  if (type == "figure") {
    Require(layer, "figure", source, where);
    if (!layer["figure"].is_number_integer() || layer["figure"].get<int>() < 0 ||
        layer["figure"].get<int>() >= static_cast<int>(figures.size())) {
      Fail(source, where, "\"figure\" must index \"figures\"");
    }
    const json& figure = figures[layer["figure"].get<int>()];
    const std::size_t numbers =
        7 * figure["steps"].size() + 3 * figure["sites"].size();
    Require(layer, "poses", source, where);
    const json& poses = layer["poses"];
    if (!poses.is_array() || static_cast<int>(poses.size()) != frames) {
      Fail(source, where,
           "\"poses\" must have one entry per frame (" + std::to_string(frames) +
               ")");
    }
    for (std::size_t k = 0; k < poses.size(); ++k) {
      if (!IsNumbers(poses[k], numbers, false)) {
        Fail(source, where,
             "frame " + std::to_string(k) + " of \"poses\" must be " +
                 std::to_string(numbers) +
                 " finite numbers (7 per step + 3 per site)");
      }
    }
  } else if (type == "points") {
    RequireMaybeAnimated(layer, "points", 3, frames, source, where);
    RequireNumber(layer, "size", source, where);
  } else if (type == "poses") {
    RequireMaybeAnimated(layer, "poses", 7, frames, source, where);
    RequireNumber(layer, "size", source, where);
  } else if (type == "rays") {
    RequireNumbers(layer, "origins", 3, true, source, where);
    RequireNumbers(layer, "directions", 3, true, source, where);
    if (layer["origins"].size() != layer["directions"].size()) {
      Fail(source, where, "\"origins\" and \"directions\" differ in length");
    }
    RequireNumber(layer, "length", source, where);
  } else if (type == "path") {
    RequireNumbers(layer, "points", 3, true, source, where);
    Require(layer, "closed", source, where);
  } else if (type == "plane") {
    RequireNumbers(layer, "point", 3, false, source, where);
    RequireNumbers(layer, "normal", 3, false, source, where);
    RequireNumber(layer, "size", source, where);
  } else if (type == "cone") {
    RequireNumbers(layer, "apex", 3, false, source, where);
    RequireNumbers(layer, "axis", 3, false, source, where);
    RequireNumber(layer, "half_angle", source, where);
    RequireNumber(layer, "length", source, where);
  } else if (type == "box") {
    RequireNumbers(layer, "center", 3, false, source, where);
    RequireNumbers(layer, "half_extents", 3, false, source, where);
    RequireNumbers(layer, "rotation", 4, false, source, where);
  } else if (type == "sphere") {
    RequireNumbers(layer, "center", 3, false, source, where);
    RequireNumber(layer, "radius", source, where);
  } else if (type == "capsule") {
    RequireNumbers(layer, "a", 3, false, source, where);
    RequireNumbers(layer, "b", 3, false, source, where);
    RequireNumber(layer, "radius", source, where);
  } else if (type == "voxels") {
    RequireNumber(layer, "size", source, where);
    RequireNumbers(layer, "centers", 3, true, source, where);
    RequireNumbers(layer, "values", layer["centers"].size() / 3, false, source,
                   where);
    RequireNumbers(layer, "range", 2, false, source, where);
    Require(layer, "value_name", source, where);
  } else {
    Fail(source, where,
         "unknown layer type \"" + type +
             "\" (known: figure, points, poses, rays, path, plane, cone, box, "
             "sphere, capsule, voxels)");
  }
}

void ValidateSceneStructure(const json& scene, const std::string& source) {
  if (!scene.is_object()) Fail(source, "", "a scene must be a JSON object");
  if (!scene.contains("format") || scene["format"] != kSceneFormat) {
    Fail(source, "",
         std::string("not an iklab scene (\"format\" is ") +
             (scene.contains("format") ? scene["format"].dump() : "missing") +
             ", expected \"" + kSceneFormat + "\")");
  }
  if (!scene.contains("version") || scene["version"] != kSceneVersion) {
    Fail(source, "",
         "scene version " +
             (scene.contains("version") ? scene["version"].dump()
                                        : std::string("missing")) +
             " is not known to this reader (it reads version " +
             std::to_string(kSceneVersion) + ")");
  }
  for (const char* key : {"title", "units"}) {
    Require(scene, key, source, "");
    if (!scene[key].is_string()) {
      Fail(source, "", std::string("\"") + key + "\" must be a string");
    }
  }
  RequireNumbers(scene, "up", 3, false, source, "");
  Require(scene, "figures", source, "");
  Require(scene, "views", source, "");
  const json& figures = scene["figures"];
  if (!figures.is_array()) Fail(source, "", "\"figures\" must be a list");
  for (std::size_t f = 0; f < figures.size(); ++f) {
    const std::string where = "figure " + std::to_string(f);
    const json& figure = figures[f];
    if (!figure.is_object()) Fail(source, where, "must be an object");
    for (const char* key : {"name", "steps", "sites"}) {
      Require(figure, key, source, where);
    }
    RequireNumber(figure, "radius", source, where);
    const json& steps = figure["steps"];
    if (!steps.is_array() || steps.empty()) {
      Fail(source, where, "\"steps\" must be a non-empty list");
    }
    for (std::size_t i = 0; i < steps.size(); ++i) {
      const std::string at = where + ", step " + std::to_string(i);
      const json& step = steps[i];
      for (const char* key : {"name", "parent", "kind", "axis", "link"}) {
        Require(step, key, source, at);
      }
      const json& parent = step["parent"];
      if (!parent.is_number_integer() ||
          (i == 0 ? parent.get<int>() != -1
                  : parent.get<int>() < 0 ||
                        parent.get<int>() >= static_cast<int>(i))) {
        Fail(source, at,
             "\"parent\" must be -1 for the root and an earlier step otherwise");
      }
      const json& kind = step["kind"];
      if (kind != "fixed" && kind != "revolute" && kind != "prismatic") {
        Fail(source, at, "\"kind\" must be fixed, revolute or prismatic");
      }
      RequireNumbers(step, "axis", 3, false, source, at);
    }
    const json& sites = figure["sites"];
    if (!sites.is_array()) Fail(source, where, "\"sites\" must be a list");
    for (const json& site : sites) {
      if (!site.contains("name") || !site.contains("step") ||
          !site["step"].is_number_integer() || site["step"].get<int>() < 0 ||
          site["step"].get<int>() >= static_cast<int>(steps.size())) {
        Fail(source, where, "a site needs a name and a step index");
      }
    }
  }
  const json& views = scene["views"];
  if (!views.is_array()) Fail(source, "", "\"views\" must be a list");
  for (std::size_t v = 0; v < views.size(); ++v) {
    std::string where = "view " + std::to_string(v);
    const json& view = views[v];
    if (!view.is_object()) Fail(source, where, "must be an object");
    Require(view, "name", source, where);
    if (view["name"].is_string()) where += " '" + view["name"].get<std::string>() + "'";
    Require(view, "frames", source, where);
    if (!view["frames"].is_number_integer() || view["frames"].get<int>() < 1) {
      Fail(source, where, "\"frames\" must be an integer >= 1");
    }
    RequireNumber(view, "frame_seconds", source, where);
    if (!(view["frame_seconds"].get<double>() > 0.0)) {
      Fail(source, where, "\"frame_seconds\" must be > 0");
    }
    if (view.contains("table")) {
      const json& table = view["table"];
      if (!table.contains("columns") || !table.contains("rows") ||
          !table["columns"].is_array() || !table["rows"].is_array()) {
        Fail(source, where, "\"table\" needs \"columns\" and \"rows\" lists");
      }
      for (const json& row : table["rows"]) {
        if (!row.is_array() || row.size() != table["columns"].size()) {
          Fail(source, where, "every table row needs one cell per column");
        }
      }
    }
    Require(view, "layers", source, where);
    if (!view["layers"].is_array()) Fail(source, where, "\"layers\" must be a list");
    const int frames = view["frames"].get<int>();
    for (std::size_t l = 0; l < view["layers"].size(); ++l) {
      const json& layer = view["layers"][l];
      std::string at = where + ", layer " + std::to_string(l);
      if (layer.is_object() && layer.contains("label") && layer["label"].is_string()) {
        at += " '" + layer["label"].get<std::string>() + "'";
      }
      ValidateLayer(layer, figures, frames, source, at);
    }
  }
}

}  // namespace

void ValidateScene(const json& scene, const std::string& source) {
  try {
    ValidateSceneStructure(scene, source);
  } catch (const json::exception& e) {
    // A value of another type than the format says where no check above
    // looked first (the JSON library's own type error).
    Fail(source, "", std::string("malformed scene (") + e.what() + ")");
  }
}

json ReadScene(const std::filesystem::path& path) {
  const std::string source = path.string();
  const std::string text =
      internal::ReadFile(source, "an iklab scene file (.json)");
  json scene;
  try {
    scene = json::parse(text);
  } catch (const json::exception& e) {
    throw std::invalid_argument(source + ": not JSON (" + e.what() + ")");
  }
  ValidateScene(scene, source);
  return scene;
}

}  // namespace iklab
