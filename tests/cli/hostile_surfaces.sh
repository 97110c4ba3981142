#!/usr/bin/env bash
# The hostile-input suite of the surfaces added after hostile_inputs.sh:
# `iklab reach` (its journal and output), `iklab retarget`, `iklab view`,
# studies (`iklab run STUDY`), and the file readers behind them (URDF, BVH,
# target CSV, reach maps .h5, reach journals, scenes .json). For each case:
#   * the exit code (2 for an error, 3 for a stopped map, 0 for controls),
#   * the message (a fragment naming what to fix),
#   * no signal (exit code >= 128), no abort, no sanitizer report,
#   * a time limit.
# At the end, one line per surface: cases, clean, not clean.
#
# Usage: hostile_surfaces.sh IKLAB_PROGRAM
set -u
IKLAB=${1:?usage: hostile_surfaces.sh IKLAB_PROGRAM}
# Generous: sanitizer builds are several times slower. A hang is minutes.
LIMIT=${IKLAB_CLI_TEST_TIMEOUT:-120}
# shellcheck source=run_case.sh
source "$(dirname "${BASH_SOURCE[0]}")/run_case.sh"

WORK=$(mktemp -d "${TMPDIR:-/tmp}/iklab-surfaces-test.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
cd "$WORK" || exit 1

declare -A cases_of failures_of
surfaces=()
surface=""
in_surface() {  # starts counting the cases of surface $1
  surface=$1
  surfaces+=("$1")
  cases_of[$1]=0
  failures_of[$1]=0
}

# expect CODE FRAGMENT -- ARGS...: runs iklab ARGS, checks exit code CODE and
# that stderr+stdout contains FRAGMENT (fixed string; empty = no check).
expect() {
  cases_of[$surface]=$((cases_of[$surface] + 1))
  run_case "$@"
  if [ -n "$problem" ]; then
    failures_of[$surface]=$((failures_of[$surface] + 1))
    printf 'FAIL [%s] iklab %s\n  %s\n  output: %s\n' "$surface" "$*" \
      "$problem" "$(printf '%s' "$out" | tail -n 5)"
  fi
}

# ---------------------------------------------------------------- fixtures
LONG=$(printf 'n%.0s' $(seq 1 300))  # a name component beyond NAME_MAX (255)
mkdir folder.urdf folder.bvh folder.csv folder.h5 folder.json empty_folder
touch a_file
cat >arm.urdf <<'EOF2'
<?xml version="1.0"?>
<robot name="arm">
  <link name="base"/><link name="l1"/><link name="l2"/><link name="tool"/>
  <joint name="j1" type="revolute"><parent link="base"/><child link="l1"/>
    <origin xyz="0 0 0.3"/><axis xyz="0 0 1"/>
    <limit lower="-2" upper="2" effort="1" velocity="1"/></joint>
  <joint name="j2" type="revolute"><parent link="l1"/><child link="l2"/>
    <origin xyz="0.4 0 0"/><axis xyz="0 1 0"/>
    <limit lower="-2" upper="2" effort="1" velocity="1"/></joint>
  <joint name="tool_joint" type="fixed"><parent link="l2"/><child link="tool"/>
    <origin xyz="0.3 0 0"/></joint>
</robot>
EOF2
clip() {  # $1 = file, $2 = the Chest OFFSET y
  cat >"$1" <<EOF2
HIERARCHY
ROOT Hips
{
  OFFSET 0 0 0
  CHANNELS 6 Xposition Yposition Zposition Zrotation Xrotation Yrotation
  JOINT Chest
  {
    OFFSET 0 ${2:-10} 0
    CHANNELS 3 Zrotation Xrotation Yrotation
    End Site
    {
      OFFSET 0 10 0
    }
  }
}
MOTION
Frames: 2
Frame Time: 0.03
0 0 0 0 0 0 10 0 0
1 0 1 0 0 0 10 0 0
EOF2
}
clip clip.bvh
clip offset_nan.bvh nan
clip offset_huge.bvh 1e308
clip offset_overflow.bvh 1e999
printf 'HIERARCHY\nROOT Hips\n{\n' >truncated.bvh
printf '{"format": "iklab-scene", "version": 1, "title": "t", "units": "m", "up": [0, 0, 1], "figures": [], "views": [{"name": "v", "frames": 1, "frame_seconds": 0.1, "layers": [{"type": "points", "label": "p", "color": "#000", "animated": "yes", "points": [0, 0, 0], "size": 1}]}]}' >scene_animated_string.json
printf '{"format": "iklab-scene", "version": 1, ' >scene_truncated.json
printf '{"format": "iklab-scene", "version": 7}' >scene_future.json
printf '{"format": "something-else"}' >scene_foreign.json
printf '[1, 2, 3]' >scene_array.json
printf 'not hdf5 at all' >text.h5
: >empty.h5

reachq=(reach --robot panda --resolution 0.4 --orientations 2 --no-plots)
# A map and a stopped run's journal, written by iklab itself.
"$IKLAB" "${reachq[@]}" --out made >/dev/null 2>&1
"$IKLAB" "${reachq[@]}" --out stopped --stop-after 30 >/dev/null 2>&1
journal=stopped/reach.h5.partial
if [ ! -f made/reach.h5 ] || [ ! -f "$journal" ]; then
  echo "FAIL: iklab reach did not write the fixtures (made/reach.h5, $journal)"
  exit 1
fi
size=$(stat -c %s made/reach.h5)
damaged() {  # $1 = file, $2 = byte offset: a copy of the map with that byte changed
  cp made/reach.h5 "$1"
  printf '\x5a' | dd of="$1" bs=1 seek="$2" conv=notrunc status=none
}
damaged damaged_header.h5 40
damaged damaged_superblock.h5 520
damaged damaged_middle.h5 $((size / 2))
damaged damaged_end.h5 $((size - 3))
head -c $((size - 100)) made/reach.h5 >truncated.h5
tail -c +513 made/reach.h5 >legacy.h5  # an HDF5 file from its first byte

# Journals: the first record repeated; a byte of the first record changed
# while records follow; the first record torn off the end (a crash: resumes).
journal_copy() { mkdir -p "$1" && cp "$journal" "$1/reach.h5.partial"; }
record_size=$(od -An -tu4 -j28 -N4 "$journal" | tr -d ' ')
journal_copy dup_record
tail -c +29 "$journal" | head -c $((12 + record_size)) >>dup_record/reach.h5.partial
journal_copy damaged_record
printf '\x77' | dd of=damaged_record/reach.h5.partial bs=1 seek=$((28 + 12 + 5)) \
  conv=notrunc status=none
journal_copy torn_record
tail -c +29 "$journal" | head -c 20 >>torn_record/reach.h5.partial
mkdir -p journal_folder/reach.h5.partial
mkdir -p garbage_journal && printf 'garbage' >garbage_journal/reach.h5.partial

# ------------------------------------------------------- the readers
in_surface "readers"
expect 2 "folder.urdf is a folder; expected a URDF file" -- bench --urdf folder.urdf \
  --base base --tip tool --targets 2 --out o
expect 2 "missing.urdf does not exist; expected a URDF file" -- bench --urdf missing.urdf \
  --base base --tip tool --targets 2 --out o
expect 2 "the file name is too long for this system" -- bench --urdf "$LONG.urdf" \
  --base base --tip tool --targets 2 --out o
expect 2 "folder.csv is a folder; expected a target CSV file" -- bench --urdf arm.urdf \
  --base base --tip tool --solvers bounded-lm --out o --targets-csv folder.csv
expect 2 "missing.csv does not exist; expected a target CSV file" -- bench \
  --urdf arm.urdf --base base --tip tool --solvers bounded-lm --out o \
  --targets-csv missing.csv
expect 2 "folder.bvh is a folder; expected a BVH file" -- retarget --bvh folder.bvh --out o
# (A folder given to `view` is searched for scenes; the map and scene
# readers' own folder messages are tested in tests/reach/reach_files_test.cc.)
expect 2 "folder.h5: the folder holds no scene file" -- view folder.h5 --no-open --out v
expect 2 "damaged_header.h5: damaged" -- view damaged_header.h5 --no-open --out v
expect 2 "damaged_superblock.h5: damaged: its map data has checksum" -- \
  view damaged_superblock.h5 --no-open --out v
expect 2 "damaged_middle.h5: damaged" -- view damaged_middle.h5 --no-open --out v
expect 2 "damaged_end.h5: damaged" -- view damaged_end.h5 --no-open --out v
expect 2 "truncated.h5: damaged or truncated" -- view truncated.h5 --no-open --out v
expect 2 "legacy.h5: an HDF5 file without the iklab header" -- view legacy.h5 --no-open --out v
expect 2 "text.h5: not an iklab reachability map" -- view text.h5 --no-open --out v
expect 2 "empty.h5: not an iklab reachability map" -- view empty.h5 --no-open --out v
expect 2 "scene_animated_string.json: malformed scene" -- \
  view scene_animated_string.json --no-open --out v
expect 2 "scene_truncated.json: not JSON" -- view scene_truncated.json --no-open --out v
expect 2 "scene version 7 is not known" -- view scene_future.json --no-open --out v
expect 2 "not an iklab scene" -- view scene_foreign.json --no-open --out v
expect 2 "a scene must be a JSON object" -- view scene_array.json --no-open --out v
expect 2 "offset_nan.bvh:8: OFFSET y of joint 'Chest' must be finite" -- \
  retarget --bvh offset_nan.bvh --out o
expect 2 "offset_huge.bvh:8: OFFSET y of joint 'Chest' has a magnitude above 1e+09" -- \
  retarget --bvh offset_huge.bvh --out o
expect 2 "offset_overflow.bvh:8: '1e999' is not a number" -- \
  retarget --bvh offset_overflow.bvh --out o
expect 2 "truncated.bvh:" -- retarget --bvh truncated.bvh --out o
# Controls: the files iklab wrote are read.
expect 0 "Open file://" -- view made/reach.h5 --no-open --out v
expect 0 "Open file://" -- view clip.bvh --no-open --out v
expect 0 "Open file://" -- view arm.urdf --no-open --out v

# ------------------------------------------------------- iklab reach
in_surface "reach"
expect 2 "is not an iklab reach journal" -- "${reachq[@]}" --out garbage_journal --resume
expect 2 "reach.h5.partial is a folder; expected an iklab reach journal" -- \
  "${reachq[@]}" --out journal_folder --resume
expect 2 "was already given by an earlier record" -- "${reachq[@]}" --out dup_record --resume
expect 2 "record 1 (at byte 28) fails its checksum" -- "${reachq[@]}" \
  --out damaged_record --resume
expect 2 "fingerprint differs" -- "${reachq[@]}" --out dup_record --resume --seed 5
expect 2 "cannot create the folder (File name too long)" -- "${reachq[@]}" --out "$LONG"
expect 2 "exists and is not a folder" -- "${reachq[@]}" --out a_file
expect 2 "folder.urdf is a folder; expected a URDF file" -- reach --urdf folder.urdf \
  --base base --tip tool --out o
expect 2 "--stop-after" -- "${reachq[@]}" --out o --stop-after -3
expect 2 "--rolls" -- "${reachq[@]}" --out o --rolls 361
expect 2 "--iterations" -- "${reachq[@]}" --out o --iterations 0
expect 2 "--limits" -- "${reachq[@]}" --out o --limits medium
expect 2 "--resolution" -- "${reachq[@]}" --out o --resolution 0x1p-3
expect 2 "--seed" -- "${reachq[@]}" --out o --seed -1
# Controls: a torn last record is dropped and the run completes; a stopped
# run exits 3.
expect 0 "Map: torn_record/reach.h5" -- "${reachq[@]}" --out torn_record --resume
expect 3 "rerun with --resume" -- "${reachq[@]}" --out stop2 --stop-after 3

# ------------------------------------------------------- iklab retarget
in_surface "retarget"
expect 2 "--effectors" -- retarget --bvh clip.bvh --effectors , --out o
expect 2 "an empty name in the list" -- retarget --bvh clip.bvh --effectors , --out o
expect 2 "an empty name in the list" -- retarget --bvh clip.bvh --effectors "Chest_End," --out o
expect 2 "an empty name in the list" -- retarget --bvh clip.bvh --effectors "" --out o
expect 2 "effector 'Nose' is not a site" -- retarget --bvh clip.bvh --effectors Nose --out o
expect 2 "missing.bvh does not exist; expected a BVH file" -- retarget --bvh missing.bvh --out o
expect 2 "folder.bvh is a folder; expected a BVH file" -- retarget --bvh clip.bvh \
  --onto folder.bvh --out o
expect 2 "--bvh" -- retarget --out o
expect 2 "--frames" -- retarget --bvh clip.bvh --frames -1 --out o
expect 2 "--solver" -- retarget --bvh clip.bvh --solver nosuch --out o
expect 2 "analytic" -- retarget --bvh clip.bvh --solver analytic-6r --out o
expect 2 "cannot create the folder (File name too long)" -- retarget --bvh clip.bvh --out "$LONG"
expect 2 "cannot create the folder (Not a directory)" -- retarget --bvh clip.bvh --out a_file/sub
# Retarget maps and targets: file and line in every message.
printf 'pair Hips Hips\nfrobnicate Chest\n' >bad_directive.map
printf '# a comment\npair Nose Hips\n' >unknown_source.map
printf 'pair Hips Hips\npair Chest Sternum 1 1\n' >unknown_target.map
printf 'pair Hips Hips -2\n' >bad_weight.map
printf 'pair Hips Hips\nfoot Chest\n' >bad_foot.map
printf '# empty\n' >empty.map
expect 2 "bad_directive.map:2: unknown directive 'frobnicate'" -- \
  retarget --bvh clip.bvh --map bad_directive.map --out o
expect 2 "unknown_source.map:2: source site 'Nose' is not a site of the source skeleton" -- \
  retarget --bvh clip.bvh --map unknown_source.map --out o
expect 2 "unknown_target.map:2: target site 'Sternum' is not a site of the target" -- \
  retarget --bvh clip.bvh --map unknown_target.map --out o
expect 2 "bad_weight.map:1: position weight '-2' is not a finite number >= 0" -- \
  retarget --bvh clip.bvh --map bad_weight.map --out o
expect 2 "bad_foot.map:2: foot 'Chest' is not the source of a pair" -- \
  retarget --bvh clip.bvh --map bad_foot.map --out o
expect 2 "empty.map: the map pairs no sites" -- retarget --bvh clip.bvh --map empty.map --out o
expect 2 "missing.map does not exist" -- retarget --bvh clip.bvh --map missing.map --out o
expect 2 "folder.bvh is a folder; expected a retarget map file" -- \
  retarget --bvh clip.bvh --map folder.bvh --out o
expect 2 "--contacts" -- retarget --bvh clip.bvh --contacts sideways --out o
expect 2 "--contacts hard needs a solver that keeps hard constraints" -- \
  retarget --bvh clip.bvh --contacts hard --out o
for value in nan -1 0; do
  expect 2 "ContactOptions::height_threshold must be a finite number > 0" -- \
    retarget --bvh clip.bvh --contact-height "$value" --out o
done
expect 2 "MotionRetargetOptions::smoothness_weight must be a finite number >= 0" -- \
  retarget --bvh clip.bvh --smoothness-weight -1 --out o
for value in human:-1 human:abc human:0 human:nan; do
  expect 2 "the height must be a number of metres > 0" -- \
    retarget --bvh clip.bvh --onto "$value" --out o
done
expect 2 "built-in map onto the human figure: source site 'Neck' is not a site" -- \
  retarget --bvh clip.bvh --onto human --out o
expect 2 "drop --effectors" -- retarget --bvh clip.bvh --onto human --effectors Chest --out o
# Robot targets (.urdf, .xml): the loader's message, a map required for a
# robot without a built-in one, the map's file and line.
expect 2 "folder.urdf is a folder" -- retarget --bvh clip.bvh --onto folder.urdf --out o
expect 2 "no built-in map onto the robot 'arm'; give one with --map FILE" -- \
  retarget --bvh clip.bvh --onto arm.urdf --out o
expect 2 "unknown_target.map:1: target site 'Hips' is not a site of the target" -- \
  retarget --bvh clip.bvh --onto arm.urdf --map unknown_target.map --out o
expect 2 "drop --effectors" -- retarget --bvh clip.bvh --onto arm.urdf --effectors Chest --out o
# Controls.
expect 0 "Results:" -- retarget --bvh clip.bvh --out o
expect 0 "Results:" -- retarget --bvh clip.bvh --effectors Chest_End --out o
expect 0 "Results:" -- retarget --bvh clip.bvh --contacts hard --solver slsqp --out o

# ------------------------------------------------------- iklab view
in_surface "view"
expect 2 "does not exist" -- view missing.json --no-open
expect 2 "the folder holds no scene file" -- view empty_folder --no-open --out v
expect 2 "not a kind iklab can show" -- view a_file --no-open --out v
expect 2 "File name too long" -- view "$LONG.json" --no-open --out v
expect 2 "view" -- view --no-open
expect 2 "missing.urdf" -- view missing.urdf --no-open --out v
# Control: the page goes under the temporary directory by default.
expect 0 "Open file://" -- view arm.urdf --no-open

# ------------------------------------------------------- studies
in_surface "studies"
# A study that cannot run fails (exit 1) with the reason in the report.
expect 1 "empty_folder/robots/panda.urdf' not found (data folder from --data)" -- \
  run collision-avoidance --quick --out o --data empty_folder
expect 2 "" -- run collision-avoidance --quick --out o --data a_file
expect 2 "--threads" -- run collision-avoidance --quick --out o --threads 0
expect 2 "--seed" -- run goal-solver-matrix --quick --out o --seed abc
expect 2 "exists and is not a folder" -- run goal-solver-matrix --quick --out a_file
expect 2 "File name too long" -- run goal-solver-matrix --quick --out "$LONG"
expect 2 "no experiment named" -- run no-such-study --quick --out o

# ---------------------------------------------------------------- totals
total_cases=0
total_failures=0
printf '%-10s %6s %6s %10s\n' surface cases clean "not clean"
for s in "${surfaces[@]}"; do
  printf '%-10s %6d %6d %10d\n' "$s" "${cases_of[$s]}" \
    $((cases_of[$s] - failures_of[$s])) "${failures_of[$s]}"
  total_cases=$((total_cases + cases_of[$s]))
  total_failures=$((total_failures + failures_of[$s]))
done
echo "hostile surfaces: $total_cases runs, $total_failures failures"
[ "$total_failures" -eq 0 ]
