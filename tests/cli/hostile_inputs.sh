#!/usr/bin/env bash
# Runs the built `iklab` program on bad inputs of every class the command line
# must survive, generated here in a temporary folder, and checks for each:
#   * the exit code (2 for an error, 0 for the controls that must still run),
#   * the message (a fragment naming what to fix),
#   * no abort ("terminate called", a signal: exit code >= 128) and no hang
#     (every run is under a time limit).
# A bad input that exits 0 is a silent wrong answer and fails the test.
#
# Usage: hostile_inputs.sh IKLAB_PROGRAM [SANITIZED]
# SANITIZED (ON/OFF): a sanitizer build, which cannot run under ulimit -v.
set -u
IKLAB=${1:?usage: hostile_inputs.sh IKLAB_PROGRAM [SANITIZED]}
SANITIZED=${2:-OFF}
# Generous: sanitizer builds are several times slower. A hang is minutes.
LIMIT=${IKLAB_CLI_TEST_TIMEOUT:-120}
# shellcheck source=run_case.sh
source "$(dirname "${BASH_SOURCE[0]}")/run_case.sh"

WORK=$(mktemp -d "${TMPDIR:-/tmp}/iklab-cli-test.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
cd "$WORK" || exit 1

# ---------------------------------------------------------------- fixtures
# A 2-joint arm: base -> l1 -> l2 -> tool (fixed), with a mimic finger.
arm_urdf() {  # $1 = file, $2 = extra joint attributes/elements for joint j1
  cat >"$1" <<EOF
<?xml version="1.0"?>
<robot name="arm">
  <link name="base"/>
  <link name="l1"/>
  <link name="l2"/>
  <link name="tool"/>
  <link name="finger"/>
  <joint name="j1" type="revolute">
    <parent link="base"/><child link="l1"/>
    <origin xyz="${ORIGIN:-0 0 0.3}" rpy="0 0 0"/>
    <axis xyz="${AXIS:-0 0 1}"/>
    <limit lower="${LOWER:--2}" upper="${UPPER:-2}" effort="1" velocity="1"/>
  </joint>
  <joint name="j2" type="revolute">
    <parent link="l1"/><child link="l2"/>
    <origin xyz="0.4 0 0" rpy="0 0 0"/>
    <axis xyz="0 1 0"/>
    <limit lower="-2" upper="2" effort="1" velocity="1"/>
  </joint>
  <joint name="tool_joint" type="fixed">
    <parent link="l2"/><child link="tool"/>
    <origin xyz="0.3 0 0" rpy="0 0 0"/>
  </joint>
  <joint name="finger_joint" type="revolute">
    <parent link="tool"/><child link="finger"/>
    <axis xyz="0 0 1"/>
    <limit lower="-1" upper="1" effort="1" velocity="1"/>
    <mimic joint="j2" multiplier="0.5" offset="0.1"/>
  </joint>
</robot>
EOF
}
arm_urdf arm.urdf
ORIGIN="1e308 0 0" arm_urdf origin_overflow.urdf
ORIGIN="0 -1e300 0" arm_urdf origin_overflow2.urdf
AXIS="1e308 1e308 0" arm_urdf axis_overflow.urdf
AXIS="0 0 1e10" arm_urdf axis_large.urdf
LOWER="-1e308" UPPER="1e308" arm_urdf limit_overflow.urdf
LOWER="-1e12" arm_urdf limit_large.urdf
LOWER="2" UPPER="-2" arm_urdf limit_reversed.urdf
ORIGIN="nan 0 0" arm_urdf origin_nan.urdf
AXIS="0 0 0" arm_urdf axis_zero.urdf
# urdfdom would print this value with it as the printf format ("%n" crashed it).
ORIGIN="0%n 0 0.3" arm_urdf origin_percent.urdf
# A joint l2 -> l1 closes the cycle l1 -> l2 -> l1 (urdfdom would leak it).
arm_urdf cycle.urdf
sed -i 's|</robot>|  <joint name="back" type="fixed"><parent link="l2"/><child link="l1"/></joint>\n</robot>|' cycle.urdf
: >empty.urdf
printf 'this is not xml\n' >text.urdf
printf '<robot name="x"><link name="a"/>' >truncated.urdf
printf '<?xml version="1.0"?>\n<robot name="r">\n  <link name="a"/>\n  <link name="b"/>\n  <joint name="p" type="planar">\n    <parent link="a"/><child link="b"/>\n  </joint>\n</robot>\n' >planar.urdf

# A serial chain of N revolute joints (long-chain budget tests).
long_chain() {  # $1 = file, $2 = joints
  awk -v n="$2" 'BEGIN {
    print "<?xml version=\"1.0\"?>"; print "<robot name=\"long\">";
    for (i = 0; i <= n; ++i) printf "  <link name=\"l%d\"/>\n", i;
    for (i = 1; i <= n; ++i) {
      printf "  <joint name=\"j%d\" type=\"revolute\"><parent link=\"l%d\"/>", i, i - 1;
      printf "<child link=\"l%d\"/><origin xyz=\"0.001 0 0\"/><axis xyz=\"0 %d %d\"/>", i, i % 2, 1 - i % 2;
      printf "<limit lower=\"-3\" upper=\"3\" effort=\"1\" velocity=\"1\"/></joint>\n";
    }
    print "</robot>" }' >"$1"
}
long_chain long.urdf 10000

