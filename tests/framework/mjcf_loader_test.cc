// The MJCF loader against MuJoCo itself: for every shipped MJCF model and
// small models with slide, ball and free joints, iklab's FK and site Jacobians
// are compared with MuJoCo's own mj_kinematics / mj_jacSite on the same
// compiled file at random configurations within range (MuJoCo is the
// independent reference); the shipped MJCF models against their URDF twins;
// and bad inputs.

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include <catch2/catch.hpp>
#include <mujoco/mujoco.h>

#include "framework/kinematics.h"
#include "framework/mjcf_loader.h"
#include "framework/model.h"
#include "framework/urdf_loader.h"
#include "tests/test_data.h"
#include "tests/test_utilities.h"

namespace iklab {
namespace {

using Catch::Matchers::Contains;

// A model compiled by MuJoCo directly (not through the loader) and its data.
struct Mujoco {
  explicit Mujoco(const std::string& path) {
    InstallMujocoHandlers();
    char error[1024] = "";
    model = mj_loadXML(path.c_str(), nullptr, error, sizeof(error));
    if (model == nullptr) throw std::runtime_error(error);
    data = mj_makeData(model);
  }
  ~Mujoco() {
    mj_deleteData(data);
    mj_deleteModel(model);
  }
  Mujoco(const Mujoco&) = delete;
  Mujoco& operator=(const Mujoco&) = delete;
  mjModel* model = nullptr;
  mjData* data = nullptr;
};

// Writes `xml` into a file of the test's temporary folder; returns its path.
std::string WriteModel(const std::string& name, const std::string& xml) {
  // One folder per test process: ctest runs the cases in parallel, and two
  // of them write mixed.xml.
  const auto dir = testing::ScratchPath("iklab_mjcf_test");
  std::filesystem::create_directories(dir);
  const auto path = dir / name;
  std::ofstream(path) << xml;
  return path.string();
}

// A random MuJoCo configuration: limited hinges/slides uniform in range,
// unlimited ones in [-3, 3], balls and free joints a uniformly random
// rotation (free positions in [-1, 1]^3).
Eigen::VectorXd RandomQpos(const mjModel& m, std::mt19937& rng) {
  std::uniform_real_distribution<double> unit(-1.0, 1.0);
  std::normal_distribution<double> normal;
  Eigen::VectorXd qpos = Eigen::Map<const Eigen::VectorXd>(m.qpos0, m.nq);
  auto random_quaternion = [&](int at) {
    Eigen::Vector4d v(normal(rng), normal(rng), normal(rng), normal(rng));
    qpos.segment<4>(at) = v.normalized();
  };
  for (int j = 0; j < m.njnt; ++j) {
    const int a = m.jnt_qposadr[j];
    switch (m.jnt_type[j]) {
      case mjJNT_HINGE:
      case mjJNT_SLIDE:
        if (m.jnt_limited[j]) {
          const double lo = m.jnt_range[2 * j], hi = m.jnt_range[2 * j + 1];
          qpos[a] = lo + (hi - lo) * 0.5 * (unit(rng) + 1.0);
        } else {
          qpos[a] = 3.0 * unit(rng);
        }
        break;
      case mjJNT_BALL:
        random_quaternion(a);
        break;
      case mjJNT_FREE:
        for (int k = 0; k < 3; ++k) qpos[a + k] = unit(rng);
        random_quaternion(a + 3);
        break;
    }
  }
  return qpos;
}

struct Agreement {
  double position = 0.0;     // max |p_iklab − p_mujoco| (m)
  double rotation = 0.0;     // max |R_iklab − R_mujoco| (entry)
  double jacobian = 0.0;     // max |J_iklab − J_mujoco M| (entry)
  int sites = 0;
  int configurations = 0;
};

// iklab against MuJoCo on `trials` random configurations, every site.
//
// Jacobians: MuJoCo's are per velocity coordinate (nv: hinge/slide rates,
// ball and free angular velocities in the body frame), iklab's per
// coordinate of q. With M = d(MuJoCo velocity)/dq (nv × nq), the two agree
// when J_iklab = J_mujoco M. Hinge and slide columns of M are unit vectors
// (q = qpos − qpos0); ball and free columns are measured with MuJoCo's own
// mj_differentiatePos by central differences of qpos(q ± h e_k), h = 1e-6
// (error O(h^2) plus rounding, about 1e-10).
Agreement CompareWithMujoco(const std::string& path, int trials, unsigned seed) {
  Mujoco mj(path);
  const mjModel& m = *mj.model;
  const MjcfFigure mjcf = LoadMjcf(path);
  const Model model = mjcf.figure.Compile();
  Data data(model);
  std::mt19937 rng(seed);
  Agreement worst;
  worst.sites = m.nsite;
  REQUIRE(model.num_sites() == m.nsite);
  REQUIRE(m.nsite > 0);
  Eigen::MatrixXd jacp(3, m.nv), jacr(3, m.nv);
  Matrix6Xd J(6, model.nq());
  Eigen::MatrixXd M(m.nv, model.nq());
  Eigen::VectorXd v(m.nv);
  for (int t = 0; t < trials; ++t) {
    const Eigen::VectorXd qpos = RandomQpos(m, rng);
    const Eigen::VectorXd q = MjcfQposToQ(mjcf, model, qpos);
    // The conversion is a bijection on rotations: back to the same pose.
    Eigen::Map<Eigen::VectorXd>(mj.data->qpos, m.nq) =
        MjcfQToQpos(mjcf, model, q);
    mj_kinematics(mj.model, mj.data);
    mj_comPos(mj.model, mj.data);  // cdof, which mj_jacSite reads
    ForwardKinematics(model, q, &data);
    const double h = 1e-6;
    M.setZero();
    for (const MjcfJoint& j : mjcf.joints) {
      if (j.type == MjcfJointType::kHinge || j.type == MjcfJointType::kSlide) {
        M(m.jnt_dofadr[j.mujoco_id], model.DofIndex(j.name)) = 1.0;
      }
    }
    for (int k = 0; k < model.nq(); ++k) {
      if (M.col(k).any()) continue;  // a hinge or slide: exact
      Eigen::VectorXd plus = q, minus = q;
      plus[k] += h;
      minus[k] -= h;
      const Eigen::VectorXd qpos_plus = MjcfQToQpos(mjcf, model, plus);
      const Eigen::VectorXd qpos_minus = MjcfQToQpos(mjcf, model, minus);
      mj_differentiatePos(mj.model, v.data(), 2 * h, qpos_minus.data(),
                          qpos_plus.data());
      M.col(k) = v;
    }
    for (int s = 0; s < m.nsite; ++s) {
      const char* name = mj_id2name(mj.model, mjOBJ_SITE, s);
      const int site = model.SiteIndex(name != nullptr ? std::string(name)
                                                       : "site" + std::to_string(s));
      const Eigen::Isometry3d X_WS = SitePose(model, data, site);
      const Eigen::Vector3d p(mj.data->site_xpos + 3 * s);
      // site_xmat is row-major.
      const Eigen::Matrix3d R =
          Eigen::Map<const Eigen::Matrix<double, 3, 3, Eigen::RowMajor>>(
              mj.data->site_xmat + 9 * s);
      worst.position = std::max(
          worst.position, (X_WS.translation() - p).cwiseAbs().maxCoeff());
      worst.rotation = std::max(
          worst.rotation, (X_WS.linear() - R).cwiseAbs().maxCoeff());
      // MuJoCo writes row-major 3 × nv blocks.
      Eigen::Matrix<double, 3, Eigen::Dynamic, Eigen::RowMajor> p_rows(3, m.nv),
          r_rows(3, m.nv);
      mj_jacSite(mj.model, mj.data, p_rows.data(), r_rows.data(), s);
      jacp = p_rows;
      jacr = r_rows;
      SiteJacobian(model, data, site, J);
      Matrix6Xd expected(6, model.nq());
      expected.topRows<3>() = jacp * M;
      expected.bottomRows<3>() = jacr * M;
      worst.jacobian =
          std::max(worst.jacobian, (J - expected).cwiseAbs().maxCoeff());
    }
    ++worst.configurations;
  }
  std::printf(
      "MJCF vs MuJoCo %s: %d configurations x %d sites, nq %d (MuJoCo nq %d, "
      "nv %d): max |dp| %.3g m, max |dR| %.3g, max |dJ| %.3g\n",
      std::filesystem::path(path).filename().c_str(), worst.configurations,
      worst.sites, model.nq(), m.nq, m.nv, worst.position, worst.rotation,
      worst.jacobian);
  return worst;
}

const char* const kShipped[] = {"panda.xml", "iiwa14.xml", "gen3.xml",
                                "ur5.xml"};

TEST_CASE("Shipped MJCF models: FK and site Jacobians equal MuJoCo's") {
  for (const char* name : kShipped) {
    INFO(name);
    const Agreement a =
        CompareWithMujoco(testing::ShippedDataFile(std::string("robots/") + name), 500, 7);
    CHECK(a.position < 1e-12);
    CHECK(a.rotation < 1e-12);
    CHECK(a.jacobian < 1e-12);
  }
}

// Slide and hinge joints with anchors off the body origin, a nonzero ref, two
// joints in one body, ball joints (one limited), a free body, unnamed
// elements, sites with orientations, degrees (MuJoCo's default unit) and
// an euler/axisangle mix: every case of the mapping.
constexpr char kMixedModel[] = R"(<mujoco model="mixed">
  <compiler boundmass="1e-6" boundinertia="1e-12"/>
  <worldbody>
    <body name="carriage" pos="0.1 0.2 0.3" euler="10 20 30">
      <joint name="rail" type="slide" axis="1 1 0" pos="0.3 0 0" limited="true" range="-0.5 0.5" ref="0.1"/>
      <site name="carriage_site" pos="0 0.1 0" euler="0 90 0"/>
      <body name="arm" pos="0 0 0.4" axisangle="1 0 0 30">
        <joint name="hip" type="hinge" axis="0 1 0" pos="0 0 -0.1" limited="true" range="-90 60" ref="15"/>
        <joint name="hip_twist" type="hinge" axis="0 0 1" pos="0.05 0 0"/>
        <geom name="upper" type="capsule" fromto="0 0 0 0 0 0.5" size="0.04"/>
        <body pos="0 0 0.5">
          <joint name="shoulder" type="ball" pos="0 0 0.02"/>
          <geom type="box" size="0.1 0.05 0.02" pos="0 0 0.1"/>
          <body name="hand" pos="0.2 0 0.1">
            <joint name="wrist" type="ball" limited="true" range="0 60"/>
            <site name="tool" pos="0.05 0.01 0.02" quat="0.9 0.1 0.3 0.2"/>
            <site pos="0 0 0.1"/>
          </body>
        </body>
      </body>
    </body>
    <body name="drone" pos="1 2 3" euler="0 0 45">
      <joint name="float" type="free"/>
      <body name="rotor" pos="0.2 0 0">
        <joint name="spin" type="hinge" axis="0 0 1"/>
        <site name="rotor_tip" pos="0.1 0 0"/>
      </body>
    </body>
  </worldbody>
</mujoco>
)";

TEST_CASE("MJCF slide, hinge, ball and free joints: FK and Jacobians equal "
          "MuJoCo's") {
  const std::string path = WriteModel("mixed.xml", kMixedModel);
  const Agreement a = CompareWithMujoco(path, 500, 11);
  CHECK(a.position < 1e-12);
  CHECK(a.rotation < 1e-12);
  // Ball and free columns go through a finite-difference M (see
  // CompareWithMujoco).
  CHECK(a.jacobian < 1e-8);

  const MjcfFigure mjcf = LoadMjcf(path);
  const Model model = mjcf.figure.Compile();
  CHECK(mjcf.model_name == "mixed");
  // 1 slide + 2 hinges + 2 balls (3 each) + free (6) + spin.
  CHECK(model.nq() == 1 + 2 + 3 + 3 + 6 + 1);
  // Limits are range − ref; degrees converted by MuJoCo.
  const int hip = model.DofIndex("hip");
  CHECK(model.lower()[hip] == Approx(-105.0 * M_PI / 180.0));
  CHECK(model.upper()[hip] == Approx(45.0 * M_PI / 180.0));
  const int rail = model.DofIndex("rail");
  CHECK(model.lower()[rail] == Approx(-0.6));
  CHECK(model.upper()[rail] == Approx(0.4));
  CHECK_FALSE(model.bounded(model.DofIndex("hip_twist")));
  // The limited ball's cone: the inner box [-θ/3, θ/3].
  REQUIRE(mjcf.narrowed_ball_joints == std::vector<std::string>{"wrist"});
  CHECK(model.upper()[model.DofIndex("wrist.1")] == Approx(M_PI / 9.0));
  // Unnamed elements get MuJoCo-id names.
  CHECK_NOTHROW(model.SiteIndex("site2"));
  // Geoms listed with their bodies, fromto compiled by MuJoCo.
  REQUIRE(mjcf.geoms.size() == 2);
  CHECK(mjcf.geoms[0].name == "upper");
  CHECK(mjcf.geoms[0].type == "capsule");
  CHECK(mjcf.geoms[0].link == "arm");
  CHECK(mjcf.geoms[0].size[0] == Approx(0.04));
  CHECK(mjcf.geoms[0].size[1] == Approx(0.25));
  CHECK((mjcf.geoms[0].X_BG.translation() - Eigen::Vector3d(0, 0, 0.25))
            .norm() < 1e-12);
  CHECK(mjcf.geoms[1].type == "box");
  CHECK(mjcf.geoms[1].link == "body3");
}

TEST_CASE("MJCF configurations convert both ways") {
  const std::string path = WriteModel("mixed.xml", kMixedModel);
  Mujoco mj(path);
  const MjcfFigure mjcf = LoadMjcf(path);
  const Model model = mjcf.figure.Compile();
  std::mt19937 rng(5);
  double worst = 0.0;
  for (int t = 0; t < 200; ++t) {
    const Eigen::VectorXd qpos = RandomQpos(*mj.model, rng);
    const Eigen::VectorXd back =
        MjcfQToQpos(mjcf, model, MjcfQposToQ(mjcf, model, qpos));
    // Quaternions come back up to sign (q and −q are one rotation).
    for (int j = 0; j < mj.model->njnt; ++j) {
      const int a = mj.model->jnt_qposadr[j];
      const int type = mj.model->jnt_type[j];
      if (type == mjJNT_HINGE || type == mjJNT_SLIDE) {
        worst = std::max(worst, std::abs(back[a] - qpos[a]));
      } else {
        const int r = type == mjJNT_FREE ? a + 3 : a;
        if (type == mjJNT_FREE) {
          worst = std::max(
              worst, (back.segment<3>(a) - qpos.segment<3>(a)).norm());
        }
        const double dot = back.segment<4>(r).dot(qpos.segment<4>(r));
        worst = std::max(worst, 1.0 - std::abs(dot));
      }
    }
  }
  CHECK(worst < 1e-12);
  // q = 0 is MuJoCo's reference pose qpos0 for hinges and slides.
  const Eigen::VectorXd zero =
      MjcfQToQpos(mjcf, model, Eigen::VectorXd::Zero(model.nq()));
  const int hip = mjcf.joints[1].qpos_address;
  CHECK(mjcf.joints[1].name == "hip");
  CHECK(zero[hip] == Approx(15.0 * M_PI / 180.0));
  CHECK_THROWS_AS(MjcfQposToQ(mjcf, model, Eigen::VectorXd::Zero(3)),
                  std::invalid_argument);
}

TEST_CASE("Shipped MJCF models give the same FK as their URDF twins") {
  struct Pair {
    const char* mjcf;
    const char* urdf;
    const char* base;
    const char* tip;
  };
  const Pair pairs[] = {
      {"panda.xml", "panda.urdf", "panda_link0", "panda_hand"},
      {"iiwa14.xml", "iiwa14.urdf", "base", "iiwa_link_ee"},
      {"gen3.xml", "gen3.urdf", "base_link", "end_effector_link"},
      {"ur5.xml", "ur5.urdf", "base_link", "ee_link"},
  };
  for (const Pair& p : pairs) {
    INFO(p.mjcf);
    const MjcfFigure mjcf = LoadMjcfChain(
        testing::ShippedDataFile(std::string("robots/") + p.mjcf), p.base,
        p.tip);
    const UrdfFigure urdf = LoadUrdfChain(
        testing::ShippedDataFile(std::string("robots/") + p.urdf), p.base,
        p.tip, {});
    const Model a = mjcf.figure.Compile();
    const Model b = urdf.figure.Compile();
    REQUIRE(a.nq() == b.nq());
    for (int i = 0; i < a.nq(); ++i) {
      CHECK(a.dof_name(i) == b.dof_name(i));
      CHECK(a.lower()[i] == b.lower()[i]);
      CHECK(a.upper()[i] == b.upper()[i]);
    }
    Data da(a), db(b);
    std::mt19937 rng(3);
    std::uniform_real_distribution<double> unit(0.0, 1.0);
    double worst = 0.0;
    for (int t = 0; t < 1000; ++t) {
      Eigen::VectorXd q(a.nq());
      for (int i = 0; i < a.nq(); ++i) {
        const double lo = std::max(a.lower()[i], -M_PI);
        const double hi = std::min(a.upper()[i], M_PI);
        q[i] = lo + (hi - lo) * unit(rng);
      }
      ForwardKinematics(a, q, &da);
      ForwardKinematics(b, q, &db);
      const Eigen::Isometry3d X_a = SitePose(a, da, a.SiteIndex(p.tip));
      const Eigen::Isometry3d X_b = SitePose(b, db, b.SiteIndex(p.tip));
      worst = std::max(worst, (X_a.matrix() - X_b.matrix()).cwiseAbs().maxCoeff());
    }
    std::printf("MJCF vs URDF %s: 1000 configurations, max |dX| %.3g\n",
                p.mjcf, worst);
    CHECK(worst < 1e-12);
  }
}

TEST_CASE("MJCF chains: base body to a site or a body; dropped joints") {
  const std::string path = WriteModel("mixed.xml", kMixedModel);
  const MjcfFigure to_site = LoadMjcfChain(path, "arm", "tool");
  const Model a = to_site.figure.Compile();
  CHECK(a.nq() == 6);  // shoulder, wrist
  CHECK_NOTHROW(a.SiteIndex("tool"));
  CHECK(to_site.dropped_joints ==
        std::vector<std::string>{"rail", "hip", "hip_twist", "float", "spin"});
  const MjcfFigure to_body = LoadMjcfChain(path, "world", "rotor");
  const Model b = to_body.figure.Compile();
  CHECK(b.nq() == 7);
  CHECK_NOTHROW(b.SiteIndex("rotor"));      // the tip body's own site
  CHECK_NOTHROW(b.SiteIndex("rotor_tip"));  // the MJCF site on it
}

constexpr char kCoupled[] = R"(<mujoco model="gripper">
  <compiler angle="radian" boundmass="1e-6" boundinertia="1e-12"/>
  <worldbody>
    <body name="palm">
      <body name="left"><joint name="left" type="slide" axis="1 0 0" limited="true" range="0 0.04"/></body>
      <body name="right"><joint name="right" type="slide" axis="-1 0 0" ref="0.01"/></body>
    </body>
  </worldbody>
  <equality><joint joint1="right" joint2="left" polycoef="0.002 -1.5 0 0 0"/></equality>
</mujoco>
)";

