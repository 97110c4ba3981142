#ifndef IKLAB_LAB_INTERNAL_WEB_ASSETS_H_
#define IKLAB_LAB_INTERNAL_WEB_ASSETS_H_

/// @file
/// The files of the HTML report's assets folder (three.js, its orbit
/// controls and glTF exporter, web/viewer.js, web/report.css), compiled into the library by
/// cmake/embed_web_assets.cmake so that a report can be written from the
/// build tree or an installed package without looking for them.

#include <cstddef>
#include <vector>

namespace iklab {
namespace internal {

/// One embedded file.
struct WebAsset {
  /// File name inside the assets folder, e.g. "three.min.js".
  const char* name;
  const unsigned char* data;
  std::size_t size;
};

/// Every embedded asset.
const std::vector<WebAsset>& WebAssets();

}  // namespace internal
}  // namespace iklab

#endif  // IKLAB_LAB_INTERNAL_WEB_ASSETS_H_