# Target CSVs for arm.urdf base -> tool (nq = 2: 9 columns).
HEADER='seed_j1,seed_j2,x,y,z,qw,qx,qy,qz'
ROW='0.1,0.2,0.5,0,0.3,1,0,0,0'
printf '%s\n%s\n' "$HEADER" "$ROW" >good.csv
printf '%s\n' "$ROW" >good_noheader.csv
: >csv_empty.csv
printf '%s\n' "$HEADER" >csv_header_only.csv
printf '# only a comment\n\n' >csv_comments_only.csv
printf 'nan,0.2,0.5,0,0.3,1,0,0,0\n%s\n' "$ROW" >csv_first_nan.csv
printf 'seed_j1,seed_j2,x,y,z,qw,qx,qy,qzz\n%s\n' "$ROW" >csv_header_typo.csv
printf 'Seed_j1,seed_j2,X,Y,Z,QW,QX,QY,QZ\n%s\n' "$ROW" >csv_header_case.csv
printf '\xff\xfe\x01,0.2,0.5,0,0.3,1,0,0,0\n%s\n' "$ROW" >csv_binary.csv
printf '%s\n0.1x,0.2,0.5,0,0.3,1,0,0,0\n' "$HEADER" >csv_trailing.csv
printf '%s\n0.1,0.2,0.5m,0,0.3,1,0,0,0\n' "$HEADER" >csv_units.csv
printf '%s\n0.1,,0.5,0,0.3,1,0,0,0\n' "$HEADER" >csv_empty_field.csv
printf '%s\n0.1,0.2,0.5,0,0.3,1,0,0\n' "$HEADER" >csv_short.csv
printf '%s\n0.1,0.2,0.5,0,0.3,1,0,0,0,7\n' "$HEADER" >csv_long.csv
printf '%s\n0.1,0.2,inf,0,0.3,1,0,0,0\n' "$HEADER" >csv_inf.csv
printf '%s\n0.1,0.2,1e400,0,0.3,1,0,0,0\n' "$HEADER" >csv_overflow.csv
printf '%s\n0.1,0.2,0.5,0,0.3,2,0,0,0\n' "$HEADER" >csv_quaternion.csv
printf '%s\n0.1,0.2,0.5,0,0.3,0,0,0,0\n' "$HEADER" >csv_quaternion_zero.csv
printf 'a,b,c,x,y,z,qw,qx,qy,qz\n%s\n' "$ROW" >csv_header_columns.csv
printf '%s\n0.1 5,0.2,0.5,0,0.3,1,0,0,0\n' "$HEADER" >csv_space.csv
printf '%s\n0.1;0.2;0.5;0;0.3;1;0;0;0\n' "$HEADER" >csv_semicolon.csv
printf '%s\n%s\n0.1,0.2,0.5,0,0.3,1,0,0,nan\n' "$HEADER" "$ROW" >csv_late_nan.csv
printf '%s\n1e999,0.2,0.5,0,0.3,1,0,0,0\n' "$HEADER" >csv_seed_overflow.csv
# Unreachable target (10 m away from a 0.7 m arm).
printf '%s\n0.1,0.2,10,0,0.3,1,0,0,0\n' "$HEADER" >unreachable.csv
mkdir csv_folder.csv