TEST_CASE("MJCF joint equalities become mimic relations") {
  const MjcfFigure mjcf = LoadMjcfFromString(kCoupled, "gripper.xml");
  REQUIRE(mjcf.mimics.size() == 1);
  CHECK(mjcf.mimics[0].joint == "right");
  CHECK(mjcf.mimics[0].leader == "left");
  CHECK(mjcf.mimics[0].multiplier == -1.5);
  CHECK(mjcf.mimics[0].offset == 0.002);
  // Chain mode without the follower: nothing to list.
  CHECK(LoadMjcfChain(WriteModel("gripper.xml", kCoupled), "palm", "left")
            .mimics.empty());
}

std::string ReplaceInModel(std::string text, const std::string& from,
                        const std::string& to) {
  const auto at = text.find(from);
  REQUIRE(at != std::string::npos);
  return text.replace(at, from.size(), to);
}

// The message of the std::invalid_argument `f` throws ("" if none).
template <typename F>
std::string LoadErrorMessage(F&& f) {
  try {
    f();
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "";
}

TEST_CASE("MJCF bad input: clear errors naming the file") {
  SECTION("MuJoCo's compiler message and line are passed on") {
    const std::string bad = ReplaceInModel(kCoupled, R"(range="0 0.04")",
                                        R"(rnage="0 0.04")");
    const std::string path = WriteModel("typo.xml", bad);
    const std::string what = LoadErrorMessage([&] { LoadMjcf(path); });
    INFO(what);
    CHECK_THAT(what, Contains(path + ": MuJoCo could not compile the model"));
    CHECK_THAT(what, Contains("rnage"));
    CHECK_THAT(what, Contains("Element 'joint', line 5"));
    CHECK(what.find('\n') == std::string::npos);  // one line
  }
  SECTION("malformed XML") {
    const std::string what = LoadErrorMessage(
        [&] { LoadMjcfFromString("<mujoco><worldbody>", "broken.xml"); });
    INFO(what);
    CHECK_THAT(what, Contains("broken.xml: MuJoCo could not compile"));
  }
  SECTION("missing file") {
    const std::string what =
        LoadErrorMessage([&] { LoadMjcf("/nonexistent/arm.xml"); });
    CHECK_THAT(what, Contains("/nonexistent/arm.xml does not exist"));
  }
  SECTION("unknown base body, unknown tip, tip not below base") {
    const std::string path = WriteModel("gripper.xml", kCoupled);
    CHECK_THAT(LoadErrorMessage([&] { LoadMjcfChain(path, "wrist", "left"); }),
               Contains("unknown base body 'wrist'"));
    CHECK_THAT(LoadErrorMessage([&] { LoadMjcfChain(path, "palm", "finger"); }),
               Contains("unknown tip 'finger': neither a site nor a body"));
    CHECK_THAT(LoadErrorMessage([&] { LoadMjcfChain(path, "left", "right"); }),
               Contains("is not below base body 'left'"));
    MjcfOptions half;
    half.tip = "left";
    CHECK_THAT(LoadErrorMessage([&] { LoadMjcf(path, half); }),
               Contains("needs both a base body and a tip"));
  }
  SECTION("a nonlinear coupling") {
    const std::string bad = ReplaceInModel(kCoupled, "0.002 -1.5 0 0 0",
                                        "0.002 -1.5 0.3 0 0");
    const std::string what =
        LoadErrorMessage([&] { LoadMjcfFromString(bad, "poly.xml"); });
    INFO(what);
    CHECK_THAT(what, Contains("poly.xml: equality 'equality0' couples joint "
                              "'right' to joint 'left' by the polynomial"));
    CHECK_THAT(what, Contains("only linear couplings"));
  }
  SECTION("a locked joint and a closed loop") {
    const std::string locked = ReplaceInModel(kCoupled, R"( joint2="left")", "");
    CHECK_THAT(LoadErrorMessage([&] { LoadMjcfFromString(locked, "lock.xml"); }),
               Contains("locks joint 'right' at a constant"));
    const std::string loop =
        ReplaceInModel(kCoupled, R"(<joint joint1="right" joint2="left" polycoef="0.002 -1.5 0 0 0"/>)",
                    R"(<connect body1="left" body2="right" anchor="0 0 0"/>)");
    CHECK_THAT(LoadErrorMessage([&] { LoadMjcfFromString(loop, "loop.xml"); }),
               Contains("(connect) closes a kinematic loop"));
    // Inactive: ignored.
    const std::string inactive = ReplaceInModel(
        loop, R"(anchor="0 0 0")", R"(anchor="0 0 0" active="false")");
    CHECK_NOTHROW(LoadMjcfFromString(inactive, "inactive.xml"));
  }
}

TEST_CASE("MuJoCo errors throw instead of ending the process") {
  InstallMujocoHandlers();
  // Without the hook MuJoCo would print and call exit(1) here.
  CHECK_THROWS_WITH(mju_error("deliberate"),
                    Contains("MuJoCo error: deliberate"));
  CHECK_THROWS_WITH(mju_error_i("deliberate %d", 7),
                    Contains("MuJoCo error: deliberate 7"));
  // The loader stays usable afterwards.
  CHECK(LoadMjcfFromString(kCoupled, "after.xml").figure.num_joints() > 0);
}

}  // namespace
}  // namespace iklab
