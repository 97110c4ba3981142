// A study's outputs (lab/study.h, WriteStudyOutputs) carry every number a
// verdict rests on: trials.csv has each trial's targets, each hard
// constraint's value, violation and activity (checked by hand on a planar
// chain), the solver's message, and no column a goal does not have; the
// solver table states constraint violations; the pictures leave refused
// solves out of the time distribution and name every solver they do not
// draw.

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "constraints/position_goal.h"
#include "constraints/position_orientation_goal.h"
#include "constraints/tolerance_goals.h"
#include "framework/builders.h"
#include "framework/internal/read_file.h"
#include "lab/study.h"
#include "solvers/analytic/two_link_analytic.h"
#include "solvers/optimization/lbfgsb_solver.h"
#include "tests/test_utilities.h"

namespace iklab {
namespace {

// A CSV line split into its fields (RFC 4180: quoted fields may hold commas
// and doubled quotes).
std::vector<std::string> SplitCsv(const std::string& line) {
  std::vector<std::string> fields(1);
  bool quoted = false;
  for (std::size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quoted) {
      if (c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
        fields.back() += '"';
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        fields.back() += c;
      }
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      fields.emplace_back();
    } else {
      fields.back() += c;
    }
  }
  return fields;
}

// trials.csv as its header and rows of name → field.
struct Csv {
  std::vector<std::string> header;
  std::vector<std::map<std::string, std::string>> rows;
  bool Has(const std::string& column) const {
    return std::find(header.begin(), header.end(), column) != header.end();
  }
};

Csv ReadCsv(const std::filesystem::path& path) {
  std::ifstream in(path);
  Csv csv;
  std::string line;
  std::getline(in, line);
  csv.header = SplitCsv(line);
  while (std::getline(in, line)) {
    const std::vector<std::string> fields = SplitCsv(line);
    REQUIRE(fields.size() == csv.header.size());
    std::map<std::string, std::string> row;
    for (std::size_t i = 0; i < fields.size(); ++i) {
      row[csv.header[i]] = fields[i];
    }
    csv.rows.push_back(row);
  }
  return csv;
}

std::string OutputText(const std::filesystem::path& path) {
  return internal::ReadFile(path.string());
}

// A picture's script with its notes' line breaks (a backslash and an n in
// the label, placed by the canvas width) read as spaces.
std::string Unwrapped(std::string script) {
  for (std::size_t at; (at = script.find("\\n")) != std::string::npos;) {
    script.replace(at, 2, " ");
  }
  return script;
}

double Value(const std::map<std::string, std::string>& row,
             const std::string& column) {
  INFO(column);
  REQUIRE(row.count(column) == 1);
  return std::stod(row.at(column));
}

// A solver that returns a fixed pose, claims convergence and says so in a
// message with a comma and quotes (the CSV must quote it); refuses the odd
// trials when `refuse_odd`. It records no iteration trace.
class FixedAnswerSolver final : public Solver {
 public:
  FixedAnswerSolver(Eigen::VectorXd q, bool refuse)
      : q_(std::move(q)), refuse_(refuse) {}
  std::string name() const override { return "fixed"; }
  Result Solve(const Problem&, const Eigen::VectorXd& q0) const override {
    Result r;
    if (refuse_) {
      r.status = SolveStatus::kInvalidInput;
      r.message = "refused: odd trial";
      r.q = q0;
      return r;
    }
    r.status = SolveStatus::kConverged;
    r.message = "answer given, \"as is\"";
    r.q = q_;
    return r;
  }

