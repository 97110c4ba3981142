#!/usr/bin/env bash
# The hostile-input suite of `--collisions` and the self-collision matrix
# files in `iklab reach` and `iklab bench` (docs/cli.md): unknown
# words, missing and malformed obstacle files, damaged matrix files and a
# matrix for another model. For each case: the exit code (2 for an error, 0
# for the controls), the message (a fragment naming the file, the element
# and what to fix), no signal, no abort, a time limit.
#
# Usage: hostile_collisions.sh IKLAB_PROGRAM
set -u
IKLAB=${1:?usage: hostile_collisions.sh IKLAB_PROGRAM}
LIMIT=${IKLAB_CLI_TEST_TIMEOUT:-120}
# shellcheck source=run_case.sh
source "$(dirname "${BASH_SOURCE[0]}")/run_case.sh"

WORK=$(mktemp -d "${TMPDIR:-/tmp}/iklab-collisions-test.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
cd "$WORK" || exit 1

# ---------------------------------------------------------------- fixtures
# A three-link arm with a capsule (cylinder and end spheres) on each link.
capsule() {  # $1 = z of the centre, $2 = half length
  local lo hi
  lo=$(awk "BEGIN{print $1 - $2}")
  hi=$(awk "BEGIN{print $1 + $2}")
  printf '<collision><origin xyz="0 0 %s"/><geometry><cylinder radius="0.04" length="%s"/></geometry></collision>' \
    "$1" "$(awk "BEGIN{print 2 * $2}")"
  printf '<collision><origin xyz="0 0 %s"/><geometry><sphere radius="0.04"/></geometry></collision>' "$lo"
  printf '<collision><origin xyz="0 0 %s"/><geometry><sphere radius="0.04"/></geometry></collision>' "$hi"
}
cat >arm.urdf <<EOF2
<?xml version="1.0"?>
<robot name="arm">
  <link name="base">$(capsule 0.1 0.1)</link>
  <link name="l1">$(capsule 0.15 0.15)</link>
  <link name="l2">$(capsule 0.15 0.15)</link>
  <link name="l3">$(capsule 0.1 0.1)</link>
  <link name="tool"/>
  <joint name="j1" type="revolute"><parent link="base"/><child link="l1"/>
    <origin xyz="0 0 0.2"/><axis xyz="0 0 1"/>
    <limit lower="-2.5" upper="2.5" effort="1" velocity="1"/></joint>
  <joint name="j2" type="revolute"><parent link="l1"/><child link="l2"/>
    <origin xyz="0 0 0.3"/><axis xyz="0 1 0"/>
    <limit lower="-2.5" upper="2.5" effort="1" velocity="1"/></joint>
  <joint name="j3" type="revolute"><parent link="l2"/><child link="l3"/>
    <origin xyz="0 0 0.3"/><axis xyz="0 1 0"/>
    <limit lower="-2.8" upper="2.8" effort="1" velocity="1"/></joint>
  <joint name="tool_joint" type="fixed"><parent link="l3"/><child link="tool"/>
    <origin xyz="0 0 0.2"/></joint>
</robot>
EOF2
reach=(reach --urdf arm.urdf --base base --tip tool --resolution 0.25
       --orientations 1 --position-only --no-plots --iterations 50)
bench=(bench --urdf arm.urdf --base base --tip tool --targets 3
       --solvers bounded-lm --seeds mid-limits)

# Controls: a matrix written by iklab, then read back by reach and bench.
expect 0 "" -- "${reach[@]}" --out written --collisions self \
  --write-collision-matrix matrix.json
if [ ! -s matrix.json ]; then
  echo "FAIL: iklab reach --write-collision-matrix did not write matrix.json"
  exit 1
fi
expect 0 "" -- "${reach[@]}" --out read --collisions self --collision-matrix matrix.json
expect 0 "" -- "${bench[@]}" --out b --collisions self --collision-matrix matrix.json

# Obstacle files (valid JSON that is wrong, and JSON that is not).
printf '[{"type": "sphere", "radius": 0.1, "position": [2, 0, 0]}]\n' >ok.json
printf '[{"name": "ball", "type": "sphere", "radius": NaN, "position": [1, 0, 0]}]\n' >nan.json
printf '[{"name": "ball", "type": "sphere", "radius": 1e999, "position": [1, 0, 0]}]\n' >overflow.json
printf '[{"name": "ball", "type": "sphere", "radius": -0.1, "position": [1, 0, 0]}]\n' >negative.json
printf '[{"name": "rod", "type": "capsule", "radius": 0.1, "half_length": -1, "position": [1, 0, 0]}]\n' >negative_length.json
printf '[{"type": "sphere", "radius": 0.1, "position": [2, 0, 0]}, {"name": "cone1", "type": "cone", "radius": 0.1, "position": [1, 0, 0]}]\n' >cone.json
printf '[{"name": "ball", "type": "sphere", "radius": "big", "position": [1, 0, 0]}]\n' >text_radius.json
printf '[{"name": "ball", "type": "sphere", "radius": 0.1, "position": [1, 0]}]\n' >short_position.json
printf '[{"name": "ball", "type": "sphere", "radius": 0.1, "position": "origin"}]\n' >text_position.json
printf '[{"name": "ball", "type": "sphere", "radius": 0.1}]\n' >no_position.json
printf '[{"name": "ball", "type": "sphere", "radious": 0.1, "radius": 0.1, "position": [1, 0, 0]}]\n' >typo.json
printf '[{"name": "plate", "type": "box", "half_extents": [0.1, 0, 0.1], "position": [1, 0, 0]}]\n' >flat_box.json
printf '[{"name": "ball", "type": "sphere", "radius": 0.1, "position": [1, 0, 0], "quaternion": [1, 1, 0, 0]}]\n' >quaternion.json
printf '[{"name": "rock", "type": "mesh", "file": "rock.stl", "position": [1, 0, 0]}]\n' >no_mesh.json
printf '[{"name": 7, "type": "sphere", "radius": 0.1, "position": [1, 0, 0]}]\n' >number_name.json
printf '[3]\n' >number_element.json
printf '{"type": "sphere", "radius": 0.1, "position": [1, 0, 0]}\n' >not_list.json
printf '[{"type": "sphere", "radius": 0.1,\n' >truncated.json
: >empty.json
mkdir folder.json

for tool in reach bench; do
  if [ "$tool" = reach ]; then args=("${reach[@]}"); else args=("${bench[@]}"); fi
  # The --collisions words.
  expect 2 "'selfie' is neither 'self' nor an obstacle file (*.json)" -- \
    "${args[@]}" --out o --collisions selfie
  expect 2 "'obstacles.txt' is neither 'self' nor an obstacle file" -- \
    "${args[@]}" --out o --collisions self,obstacles.txt
  expect 2 "'b.json' is neither 'self' nor an obstacle file" -- \
    "${args[@]}" --out o --collisions a.json,b.json
  expect 2 "gone.json does not exist" -- "${args[@]}" --out o --collisions self,gone.json
  expect 2 "folder.json is a folder" -- "${args[@]}" --out o --collisions folder.json
  expect 2 "empty.json: not valid JSON" -- "${args[@]}" --out o --collisions empty.json
  # Obstacle elements: the file, the element and what to fix.
  expect 2 "nan.json: not valid JSON" -- "${args[@]}" --out o --collisions nan.json
  expect 2 "last read: '\"radius\": N'); JSON has no NaN or infinity: every number must be finite" -- \
    "${args[@]}" --out o --collisions nan.json
  expect 2 "overflow.json: not valid JSON ([json.exception.out_of_range.406] number overflow parsing '1e999'); JSON has no NaN or infinity" -- "${args[@]}" --out o --collisions overflow.json
  expect 2 "truncated.json: not valid JSON" -- "${args[@]}" --out o --collisions truncated.json
  expect 2 "negative.json: element 0 ('ball'): \"radius\" must be > 0" -- \
    "${args[@]}" --out o --collisions self,negative.json
  expect 2 "negative_length.json: element 0 ('rod'): \"half_length\" must be >= 0" -- \
    "${args[@]}" --out o --collisions negative_length.json
  expect 2 "cone.json: element 1 ('cone1'): unknown \"type\" 'cone'; expected sphere, capsule, cylinder, box or mesh" -- \
    "${args[@]}" --out o --collisions cone.json
  expect 2 "text_radius.json: element 0 ('ball'): \"radius\" must be a finite number; got \"big\"" -- \
    "${args[@]}" --out o --collisions text_radius.json
  expect 2 "short_position.json: element 0 ('ball'): \"position\" must be 3 finite numbers" -- \
    "${args[@]}" --out o --collisions short_position.json
  expect 2 "text_position.json: element 0 ('ball'): \"position\" must be 3 finite numbers" -- \
    "${args[@]}" --out o --collisions text_position.json
  expect 2 "no_position.json: element 0 ('ball'): no \"position\"" -- \
    "${args[@]}" --out o --collisions no_position.json
  expect 2 "typo.json: element 0 ('ball'): unknown key \"radious\"" -- \
    "${args[@]}" --out o --collisions typo.json
  expect 2 "flat_box.json: element 0 ('plate'): \"half_extents\" must all be > 0" -- \
    "${args[@]}" --out o --collisions flat_box.json
  expect 2 "quaternion.json: element 0 ('ball'): \"quaternion\" (w, x, y, z) must have unit length" -- \
    "${args[@]}" --out o --collisions quaternion.json
  expect 2 "rock.stl does not exist" -- "${args[@]}" --out o --collisions no_mesh.json
  expect 2 "number_name.json: element 0: \"name\" must be text" -- \
    "${args[@]}" --out o --collisions number_name.json
  expect 2 "number_element.json: element 0: must be an object" -- \
    "${args[@]}" --out o --collisions number_element.json
  expect 2 "not_list.json: expected a JSON list of obstacles" -- \
    "${args[@]}" --out o --collisions not_list.json
done

# Self-collision matrix files: damaged, for another model, misused options.
head -c $(($(stat -c %s matrix.json) / 2)) matrix.json >half_matrix.json
sed 's/"l2"/"l9"/' matrix.json >other_model.json
sed 's/"iklab-self-collision-matrix"/"something-else"/' matrix.json >other_format.json
sed '0,/"reason": "[a-z]*"/s//"reason": "sometimes"/' matrix.json >bad_reason.json
sed 's/"samples": [0-9]*/"samples": "many"/' matrix.json >text_samples.json
sed 's/"collisions": [0-9]*/"collisions": -4/' matrix.json >negative_count.json
python3 - <<'EOF2'
import json
m = json.load(open("matrix.json"))
m["pairs"] = m["pairs"][1:]
json.dump(m, open("missing_pair.json", "w"))
EOF2
: >empty_matrix.json
for tool in reach bench; do
  if [ "$tool" = reach ]; then args=("${reach[@]}"); else args=("${bench[@]}"); fi
  expect 2 "half_matrix.json: not valid JSON" -- \
    "${args[@]}" --out o --collisions self --collision-matrix half_matrix.json
  expect 2 "empty_matrix.json: not valid JSON" -- \
    "${args[@]}" --out o --collisions self --collision-matrix empty_matrix.json
  expect 2 "gone_matrix.json does not exist" -- \
    "${args[@]}" --out o --collisions self --collision-matrix gone_matrix.json
  expect 2 "other_model.json: link 'l9' is not a link of the model" -- \
    "${args[@]}" --out o --collisions self --collision-matrix other_model.json
  expect 2 "missing_pair.json: no entry for links" -- \
    "${args[@]}" --out o --collisions self --collision-matrix missing_pair.json
  expect 2 "other_format.json: not a self-collision matrix" -- \
    "${args[@]}" --out o --collisions self --collision-matrix other_format.json
  expect 2 "bad_reason.json: pair 0: " -- \
    "${args[@]}" --out o --collisions self --collision-matrix bad_reason.json
  expect 2 "text_samples.json: \"samples\" must be an integer >= 1" -- \
    "${args[@]}" --out o --collisions self --collision-matrix text_samples.json
  expect 2 "negative_count.json: pair " -- \
    "${args[@]}" --out o --collisions self --collision-matrix negative_count.json
  expect 2 "--collision-matrix" -- "${args[@]}" --out o --collision-matrix matrix.json
  expect 2 "add 'self' to --collisions" -- \
    "${args[@]}" --out o --collisions ok.json --collision-matrix matrix.json
  expect 2 "add 'self' to --collisions" -- \
    "${args[@]}" --out o --collisions ok.json --write-collision-matrix w.json
  expect 2 "folder.json" -- \
    "${args[@]}" --out o --collisions self --write-collision-matrix folder.json
done
# The benchmark's matrix belongs to one robot.
expect 2 "need --collisions self and one robot" -- bench --robots panda,ur5 \
  --targets 2 --out o --collisions self --collision-matrix matrix.json

echo "hostile collisions: $cases runs, $failures failures"
[ "$failures" -eq 0 ]
