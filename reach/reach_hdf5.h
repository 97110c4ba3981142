#ifndef IKLAB_REACH_REACH_HDF5_H_
#define IKLAB_REACH_REACH_HDF5_H_

/// @file
/// A map as an HDF5 file (the HDF Group's library, Debian libhdf5-dev;
/// readable by h5py, MATLAB, Julia, HDFView). Layout, format_version 2
/// (n_x × n_y × n_z voxels, row-major: index (i · n_y + j) · n_z + k; N
/// orientations per voxel):
///
///   header (the file's first 512 bytes, an HDF5 user block that HDF5
///   readers skip): ASCII lines, then zero bytes
///     iklab reachability map
///     format_version 2
///     hdf5_bytes <the bytes after the header>
///     fnv1a64 <16 hex digits: FNV-1a of those bytes>
///   datasets
///     /state                 uint8   [n_x, n_y, n_z]  1 solved, 2 beyond the
///                                                      reach bound (not
///                                                      solved), 3 skipped by
///                                                      the flood fill
///     /reachable_fraction    float32 [n_x, n_y, n_z]  reached / N
///     /reached               uint16  [n_x, n_y, n_z]  queries reached
///     /manipulability_min    float32 [n_x, n_y, n_z]  Yoshikawa √det(J Jᵀ)
///     /manipulability_mean   float32 [n_x, n_y, n_z]  over the reached
///     /manipulability_max    float32 [n_x, n_y, n_z]  queries; NaN if none
///     /reached_orientations  uint8   [n_x, n_y, n_z, N]  1 if reached
///     /orientations          float64 [N, 4]  target rotations (w, x, y, z)
///                                            of the site (pose maps only)
///     /approach_axes         float64 [A, 3]  the Fibonacci axes (pose maps)
///   attributes of the root group
///     format ("iklab reachability map"), format_version (2), iklab_version,
///     robot, base_link, site, solver, orientation_set (the set in words),
///     grid_origin [3] (centre of voxel (0,0,0), model root frame),
///     grid_resolution, grid_shape [3], reach_centre [3], reach_radius,
///     approach_axes, rolls, orientations_per_voxel, position_only,
///     flood_fill, max_attempts, max_iterations, tolerance, seed,
///     voxels_solved, queries_solved, reachable_voxels.
///
/// Byte-identical for the same map: no modification times are stored
/// (H5Pset_obj_track_times off), datasets are contiguous and written whole,
/// attributes in a fixed order; nothing about the run (ranks, threads, wall
/// time, host) goes into the file. The HDF5 part uses the 1.8 file format
/// (superblock version 2, object headers version 2), whose metadata HDF5
/// itself checksums.
///
/// Reading trusts nothing it has not checked. HDF5's parser is not written
/// for damaged input (a damaged byte in a map's metadata could crash it), so
/// the reader first checks the header and the checksum of every byte after
/// it, and only then lets HDF5 parse the bytes (from memory: what was
/// checked is what is parsed). It then checks the structure: every dataset
/// and attribute present with its type and shape, the settings in range
/// (ReachSettings::IsValid), the orientations those settings give, and every
/// voxel consistent (its state, its count of reached orientations against
/// their flags, its manipulability statistics, the summary counts). Maps of
/// format_version 1 (iklab before the header existed) have no checksum and
/// are refused with a message saying so; computing them again gives the same
/// map (the computation is deterministic).

#include <string>

#include "reach/reach_map.h"

namespace iklab {

/// Writes `map` to `path`: first to a temporary name beside it, renamed to
/// `path` only when complete, so `path` never holds a partial map.
/// @throws std::runtime_error if the file cannot be written.
void WriteReachMapHdf5(const ReachMap& map, const std::string& path);

/// Reads a file written by WriteReachMapHdf5 (datasets and the attributes
/// that define the map's settings and grid), checked as the file comment
/// says.
/// @throws std::runtime_error naming the file and what is wrong if it is a
///   folder, does not exist or cannot be read, is not an iklab reachability
///   map, has another format version, is damaged (its checksum differs) or
///   breaks the layout or the rules above.
ReachMap ReadReachMapHdf5(const std::string& path);

/// The same from the bytes of such a file (`source` names it in messages).
/// @throws std::runtime_error as ReadReachMapHdf5.
ReachMap ReadReachMapHdf5FromBytes(std::string bytes,
                                   const std::string& source);

}  // namespace iklab

#endif  // IKLAB_REACH_REACH_HDF5_H_
