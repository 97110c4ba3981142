#!/usr/bin/env bash
# Writes the seeds of the reach map, reach journal and scene fuzzers
# (tests/fuzz/seeds/) with the iklab program itself: small maps (a pose map
# and a position-only map), the journals of stopped runs, and scenes of a
# robot, a motion and a map (the JSON the `view` page embeds).
#
# Usage: tests/fuzz/make_seeds.sh IKLAB_PROGRAM
set -euo pipefail
IKLAB=${1:?usage: make_seeds.sh IKLAB_PROGRAM}
HERE=$(cd "$(dirname "$0")" && pwd)
SEEDS=$HERE/seeds
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
mkdir -p "$SEEDS/reach_map" "$SEEDS/reach_journal" "$SEEDS/scene"

reach=(reach --robot panda --resolution 0.5 --no-plots)
"$IKLAB" "${reach[@]}" --orientations 2 --out "$WORK/pose" >/dev/null 2>&1
"$IKLAB" "${reach[@]}" --position-only --flood-fill --out "$WORK/position" >/dev/null 2>&1
cp "$WORK/pose/reach.h5" "$SEEDS/reach_map/panda_pose.h5"
cp "$WORK/position/reach.h5" "$SEEDS/reach_map/panda_position.h5"

"$IKLAB" "${reach[@]}" --orientations 2 --out "$WORK/stopped_pose" --stop-after 6 \
  >/dev/null 2>&1 || [ $? -eq 3 ]
"$IKLAB" "${reach[@]}" --position-only --out "$WORK/stopped_position" --stop-after 6 \
  >/dev/null 2>&1 || [ $? -eq 3 ]
cp "$WORK/stopped_pose/reach.h5.partial" "$SEEDS/reach_journal/panda_pose.partial"
cp "$WORK/stopped_position/reach.h5.partial" "$SEEDS/reach_journal/panda_position.partial"

# The scene JSON of a `view` page: the text between the page's scene tags.
scene_of() {  # $1 = file to view, $2 = seed name
  "$IKLAB" view "$1" --no-open --out "$WORK/view_$2" >/dev/null
  python3 - "$WORK/view_$2/scene.html" "$SEEDS/scene/$2.json" <<'PY'
import json, re, sys
page = open(sys.argv[1], encoding="utf-8").read()
match = re.search(r'<script[^>]*type="application/json"[^>]*>(.*?)</script>', page, re.S)
scene = json.loads(match.group(1).replace("<\\/", "</"))
open(sys.argv[2], "w", encoding="utf-8").write(json.dumps(scene, separators=(",", ":")))
PY
}
scene_of "$HERE/../../data/robots/ur5.urdf" ur5
scene_of "$WORK/pose/reach.h5" reach_map
echo "seeds written to $SEEDS"
