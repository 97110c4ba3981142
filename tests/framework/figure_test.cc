#include "framework/figure.h"

#include <cmath>

#include <catch2/catch.hpp>

#include "framework/model.h"
#include "tests/test_utilities.h"

namespace iklab {
namespace {

using Catch::Contains;

using testing::Revolute;

TEST_CASE("Compile flattens a tree depth-first with parents before children",
          "[framework]") {
  Figure f("torso");
  f.AddJoint(Revolute("l_shoulder", "torso", "l_arm"));
  f.AddJoint(Revolute("r_shoulder", "torso", "r_arm"));
  f.AddJoint(Revolute("l_elbow", "l_arm", "l_forearm"));
  Joint ball = Revolute("neck", "torso", "head");
  ball.kind = JointKind::kSpherical;
  f.AddJoint(ball);
  f.AddSite({"l_hand", "l_forearm", Eigen::Isometry3d::Identity()});
  const Model m = f.Compile();
  REQUIRE(m.nq() == 6);
  REQUIRE(m.num_links() == 5);
  for (int i = 1; i < m.num_steps(); ++i) CHECK(m.parent(i) < i);
  // Depth-first, children in insertion order: the left arm's subtree comes
  // before the right arm.
  CHECK(m.link_name(1) == "l_arm");
  CHECK(m.link_name(2) == "l_forearm");
  CHECK(m.link_name(3) == "r_arm");
  CHECK(m.dof_name(0) == "l_shoulder");
  CHECK(m.dof_name(1) == "l_elbow");
  CHECK(m.dof_name(3) == "neck.0");
  CHECK(m.dof_name(5) == "neck.2");
  CHECK(m.dof_joint(4) == "neck");
  CHECK(m.SiteIndex("l_hand") == 0);
  CHECK(m.link_name(m.LinkIndex("head")) == "head");
}

TEST_CASE("A floating joint gives six coordinates tx ty tz rz ry rx",
          "[framework]") {
  Figure f("world");
  Joint free = Revolute("root", "world", "pelvis");
  free.kind = JointKind::kFloating;
  f.AddJoint(free);
  const Model m = f.Compile();
  REQUIRE(m.nq() == 6);
  CHECK(m.dof_name(0) == "root.tx");
  CHECK(m.dof_name(5) == "root.rx");
  CHECK(m.DofIndex("root.rz") == 3);
}

TEST_CASE("Limits are carried per coordinate; mid-limits handles infinities",
          "[framework]") {
  Figure f("base");
  Joint a = Revolute("a", "base", "l1");
  a.WithLimits(-1.0, 2.0);
  f.AddJoint(a);
  f.AddJoint(Revolute("b", "l1", "l2"));  // continuous
  Joint c = Revolute("c", "l2", "l3");
  c.lower[0] = 0.5;  // lower limit only
  f.AddJoint(c);
  const Model m = f.Compile();
  CHECK(m.lower()[0] == -1.0);
  CHECK(m.upper()[0] == 2.0);
  CHECK(m.bounded(0));
  CHECK_FALSE(m.bounded(1));
  const Eigen::VectorXd mid = m.MidLimits();
  CHECK(mid[0] == 0.5);
  CHECK(mid[1] == 0.0);
  CHECK(mid[2] == 0.5);
  CHECK(m.WithinLimits(Eigen::Vector3d(0, 100, 1)));
  CHECK_FALSE(m.WithinLimits(Eigen::Vector3d(2.1, 0, 1)));
}

TEST_CASE("Mid-limits stay finite for limits near the largest double",
          "[framework]") {
  Figure f("base");
  Joint j = Revolute("a", "base", "l1");
  j.WithLimits(1e308, 1.7e308);
  f.AddJoint(j);
  const Model m = f.Compile();
  CHECK(m.MidLimits()[0] == 1.35e308);
}

TEST_CASE("Invalid figures are rejected with a message naming the culprit",
          "[framework]") {
  Figure f("base");
  f.AddJoint(Revolute("j1", "base", "l1"));

  SECTION("duplicate names") {
    REQUIRE_THROWS_WITH(f.AddJoint(Revolute("j1", "l1", "l2")),
                        "AddJoint: duplicate joint name 'j1'");
    REQUIRE_THROWS_WITH(f.AddLink("l1"), "AddLink: duplicate link name 'l1'");
    f.AddSite({"tip", "l1", Eigen::Isometry3d::Identity()});
    REQUIRE_THROWS_WITH(
        f.AddSite({"tip", "l1", Eigen::Isometry3d::Identity()}),
        "AddSite: duplicate site name 'tip'");
  }
  SECTION("unknown links") {
    REQUIRE_THROWS_WITH(f.AddJoint(Revolute("j2", "nowhere", "l2")),
                        "joint 'j2': unknown parent link 'nowhere'");
    REQUIRE_THROWS_WITH(
        f.AddSite({"tip", "ghost", Eigen::Isometry3d::Identity()}),
        "site 'tip': unknown  link 'ghost'");
  }
  SECTION("zero, non-unit and NaN axes") {
    Joint j = Revolute("j2", "l1", "l2");
    j.axis = Eigen::Vector3d::Zero();
    REQUIRE_THROWS_WITH(f.AddJoint(j),
                        Contains("joint 'j2': axis must be a finite unit "
                                 "vector; got (0, 0, 0)"));
    j.axis = Eigen::Vector3d(0, 0, 10);
    REQUIRE_THROWS_WITH(f.AddJoint(j), Contains("of norm 10"));
    j.axis = Eigen::Vector3d(NAN, 0, 1);
    REQUIRE_THROWS_WITH(f.AddJoint(j), Contains("joint 'j2': axis"));
    j.axis = Eigen::Vector3d::UnitZ();
    j.kind = JointKind::kSpherical;
    j.spherical_axes[1] = Eigen::Vector3d(1, 1, 0);
    REQUIRE_THROWS_WITH(f.AddJoint(j),
                        Contains("joint 'j2': spherical axis must be"));
  }
  SECTION("bad limits") {
    Joint j = Revolute("j2", "l1", "l2");
    j.WithLimits(1.0, -1.0);
    REQUIRE_THROWS_WITH(
        f.AddJoint(j),
        "joint 'j2': limits of coordinate 0 must satisfy lower <= upper and "
        "not be NaN; got [1, -1]");
    j.WithLimits(NAN, 1.0);
    REQUIRE_THROWS_WITH(f.AddJoint(j), Contains("got [nan, 1]"));
  }
  SECTION("non-finite or non-rigid transforms") {
    Joint j = Revolute("j2", "l1", "l2");
    j.X_PJ.translation().x() = INFINITY;
    REQUIRE_THROWS_WITH(f.AddJoint(j),
                        Contains("joint 'j2': X_PJ must be a finite rigid"));
    j.X_PJ = Eigen::Isometry3d::Identity();
    j.X_PJ.linear()(0, 0) = 2.0;
    REQUIRE_THROWS_WITH(f.AddJoint(j), Contains("joint 'j2': X_PJ"));
    Eigen::Isometry3d mirror = Eigen::Isometry3d::Identity();
    mirror.linear()(2, 2) = -1.0;
    REQUIRE_THROWS_WITH(f.AddSite({"s", "l1", mirror}),
                        Contains("site 's': X_LS must be a finite rigid"));
  }
  SECTION("two parents") {
    f.AddLink("l2");
    f.AddJoint(Revolute("j2", "base", "l2"));
    REQUIRE_THROWS_WITH(f.AddJoint(Revolute("j3", "l1", "l2")),
                        "joint 'j3': link 'l2' already has parent joint 'j2' "
                        "(a figure must be a tree)");
  }
  SECTION("the root cannot be a child, a joint cannot be a self-loop") {
    REQUIRE_THROWS_WITH(f.AddJoint(Revolute("j2", "l1", "base")),
                        Contains("child 'base' is the root link"));
    REQUIRE_THROWS_WITH(f.AddJoint(Revolute("j2", "l1", "l1")),
                        Contains("joint 'j2': parent and child are the same"));
  }
  SECTION("a disconnected part") {
    f.AddLink("island");
    REQUIRE_THROWS_WITH(f.Compile(),
                        "figure is not connected: link 'island' has no parent "
                        "joint and is not the root 'base'");
  }
  SECTION("a cycle") {
    f.AddLink("a");
    f.AddLink("b");
    f.AddJoint(Revolute("ab", "a", "b"));
    f.AddJoint(Revolute("ba", "b", "a"));
    REQUIRE_THROWS_WITH(f.Compile(), Contains("figure is not a tree: link 'a' "
                                              "lies on a cycle"));
  }
  SECTION("unknown names in a compiled model") {
    const Model m = f.Compile();
    REQUIRE_THROWS_WITH(m.SiteIndex("hand"),
                        "unknown site 'hand'; the model has none");
    REQUIRE_THROWS_WITH(m.LinkIndex("foot"),
                        "unknown link 'foot'; the model has 'base', 'l1'");
  }
}

TEST_CASE("A copied or assigned figure is independent of its source",
          "[figure]") {
  Figure a("base");
  Joint j;
  j.name = "q0";
  j.parent = "base";
  j.child = "upper";
  a.AddJoint(j);
  Figure b(a);
  Figure c("other");
  c = a;
  a.AddLink("extra");
  CHECK(a.num_links() == 3);
  CHECK(b.num_links() == 2);
  CHECK(c.num_links() == 2);
  CHECK(c.root_link() == "base");
  CHECK(b.num_joints() == 1);
  c = c;  // self-assignment keeps it
  CHECK(c.num_links() == 2);
  CHECK(c.Compile().nq() == 1);
}

}  // namespace
}  // namespace iklab