touch a_file
mkdir readonly_parent

bench=(bench --urdf arm.urdf --base base --tip tool --targets 3)
benchq=("${bench[@]}" --solvers bounded-lm --seeds mid-limits)

# ------------------------------------------------------- output folders
for command in bench run; do
  if [ "$command" = bench ]; then args=("${benchq[@]}"); else
    args=(run parent-fig-5.20 --quick); fi
  expect 2 "--out is empty" -- "${args[@]}" --out ""
  expect 2 "exists and is not a folder" -- "${args[@]}" --out a_file
  expect 2 "cannot create the folder" -- "${args[@]}" --out a_file/sub
  expect 2 "cannot create the folder" -- "${args[@]}" --out /proc/iklab-out
  expect 2 "cannot write into the folder" -- "${args[@]}" --out /proc/self
  expect 2 "exists and is not a folder" -- "${args[@]}" --out /dev/null
done

# ------------------------------------------------------- options
for value in nan NaN inf -inf infinity -1 0 1e400 5x "" 1e5 0x; do
  expect 2 "--budget-ms" -- "${benchq[@]}" --out o --budget-ms "$value"
done
expect 2 "(0, 10000]" -- "${benchq[@]}" --out o --budget-ms nan
for value in nan inf 0 -1e-5 2 abc ""; do
  expect 2 "--tolerance" -- "${benchq[@]}" --out o --tolerance "$value"
done
for value in -1 18446744073709551616 99999999999999999999999 1.5 abc "" 0x10; do
  expect 2 "--seed" -- "${benchq[@]}" --out o --seed "$value"
  expect 2 "--seed" -- run parent-fig-5.20 --quick --out o --seed "$value"
done
expect 2 "18446744073709551615" -- "${benchq[@]}" --out o --seed 18446744073709551616
for value in 0 -5 1e3 2147483648 abc 1.5 100000001; do
  expect 2 "--targets" -- bench --urdf arm.urdf --base base --tip tool --out o \
    --targets "$value"
done
for value in 0 2147483648 1.5 -1 x; do
  expect 2 "--threads" -- "${benchq[@]}" --out o --threads "$value"
done
for value in 0 99999999999 -2; do
  expect 2 "--threads" -- run parent-fig-5.20 --quick --out o --threads "$value"
done
expect 2 "unknown robot" -- bench --robots nosuchrobot --out o
expect 2 "unknown robot ''" -- bench --robots "" --out o
expect 2 "robot model 'nowhere/robots/panda.urdf' not found (data folder from --data)" -- \
  bench --data nowhere --robots panda --out o --targets 2
expect 2 "--seeds" -- "${bench[@]}" --out o --seeds ""
expect 2 "unknown solver" -- "${bench[@]}" --out o --solvers nosuchsolver
expect 2 "--seeds" -- "${bench[@]}" --out o --seeds sometimes
expect 2 "needs --base and --tip" -- bench --urdf arm.urdf --out o
expect 2 "needs --urdf" -- bench --targets-csv good.csv --out o
expect 2 "no experiment named" -- run no-such-experiment --out o
expect 2 "" -- frobnicate
expect 2 "" --

# ------------------------------------------------------- target CSVs
csvbench=(bench --urdf arm.urdf --base base --tip tool --solvers bounded-lm --out o)
expect 2 "no target rows" -- "${csvbench[@]}" --targets-csv csv_empty.csv
expect 2 "no target rows after the header" -- "${csvbench[@]}" --targets-csv csv_header_only.csv
expect 2 "no target rows" -- "${csvbench[@]}" --targets-csv csv_comments_only.csv
expect 2 "csv_first_nan.csv:1: column 1 ('nan') is not a finite number" -- \
  "${csvbench[@]}" --targets-csv csv_first_nan.csv
