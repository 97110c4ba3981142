// The C++ side of the Python round-trip test (tests/python/test_round_trip.py):
// reads a URDF chain and rows of (target pose x y z qw qx qy qz, start q),
// and writes, as exact hexadecimal floats, what the C++ API computes for each
// row — the site pose and Jacobian at the start, and the answers of several
// solvers and of SolveBatch. The Python test computes the same through the
// bindings and compares bit for bit.
//
// Usage: iklab_python_reference URDF BASE TIP INPUT_CSV OUTPUT

#include <cstdio>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "iklab.h"

namespace {

void Write(std::FILE* out, const std::string& key, int row,
           const Eigen::Ref<const Eigen::MatrixXd>& values) {
  std::fprintf(out, "%s %d", key.c_str(), row);
  // Row-major order, as NumPy flattens.
  for (Eigen::Index r = 0; r < values.rows(); ++r) {
    for (Eigen::Index c = 0; c < values.cols(); ++c) {
      std::fprintf(out, " %a", values(r, c));
    }
  }
  std::fprintf(out, "\n");
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 6) {
    std::fprintf(stderr, "usage: %s URDF BASE TIP INPUT_CSV OUTPUT\n", argv[0]);
    return 2;
  }
  using namespace iklab;
  const auto model = std::make_shared<const Model>(
      LoadUrdfChain(argv[1], argv[2], argv[3]).figure.Compile());
  const int nq = model->nq();
  const std::string site = argv[3];
  const int site_index = model->SiteIndex(site);

  std::ifstream in(argv[4]);
  std::vector<std::vector<double>> rows;
  for (std::string line; std::getline(in, line);) {
    std::stringstream fields(line);
    std::vector<double> row;
    for (std::string field; std::getline(fields, field, ',');) {
      row.push_back(std::stod(field));
    }
    if (static_cast<int>(row.size()) != 7 + nq) {
      std::fprintf(stderr, "row with %zu fields, expected %d\n", row.size(), 7 + nq);
      return 2;
    }
    rows.push_back(row);
  }
  const int n = static_cast<int>(rows.size());
  RowMatrixXd targets(n, 7), starts(n, nq);
  for (int i = 0; i < n; ++i) {
    targets.row(i) = Eigen::Map<const Eigen::RowVectorXd>(rows[i].data(), 7);
    starts.row(i) = Eigen::Map<const Eigen::RowVectorXd>(rows[i].data() + 7, nq);
  }

  // The solvers the Python test builds with the same options.
  BoundedLmOptions bounded_lm;
  bounded_lm.common.time_budget_seconds = 0.0;
  bounded_lm.common.max_iterations = 300;
  DampedLeastSquaresOptions dls;
  dls.common.max_iterations = 300;
  dls.damping = 0.05;
  const std::vector<std::pair<std::string, std::shared_ptr<const Solver>>> solvers = {
      {"lbfgsb", MakeSolver(LbfgsbOptions{})},
      {"ceres", MakeSolver(CeresOptions{})},
      {"bounded-lm", MakeSolver(bounded_lm)},
      {"dls", MakeSolver(dls)},
  };

  std::FILE* out = std::fopen(argv[5], "w");
  if (out == nullptr) {
    std::fprintf(stderr, "cannot write %s\n", argv[5]);
    return 2;
  }
  Data data(*model);
  auto goal = std::make_shared<PositionOrientationGoal>(*model, site,
                                                        Eigen::Isometry3d::Identity());
  Problem problem(model);
  problem.AddGoal(goal);
  for (int i = 0; i < n; ++i) {
    const Eigen::VectorXd q0 = starts.row(i).transpose();
    ForwardKinematics(*model, q0, &data);
    Write(out, "pose", i, SitePose(*model, data, site_index).matrix());
    Matrix6Xd J(6, nq);
    SiteJacobian(*model, data, site_index, J);
    Write(out, "jacobian", i, J);
    Eigen::Isometry3d X = Eigen::Isometry3d::Identity();
    X.translation() = targets.row(i).head<3>().transpose();
    X.linear() = Eigen::Quaterniond(targets(i, 3), targets(i, 4), targets(i, 5),
                                    targets(i, 6))
                     .normalized()
                     .toRotationMatrix();
    goal->set_target(X);
    for (const auto& [name, solver] : solvers) {
      const Result r = solver->Solve(problem, q0);
      Write(out, name, i, r.q.transpose());
    }
  }
  BatchOptions batch;
  batch.threads = 2;
  const BatchResult result = SolveBatch(*solvers[0].second, problem, targets, starts, batch);
  for (int i = 0; i < n; ++i) Write(out, "batch-lbfgsb", i, result.q.row(i));
  std::fclose(out);
  return 0;
}