 private:
  Eigen::VectorXd q_;
  bool refuse_;
};

StudySolver FixedAnswer(std::string label, Eigen::VectorXd q,
                        bool refuse_odd = false) {
  return {std::move(label),
          [q, refuse_odd](const SolveOptions&, const Trial& trial) {
            return std::make_unique<FixedAnswerSolver>(
                q, refuse_odd && trial.index % 2 == 1);
          },
          1};
}

// Writes the study's outputs to a fresh scratch folder.
std::filesystem::path WriteOutputs(const Study& study,
                                   const StudyResult& result,
                                   const std::string& name) {
  const auto dir = testing::ScratchPath(name);
  std::filesystem::remove_all(dir);
  ExperimentOutput out(dir);
  WriteStudyOutputs(study, result, &out);
  return dir;
}

// A two-link planar chain (links 1, 1; joints about z, unlimited) with a
// position goal met at q = (0.2, 0.5) and a hard cone: the effector's x axis
// within 0.3 rad of world x. The effector's x axis is at angle q0 + q1 from
// x, so the cone's angle at q is |q0 + q1|.
Study ConeStudy() {
  Study study;
  study.name = "cone";
  study.model =
      std::make_shared<const Model>(PlanarChain({1.0, 1.0}).Compile());
  study.scenario = [](const TrialContext& context) {
    Trial trial(context.model);
    const Eigen::Vector3d target(std::cos(0.2) + std::cos(0.7),
                                 std::sin(0.2) + std::sin(0.7), 0.0);
    trial.problem.AddGoal(
        std::make_shared<PositionGoal>(*context.model, "effector", target));
    trial.problem.AddInequalityConstraint(std::make_shared<ConeGoal>(
        *context.model, "effector", Eigen::Vector3d::UnitX(),
        Eigen::Vector3d::UnitX(), 0.3));
    return trial;
  };
  study.trials = 3;
  study.time_budget_seconds = 0.0;
  return study;
}

TEST_CASE(
    "trials.csv states each hard constraint's value, violation and "
    "activity at the answer, by hand on a planar chain",
    "[lab][study]") {
  Study study = ConeStudy();
  // Outside the cone by 0.7 − 0.3 = 0.4 rad; on its edge at 0.1 + 0.2.
  study.solvers = {FixedAnswer("outside", Eigen::Vector2d(0.2, 0.5)),
                   FixedAnswer("on-edge", Eigen::Vector2d(0.1, 0.2)),
                   Use("lbfgsb", LbfgsbOptions{})};
  const StudyResult result = RunStudy(study);
  const auto dir = WriteOutputs(study, result, "iklab_study_cone");
  const Csv csv = ReadCsv(dir / "trials.csv");
  // The header docs/tutorial.md shows (there for a three-link arm).
  std::string header;
  for (const std::string& name : csv.header) {
    header += (header.empty() ? "" : ",") + name;
  }
  CHECK(header ==
        "solver,trial,frame,status,claimed,success,within_bounds,iterations,"
        "evaluations,attempts,goal0_position_error,goal0_target_x,"
        "goal0_target_y,goal0_target_z,constraint0_axis_x,constraint0_axis_y,"
        "constraint0_axis_z,constraint0_direction_x,constraint0_direction_y,"
        "constraint0_direction_z,constraint0_half_angle,constraint0_angle,"
        "constraint0_angle_violation,constraint0_active,q_q0,q_q1,"
        "microseconds,message");
  for (const char* column :
       {"constraint0_axis_x", "constraint0_direction_x",
        "constraint0_half_angle", "constraint0_angle",
        "constraint0_angle_violation", "constraint0_active", "message"}) {
    INFO(column);
    CHECK(csv.Has(column));
  }
  // A cone has an angle only: no position or aim violation column.
  CHECK_FALSE(csv.Has("constraint0_position_violation"));
  CHECK_FALSE(csv.Has("constraint0_aim_violation"));
  REQUIRE(csv.rows.size() == 3u * 3u);
  for (const auto& row : csv.rows) {
    INFO(row.at("solver") << " trial " << row.at("trial"));
    CHECK(Value(row, "constraint0_half_angle") == 0.3);
    CHECK(Value(row, "constraint0_direction_x") == 1.0);
    if (row.at("solver") == "outside") {
      CHECK(Value(row, "constraint0_angle") == Approx(0.7).margin(1e-12));
      CHECK(Value(row, "constraint0_angle_violation") ==
            Approx(0.4).margin(1e-12));
      CHECK(row.at("constraint0_active") == "0");
      // The cone is violated: not a success, though the goal is met.
      CHECK(Value(row, "goal0_position_error") < 1e-9);
      CHECK(row.at("success") == "0");
      CHECK(row.at("message") == "answer given, \"as is\"");
    } else if (row.at("solver") == "on-edge") {
      CHECK(Value(row, "constraint0_angle") == Approx(0.3).margin(1e-12));
      CHECK(Value(row, "constraint0_angle_violation") <= 1e-12);
      CHECK(row.at("constraint0_active") == "1");
    } else {
      // L-BFGS-B refuses hard constraints: its message says why.
      CHECK(row.at("status") == SolveStatusName(SolveStatus::kInvalidInput));
      CHECK_FALSE(row.at("message").empty());
    }
  }
  // The solver table states the violation next to the goal errors.
  const std::string table = OutputText(dir / "solvers.csv");
  CHECK(table.find("constraint angle violation median (rad)") !=
        std::string::npos);
  CHECK(result.Summary("outside").median_constraint_angle_violation ==
        Approx(0.4).margin(1e-12));
  CHECK(result.Summary("outside").max_constraint_angle_violation ==
        Approx(0.4).margin(1e-12));
  CHECK(result.Summary("on-edge").max_constraint_angle_violation <= 1e-12);
  // study.json names the constraint and explains every column.
  const nlohmann::json json =
      nlohmann::json::parse(OutputText(dir / "study.json"));
  CHECK(json["hard_constraints"][0]["label"] == "cone(effector)");
  CHECK(json["trials_csv_columns"].size() == csv.header.size());
  std::filesystem::remove_all(dir);
}

TEST_CASE(
    "trials.csv states each trial's targets, and only the error "
    "columns its goals have",
    "[lab][study]") {
  Study study;
  study.name = "targets";
  study.model =
      std::make_shared<const Model>(PlanarChain({1.0, 0.8, 0.6}).Compile());
  // Trial k: a position goal at (1 + 0.1 k, 0.4, 0) and a pose goal of the
  // effector rotated by 0.2 k about z.
  study.scenario = [](const TrialContext& context) {
    Trial trial(context.model);
    const double k = context.index;
    trial.problem.AddGoal(std::make_shared<PositionGoal>(
        *context.model, "joint2", Eigen::Vector3d(1.0 + 0.1 * k, 0.4, 0.0)));
    Eigen::Isometry3d X = Eigen::Isometry3d::Identity();
    X.linear() =
        Eigen::AngleAxisd(0.2 * k, Eigen::Vector3d::UnitZ()).toRotationMatrix();
    X.translation() = Eigen::Vector3d(1.2, 0.3 * k, 0.0);
    trial.problem.AddGoal(std::make_shared<PositionOrientationGoal>(
        *context.model, "effector", X));
    return trial;
  };
  study.trials = 4;
  study.time_budget_seconds = 0.0;
  study.solvers = {Use("lbfgsb", LbfgsbOptions{})};
  const StudyResult result = RunStudy(study);
  const auto dir = WriteOutputs(study, result, "iklab_study_targets");
  const Csv csv = ReadCsv(dir / "trials.csv");
  // The position goal has no angle or aim error; the pose goal no aim.
  CHECK(csv.Has("goal0_position_error"));
  CHECK_FALSE(csv.Has("goal0_angle_error"));
  CHECK_FALSE(csv.Has("goal0_aim_error"));
  CHECK(csv.Has("goal1_angle_error"));
  CHECK_FALSE(csv.Has("goal1_aim_error"));
  CHECK_FALSE(csv.Has("constraint0_active"));
  REQUIRE(csv.rows.size() == 4u);
  for (const auto& row : csv.rows) {
    const double k = Value(row, "trial");
    INFO("trial " << k);
    CHECK(Value(row, "goal0_target_x") == 1.0 + 0.1 * k);
    CHECK(Value(row, "goal0_target_y") == 0.4);
    CHECK(Value(row, "goal1_target_y") == 0.3 * k);
    CHECK(Value(row, "goal1_target_qw") == Approx(std::cos(0.1 * k)));
    CHECK(Value(row, "goal1_target_qz") == Approx(std::sin(0.1 * k)));
    CHECK(Value(row, "goal1_target_qx") == Approx(0.0).margin(1e-15));
  }
  std::filesystem::remove_all(dir);
}

TEST_CASE("A position-only study's solver table has no angle error column",
          "[lab][study]") {
  Study study = ConeStudy();
  study.scenario = FixedGoals([](Problem* problem) {
    problem->AddGoal(std::make_shared<PositionGoal>(
        problem->model(), "effector", Eigen::Vector3d(1.5, 0.5, 0.0)));
  });
  study.solvers = {Use("lbfgsb", LbfgsbOptions{})};
  const StudyResult result = RunStudy(study);
  const auto dir = WriteOutputs(study, result, "iklab_study_position_only");
  const std::string table = OutputText(dir / "solvers.csv");
  const std::string header = table.substr(0, table.find('\n'));
  CHECK(header.find("position error") != std::string::npos);
  CHECK(header.find("angle error") == std::string::npos);
  CHECK(header.find("constraint") == std::string::npos);
  const nlohmann::json json =
      nlohmann::json::parse(OutputText(dir / "study.json"));
  CHECK(json["solvers"][0]["median_angle_error"].is_null());
  std::filesystem::remove_all(dir);
}

// The data block of the series titled `title` in a line plot's script: its
// (x, y) rows.
std::vector<std::pair<double, double>> SeriesData(const std::string& script,
                                                  const std::string& title) {
  const std::size_t at = script.find("title \"" + title + "\"");
  REQUIRE(at != std::string::npos);
  const std::size_t name = script.rfind("$d", at);
  const std::string block =
      script.substr(name, script.find(' ', name) - name);  // "$d3"
  std::istringstream lines(
      script.substr(script.find(block + " << EOD\n") + block.size() + 8));
  std::vector<std::pair<double, double>> out;
  for (std::string line; std::getline(lines, line) && line != "EOD";) {
    std::istringstream xy(line);
    double x = 0.0, y = 0.0;
    xy >> x >> y;
    out.emplace_back(x, y);
  }
  return out;
}

TEST_CASE(
    "The pictures mark refused solvers as refused, keep refused solves "
    "out of the time distribution and name the solvers without a trace",
    "[lab][study]") {
  Study study;
  study.name = "refusals";
  study.model =
      std::make_shared<const Model>(PlanarChain({1.0, 0.8, 0.6}).Compile());
  study.goals = {GoalSpec::Position("effector")};
  study.trials = 4;
  study.time_budget_seconds = 0.0;
  // two-link refuses a three-link chain on every trial; "half" refuses the
  // odd trials and records no trace.
  study.solvers = {Use("lbfgsb", LbfgsbOptions{}),
                   Use("two-link", TwoLinkOptions{}),
                   FixedAnswer("half", Eigen::Vector3d(0.1, 0.2, 0.3), true)};
  const StudyResult result = RunStudy(study);
  REQUIRE_FALSE(result.Summary("two-link").rejected.empty());
  const auto dir = WriteOutputs(study, result, "iklab_study_refusals");

  const std::string cdf = Unwrapped(OutputText(dir / "time_cdf.gp"));
  CHECK(cdf.find("title \"two-link\"") == std::string::npos);
  CHECK(cdf.find("refused every solve: two-link") != std::string::npos);
  CHECK(cdf.find("half (2 of 4)") != std::string::npos);
  // "half" attempted 2 of its 4 solves: its curve ends at 0.5.
  const auto half = SeriesData(cdf, "half");
  REQUIRE(half.size() == 2u);
  CHECK(half.back().second == 0.5);
  CHECK(SeriesData(cdf, "lbfgsb").back().second == 1.0);

  const std::string success = Unwrapped(OutputText(dir / "success.gp"));
  CHECK(success.find("refused every trial") != std::string::npos);
  CHECK(success.find("fs pattern") != std::string::npos);
  CHECK(success.find("\"two-link\" 1") != std::string::npos);  // on the axis

  const std::string convergence = Unwrapped(OutputText(dir / "convergence.gp"));
  CHECK(convergence.find("title \"lbfgsb\"") != std::string::npos);
  CHECK(convergence.find("no iteration trace") != std::string::npos);
  CHECK(convergence.find("half") != std::string::npos);
  CHECK(convergence.find("refused every solve: two-link") != std::string::npos);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace iklab