expect 2 "csv_header_typo.csv:1: column 1 ('seed_j1')" -- "${csvbench[@]}" --targets-csv csv_header_typo.csv
expect 2 "a header line must end in x,y,z,qw,qx,qy,qz" -- "${csvbench[@]}" --targets-csv csv_header_typo.csv
expect 2 "csv_header_case.csv:1:" -- "${csvbench[@]}" --targets-csv csv_header_case.csv
expect 2 "\\xFF\\xFE\\x01" -- "${csvbench[@]}" --targets-csv csv_binary.csv
expect 2 ":2: column 1 ('0.1x')" -- "${csvbench[@]}" --targets-csv csv_trailing.csv
expect 2 ":2: column 3 ('0.5m')" -- "${csvbench[@]}" --targets-csv csv_units.csv
expect 2 ":2: column 2 ('')" -- "${csvbench[@]}" --targets-csv csv_empty_field.csv
expect 2 ":2: expected 9 values" -- "${csvbench[@]}" --targets-csv csv_short.csv
expect 2 ":2: expected 9 values" -- "${csvbench[@]}" --targets-csv csv_long.csv
expect 2 ":2: column 3 ('inf')" -- "${csvbench[@]}" --targets-csv csv_inf.csv
expect 2 ":2: column 3 ('1e400')" -- "${csvbench[@]}" --targets-csv csv_overflow.csv
expect 2 "unit length" -- "${csvbench[@]}" --targets-csv csv_quaternion.csv
expect 2 "unit length" -- "${csvbench[@]}" --targets-csv csv_quaternion_zero.csv
expect 2 "the header has 10 columns" -- "${csvbench[@]}" --targets-csv csv_header_columns.csv
expect 2 ":2: column 1 ('0.1 5')" -- "${csvbench[@]}" --targets-csv csv_space.csv
expect 2 ":2: expected 9 values" -- "${csvbench[@]}" --targets-csv csv_semicolon.csv
expect 2 ":3: column 9 ('nan')" -- "${csvbench[@]}" --targets-csv csv_late_nan.csv
expect 2 ":2: column 1 ('1e999')" -- "${csvbench[@]}" --targets-csv csv_seed_overflow.csv
expect 2 "does not exist" -- "${csvbench[@]}" --targets-csv no_such_file.csv
expect 2 "is a folder" -- "${csvbench[@]}" --targets-csv csv_folder.csv
expect 2 "good.csv:1: the header has 9 columns; the chain has 1 coordinates" -- \
  bench --urdf arm.urdf --base l1 --tip tool --solvers bounded-lm --out o \
  --targets-csv good.csv
expect 2 "good_noheader.csv:1: expected 8 values" -- bench --urdf arm.urdf \
  --base l1 --tip tool --solvers bounded-lm --out o --targets-csv good_noheader.csv
# Controls: the good files still run.
expect 0 "Results:" -- "${csvbench[@]}" --targets-csv good.csv
expect 0 "Results:" -- "${csvbench[@]}" --targets-csv good_noheader.csv
# Thousands of threads requested: capped at the machine's hardware threads.
expect 0 "Results:" -- "${csvbench[@]}" --targets-csv good.csv --threads 5000

# ------------------------------------------------------- URDFs
urdfbench() { expect "$1" "$2" -- bench --urdf "$3" --base "${4:-base}" \
  --tip "${5:-tool}" --targets 2 --solvers bounded-lm --seeds mid-limits --out o; }
urdfbench 2 "origin_overflow.urdf:8: joint 'j1': <origin xyz> has a value of magnitude above" origin_overflow.urdf
urdfbench 2 "origin_overflow2.urdf:8:" origin_overflow2.urdf
urdfbench 2 "axis_overflow.urdf:8: joint 'j1': <axis> has a value of magnitude above 1e+09 (got (1e+308, 1e+308, 0))" axis_overflow.urdf
urdfbench 2 "axis_large.urdf:8: joint 'j1': <axis>" axis_large.urdf
urdfbench 2 "limit_overflow.urdf:8: joint 'j1': <limit lower/upper> has a value" limit_overflow.urdf
urdfbench 2 "limit_large.urdf:8:" limit_large.urdf
urdfbench 2 "limit_reversed.urdf:8: joint 'j1': <limit> must have lower <= upper" limit_reversed.urdf
urdfbench 2 "origin_nan.urdf:" origin_nan.urdf
urdfbench 2 "axis_zero.urdf:8: joint 'j1': <axis> must be a finite non-zero vector" axis_zero.urdf
urdfbench 2 "origin_percent.urdf:10: <origin> attribute xyz=\"0%n 0 0.3\" contains '%'" origin_percent.urdf
urdfbench 2 "cycle.urdf:30: joint 'back' (parent 'l2', child 'l1') closes a cycle of joints" cycle.urdf
# The mimic finger follows j2 (enforced); without j2 in the chain it cannot.
urdfbench 0 "Results:" arm.urdf base finger
urdfbench 2 "arm.urdf:24: joint 'finger_joint' mimics joint 'j2', which is not in the loaded chain l2 -> finger" arm.urdf l2 finger
urdfbench 2 "has no moving joints (0 coordinates)" arm.urdf base base
urdfbench 2 "has no moving joints (0 coordinates)" arm.urdf l2 tool
urdfbench 2 "has no moving joints (0 coordinates)" arm.urdf tool tool
urdfbench 2 "unknown link 'nolink'" arm.urdf base nolink
urdfbench 2 "unknown link 'nolink'" arm.urdf nolink tool
urdfbench 2 "is not below base link" arm.urdf tool base
urdfbench 2 "is not below base link" arm.urdf l2 l1
urdfbench 2 "empty.urdf" empty.urdf
urdfbench 2 "text.urdf" text.urdf
urdfbench 2 "truncated.urdf" truncated.urdf
urdfbench 2 "planar joints are not supported" planar.urdf a b
urdfbench 2 "no_such.urdf" no_such.urdf
urdfbench 2 "readonly_parent" readonly_parent
# Control: the arm without the mimic finger solves.
urdfbench 0 "Results:" arm.urdf base tool

# ------------------------------------------------------- MJCF
# Compiled by MuJoCo: its message and line passed on; coupled joints enforced.
mjcf_arm() {  # $1 = file, $2 = attributes of joint j2, $3 = <equality> body
  cat >"$1" <<EOF
<mujoco model="arm">
  <compiler angle="radian" boundmass="1e-6" boundinertia="1e-12"/>
  <worldbody><body name="base">
    <body name="l1" pos="0 0 0.3"><joint name="j1" axis="0 0 1" limited="true" range="-2 2"/>
      <body name="l2" pos="0.4 0 0"><joint name="j2" axis="0 1 0" $2/>
        <site name="tool" pos="0.3 0 0"/></body></body></body></worldbody>
  <equality>$3</equality>
</mujoco>
EOF
}
mjcf_arm arm.xml 'limited="true" range="-2 2"' ''
mjcf_arm typo.xml 'limited="true" rnage="-2 2"' ''
mjcf_arm coupled.xml 'limited="true" range="-2 2"' '<joint joint1="j2" joint2="j1" polycoef="0 1 0 0 0"/>'
mjcfbench=(bench --solvers bounded-lm --targets 20 --out o)
expect 2 "typo.xml: MuJoCo could not compile the model" -- "${mjcfbench[@]}" --mjcf typo.xml --base base --tip tool
expect 2 "Element 'joint', line 5" -- "${mjcfbench[@]}" --mjcf typo.xml --base base --tip tool
# A coupling is enforced as a mimic joint; one whose leader is outside the
# chain is refused.
expect 0 "Results:" -- "${mjcfbench[@]}" --mjcf coupled.xml --base base --tip tool
expect 2 "coupling joint 'j2' to joint 'j1'" -- "${mjcfbench[@]}" --mjcf coupled.xml --base l1 --tip tool
expect 2 "unknown tip 'hand'" -- "${mjcfbench[@]}" --mjcf arm.xml --base base --tip hand
expect 2 "needs --base and --tip" -- bench --mjcf arm.xml --out o
expect 2 "excludes" -- bench --mjcf arm.xml --urdf arm.urdf --base base --tip tool --out o
expect 2 "--mjcf needs --base and --tip" -- reach --mjcf arm.xml --out o
# Control: the MJCF arm solves.
expect 0 "Results:" -- "${mjcfbench[@]}" --mjcf arm.xml --base base --tip tool

# ------------------------------------------------------- budgets and memory
# One bounded-LM solve on a 10,000-joint chain against a 5 ms budget must
# stop near the budget (the program's own time includes loading the chain).
# Every solver (KDL's too, when built) on the chain: each stops near the
# budget or says it cannot take the chain; the whole run takes seconds.
start=$(date +%s)
expect 0 "Results:" -- bench --urdf long.urdf --base l0 --tip l10000 --targets 2 \
  --seeds random,mid-limits --budget-ms 5 --out o
seconds=$(($(date +%s) - start))
if [ "$seconds" -gt 60 ]; then
  failures=$((failures + 1))
  echo "FAIL: the 10,000-joint bench with a 5 ms budget took ${seconds} s"
fi
expect 0 "ceres-dogleg+restarts: 2 of 2 solve(s) reported invalid input: ceres-dogleg needs a dense factorization" -- \
  bench --urdf long.urdf --base l0 --tip l10000 --targets 2 --seeds random \
  --budget-ms 5 --out o --solvers ceres-dogleg+restarts
if "$IKLAB" bench --help | grep -q kdl-lma && [ -z "$("$IKLAB" bench --urdf arm.urdf \
    --base base --tip tool --targets 1 --solvers bounded-lm --out o 2>&1 | grep 'not built')" ]; then
  expect 0 "kdl-nr-jl: 2 of 2 solve(s) reported invalid input: the chain has 10000 joints" -- \
    bench --urdf long.urdf --base l0 --tip l10000 --targets 2 --seeds random \
    --budget-ms 5 --out o --solvers kdl-nr-jl
fi
# A binding budget is reported as such.
expect 0 "not bit-reproducible" -- bench --urdf long.urdf --base l0 --tip l10000 \
  --targets 1 --solvers bounded-lm --seeds random --budget-ms 0.01 --out o
# Restarts on an unreachable target stop at the budget.
expect 0 "Results:" -- bench --urdf arm.urdf --base base --tip tool --out o \
  --solvers lbfgsb+restarts,ceres-lm+restarts --targets-csv unreachable.csv \
  --budget-ms 300
# iklab reach: option values, the chain, the output folder, the journal.
reachq=(reach --robot panda --resolution 0.4 --orientations 2 --no-plots)
for value in 0 -0.05 nan inf 1e400 0.05m "" 11; do
  expect 2 "--resolution: must be a number in (0, 10]" -- "${reachq[@]}" --out o --resolution "$value"
done
for value in 0 -1 1.5 10001 x; do
  expect 2 "--orientations" -- "${reachq[@]}" --out o --orientations "$value"
done
expect 2 "--rolls" -- "${reachq[@]}" --out o --rolls 0
expect 2 "--tolerance" -- "${reachq[@]}" --out o --tolerance 0.5
expect 2 "--attempts" -- "${reachq[@]}" --out o --attempts 0
expect 2 "--stop-after" -- "${reachq[@]}" --out o --stop-after 0
expect 2 "--solver" -- "${reachq[@]}" --out o --solver nosuch
expect 2 "--threads" -- "${reachq[@]}" --out o --threads 0
# A mimic joint whose leader is not on the chain: refused as by the
# benchmark.
expect 2 "arm.urdf:24: joint 'finger_joint' mimics joint 'j2', which is not in the loaded chain" -- reach \
  --urdf arm.urdf --base l2 --tip finger --resolution 0.4 --orientations 2 \
  --no-plots --out o
expect 2 "unknown robot 'nosuchrobot'" -- reach --robot nosuchrobot --out o
expect 2 "name the chain" -- reach --out o
expect 2 "--urdf needs --base and --tip" -- reach --urdf arm.urdf --out o
expect 2 "give --robot or --urdf, not both" -- reach --robot panda --urdf arm.urdf \
  --base base --tip tool --out o
expect 2 "analytic-6r does not apply" -- "${reachq[@]}" --out o --solver analytic-6r
expect 2 "position-only map needs" -- reach --robot ur5 --position-only \
  --solver analytic-6r --out o
expect 2 "more than 2^31 voxels" -- reach --robot panda --resolution 0.0001 --out o
expect 2 "GB of memory" -- reach --robot panda --resolution 0.002 \
  --orientations 10000 --out o
expect 2 "exists and is not a folder" -- "${reachq[@]}" --out a_file
expect 2 "cannot write into the folder" -- "${reachq[@]}" --out /proc/self
expect 2 "no moving joint" -- reach --urdf arm.urdf --base l2 --tip tool --out o
# An interrupted map: exit 3 and a journal; a new run without --resume is
# refused; a journal of other settings is refused; --resume completes it.
expect 3 "rerun with --resume" -- "${reachq[@]}" --out stopped --stop-after 5
expect 2 "Add --resume to continue it" -- "${reachq[@]}" --out stopped
expect 2 "fingerprint differs" -- "${reachq[@]}" --out stopped --resume --seed 9
expect 0 "Map: stopped/reach.h5" -- "${reachq[@]}" --out stopped --resume
# A journal that is not one.
mkdir -p badjournal && printf 'garbage' > badjournal/reach.h5.partial
expect 2 "is not an iklab reach journal" -- "${reachq[@]}" --out badjournal --resume

# A run too large for memory is refused before it starts.
expect 2 "GB of memory" -- bench --urdf long.urdf --base l0 --tip l10000 \
  --targets 100000000 --solvers bounded-lm --out o
expect 2 "reduce --targets" -- bench --urdf long.urdf --base l0 --tip l10000 \
  --targets 100000000 --solvers bounded-lm --out o

# ---------------------------------------------------------------- retarget
bvh_clip() {  # $1 = file, $2 = the second frame's root x and z
  cat >"$1" <<EOF
HIERARCHY
ROOT Hips
{
  OFFSET 0 0 0
  CHANNELS 6 Xposition Yposition Zposition Zrotation Xrotation Yrotation
  JOINT Chest
  {
    OFFSET 0 10 0
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
$2 0 $2 0 0 0 10 0 0
EOF
}
bvh_clip clip.bvh 1
bvh_clip far.bvh 1e308
for value in nan inf -1 0; do
  expect 2 "--tolerance must be a finite number > 0" -- retarget --bvh clip.bvh \
    --out o --tolerance "$value"
done
# A root translation too large for double precision: the residual overflows,
# refused instead of written as solved frames.
expect 2 "far.bvh: frame 1: the residual overflows double precision" -- \
  retarget --bvh far.bvh --out o
# Every goal consistent (the clip's own skeleton) and no smoothness term:
# every frame converges.
expect 0 "2 converged" -- retarget --bvh clip.bvh --smoothness-weight 0 --out o

# Out of memory during the run (address space limited to 1.5 GB, targets
# that pass the estimate): a message, not "terminate called ... bad_alloc".
# (ASan reserves terabytes of shadow memory at start, so it cannot run
# under ulimit -v; recognized by the argument or by its runtime in the binary.)
if grep -q __asan_init "$IKLAB" 2>/dev/null; then SANITIZED=ON; fi
case "$SANITIZED" in
  ON|on|1|TRUE|true) ;;
  *)
    cases=$((cases + 1))
    out=$( (ulimit -v 1500000; timeout "$LIMIT" "$IKLAB" bench --urdf long.urdf \
      --base l0 --tip l10000 --targets 50000 --solvers bounded-lm --out o) 2>&1)
    rc=$?
    if [ "$rc" -ne 2 ] || ! printf '%s' "$out" | grep -q "out of memory; reduce"; then
      failures=$((failures + 1))
      printf 'FAIL [%d] out of memory: exit %d, output: %s\n' "$cases" "$rc" "$out"
    fi
    ;;
esac

echo "hostile inputs: $cases runs, $failures failures"
[ "$cases" -ge 100 ] || { echo "FAIL: fewer than 100 cases ran"; exit 1; }
[ "$failures" -eq 0 ]
