// framework/: joints, figures and their builders, DH tables, URDF and BVH
// readers, the compiled Model, Data, forward kinematics and Jacobians.

#include "bindings.h"
#include "framework/builders.h"
#include "framework/bvh_loader.h"
#include "framework/denavit_hartenberg.h"
#include "framework/figure.h"
#include "framework/joint.h"
#include "framework/kinematics.h"
#include "framework/model.h"
#include "framework/urdf_loader.h"

namespace iklab::python {

namespace {

std::shared_ptr<Model> Compile(const Figure& figure) {
  return std::make_shared<Model>(figure.Compile());
}

// Data at a q given from Python (checked: shape (nq,), numeric).
Data Kinematics(const Model& model, VectorNqArg q) {
  return DataAt(model, ToVector(q, "q", model.nq()));
}

void CheckStep(const Data& data, int step) {
  if (step < 0 || step >= data.num_steps()) {
    throw py::value_error("step " + std::to_string(step) + " out of range [0, " +
                          std::to_string(data.num_steps()) + ")");
  }
}

void CheckData(const Model& model, const Data& data) {
  if (data.num_steps() != model.num_steps()) {
    throw py::value_error("data was made for another model (" +
                          std::to_string(data.num_steps()) + " steps, model has " +
                          std::to_string(model.num_steps()) + ")");
  }
}

// Joints, sites and the Figure (the authoring graph).
void BindJointsAndFigure(py::module_& m) {
  py::enum_<JointKind>(m, "JointKind")
      .value("FIXED", JointKind::kFixed)
      .value("REVOLUTE", JointKind::kRevolute)
      .value("PRISMATIC", JointKind::kPrismatic)
      .value("SPHERICAL", JointKind::kSpherical)
      .value("FLOATING", JointKind::kFloating);

  py::class_<Joint>(m, "Joint", "A joint of a Figure (framework/joint.h).")
      .def(py::init([](std::string name, std::string parent, std::string child,
                       JointKind kind, PoseArg X_PJ, Vector3Arg axis,
                       VectorArg lower, VectorArg upper) {
             Joint j;
             j.name = std::move(name);
             j.parent = std::move(parent);
             j.child = std::move(child);
             j.kind = kind;
             if (!X_PJ.is_none()) j.X_PJ = ToPose(X_PJ, "X_PJ");
             if (!axis.is_none()) j.axis = ToVector3(axis, "axis");
             const int n = NumDofs(kind);
             if (!lower.is_none()) {
               const Eigen::VectorXd v = ToVector(lower, "lower", n);
               for (int i = 0; i < n; ++i) j.lower[i] = v[i];
             }
             if (!upper.is_none()) {
               const Eigen::VectorXd v = ToVector(upper, "upper", n);
               for (int i = 0; i < n; ++i) j.upper[i] = v[i];
             }
             return j;
           }),
           py::arg("name"), py::arg("parent"), py::arg("child"),
           py::arg("kind") = JointKind::kRevolute, py::arg("X_PJ") = py::none(),
           py::arg("axis") = py::none(), py::arg("lower") = py::none(),
           py::arg("upper") = py::none())
      .def_readwrite("name", &Joint::name)
      .def_readwrite("parent", &Joint::parent)
      .def_readwrite("child", &Joint::child,
                     "Name of the child link (must exist in the figure).")
      .def_readwrite("kind", &Joint::kind,
                    "How the joint moves (JointKind: FIXED, REVOLUTE, PRISMATIC, SPHERICAL, FLOATING).")
      .def_property_readonly("X_PJ", [](const Joint& j) { return PoseToArray(j.X_PJ); },
                             "Pose of the joint frame J in the parent link frame P (4x4; "
                             "Parent's Lmatrix). Default: identity.")
      .def_property_readonly("axis", [](const Joint& j) { return j.axis; },
                             "Unit axis in J for revolute and prismatic joints. Default: z.");

  py::class_<Site>(m, "Site", "A named frame fixed to a link.")
      .def(py::init([](std::string name, std::string link, PoseArg X_LS) {
             Site s{std::move(name), std::move(link), Eigen::Isometry3d::Identity()};
             if (!X_LS.is_none()) s.X_LS = ToPose(X_LS, "X_LS");
             return s;
           }),
           py::arg("name"), py::arg("link"), py::arg("X_LS") = py::none())
      .def_readwrite("name", &Site::name, "The site's name, unique in the figure.")
      .def_readwrite("link", &Site::link, "Name of the link the site is fixed to.")
      .def_property_readonly("X_LS", [](const Site& s) { return PoseToArray(s.X_LS); },
                             "Pose of the site frame S in the link frame L (4x4). "
                             "Default: identity.");

  py::class_<Figure>(m, "Figure",
                     "The authoring graph of links and joints; compile() gives a Model.")
      .def(py::init<std::string>(), py::arg("root_link") = "base")
      .def("add_link", &Figure::AddLink, py::arg("name"),
           "Adds a link. Raises ValueError if the name is empty or already used.")
      .def("add_joint", &Figure::AddJoint, py::arg("joint"),
           "Adds a Joint between two existing links. Raises ValueError (naming the "
           "joint) for an empty or taken name, an unknown parent or child link, "
           "parent == child, an axis that is zero, not unit length or not finite, an "
           "X_PJ that is not finite or not rigid, or a limit that is NaN or has "
           "lower > upper.")
      .def("add_site", &Figure::AddSite, py::arg("site"),
           "Adds a named Site on an existing link. Raises ValueError for an empty or "
           "taken name, an unknown link, or a non-finite / non-rigid X_LS.")
      .def("add_mimic",
           [](Figure& f, std::string joint, std::string leader, double multiplier,
              double offset) {
             f.AddMimic({std::move(joint), std::move(leader), multiplier, offset});
           },
           py::arg("joint"), py::arg("leader"), py::arg("multiplier") = 1.0,
           py::arg("offset") = 0.0,
           "Declares q[joint] = multiplier * q[leader] + offset: the compiled Model "
           "has no coordinate for `joint` (see Model.full_configuration). Raises "
           "ValueError (naming the joint) for an unknown or not revolute/prismatic "
           "joint, a second relation on a joint, a cycle of mimics, or a zero or "
           "non-finite multiplier.")
      .def("validate", &Figure::Validate,
           "Checks the global structure: exactly one root (the root link), every "
           "other link has exactly one parent joint, no cycle, every link reachable "
           "from the root. Raises ValueError naming the first offending link.")
      .def("compile", &Compile,
           "Validates and flattens the figure into an immutable Model (depth-first "
           "order, children in the order their joints were added).")
      .def_property_readonly("root_link", &Figure::root_link, "Name of the root link.")
      .def_property_readonly("num_links", &Figure::num_links, "Number of links added.")
      .def_property_readonly("num_joints", &Figure::num_joints, "Number of joints added.")
      .def_property_readonly("sites", &Figure::sites, "The sites added, in order (a copy).");
}

// Builders: planar chains, the papers' figures, Tolani limbs, the human
// figure.
void BindBuilders(py::module_& m) {
  m.def("planar_chain",
        [](const std::vector<double>& lengths, Vector2Arg base, const std::string& prefix) {
          return PlanarChain(lengths,
                             base.is_none() ? Eigen::Vector2d::Zero()
                                            : ToVector2(base, "base"),
                             prefix);
        },
        py::arg("lengths"), py::arg("base") = py::none(), py::arg("prefix") = "",
        "A planar serial chain of revolute joints about z with relative angles: joint i "
        "sits at the start of link i, link i has length lengths[i] along its own x axis, "
        "so at q = 0 the chain is stretched along +x from `base` (x, y; default origin).\n\n"
        "Names (with `prefix` prepended): root link 'base' (no prefix); joints and "
        "coordinates 'q0' ... 'q{n-1}'; links 'link0' ... 'link{n-1}'; sites 'joint0' ... "
        "'joint{n}' at each joint position ('joint{n}' is the tip) and 'effector' at the "
        "tip. Joints are unlimited. Returns a Figure.\n\n"
        "Raises ValueError naming the first bad length (each must be finite and > 0), or "
        "if `lengths` is empty or `base` is not finite.");
  m.def("parent_arm", &ParentArm,
        "Parent's three-link planar arm (a Figure): lengths 15, 10, 5, base at the origin "
        "(Parent, Computer Animation, sec. 5.3.2, Fig. 5.20).");
  m.def("soch_chain", &SochChain,
        "Soch & Lorencz's six-link planar test chain (Fig. 4), a Figure: lengths 90, 60, "
        "90, 150, 150, 90, base at (-230, 0), so q = 0 puts the effector at (400, 0).");
  m.def("nlp_branched_figure", &NlpBranchedFigure, py::arg("num_effectors"),
        py::arg("link_length") = 1.0,
        "The planar branched figure with 2, 3 or 4 end effectors of the nonlinear-"
        "programming IK paper (framework/builders.h), every link `link_length` long "
        "(finite, > 0; default 1). Raises ValueError for another count or a bad length.");
  py::enum_<Side>(m, "Side").value("LEFT", Side::kLeft).value("RIGHT", Side::kRight);
  py::class_<Anthropometry>(m, "Anthropometry")
      .def(py::init([](double height, double carrying_angle) {
             return Anthropometry{height, carrying_angle};
           }),
           py::arg("height") = 1.75, py::arg("carrying_angle") = 0.17453292519943295)
      .def_readwrite("height", &Anthropometry::height)
      .def_readwrite("carrying_angle", &Anthropometry::carrying_angle)
      .def("__repr__", [](const Anthropometry& a) {
        return "Anthropometry(height=" + py::repr(py::float_(a.height)).cast<std::string>() +
               ", carrying_angle=" +
               py::repr(py::float_(a.carrying_angle)).cast<std::string>() + ")";
      });
  py::class_<LimbGeometry>(m, "LimbGeometry",
                           "The Tolani limb geometry (framework/builders.h).")
      .def_readwrite("side", &LimbGeometry::side,
                    "Body side of the limb (Side.LEFT or Side.RIGHT; right limbs mirror left ones in the sagittal x-z plane).")
      .def_readwrite("kind", &LimbGeometry::kind)
      .def_readwrite("upper_length", &LimbGeometry::upper_length)
      .def_readwrite("lower_length", &LimbGeometry::lower_length)
      .def_readwrite("lower", &LimbGeometry::lower)
      .def_readwrite("upper", &LimbGeometry::upper,
                     "Upper limits of theta1 ... theta7 (radians, 7 values).")
      .def_readwrite("tip_site_name", &LimbGeometry::tip_site_name);
  m.def("tolani_arm_geometry", &TolaniArmGeometry, py::arg("side") = Side::kLeft,
        py::arg("body") = Anthropometry{},
        "The LimbGeometry of a human arm (Tolani, Goswami & Badler 2000, sec. 3) scaled "
        "by body.height, with AAOS joint limits for theta1 ... theta7 (radians); right "
        "limbs mirror left ones in the sagittal x-z plane.");
  m.def("tolani_leg_geometry", &TolaniLegGeometry, py::arg("side") = Side::kLeft,
        py::arg("body") = Anthropometry{},
        "The LimbGeometry of a human leg (Tolani, Goswami & Badler 2000) scaled by "
        "body.height, with AAOS joint limits for theta1 ... theta7 (radians).");
  m.def("limb_figure", &LimbFigure, py::arg("geometry"),
        "The 7-DOF limb Figure of a LimbGeometry: spherical S1 (theta1..3), revolute F "
        "(theta4), spherical S2 (theta5..7), so q = (theta1, ..., theta7). Sites "
        "'shoulder'/'hip' at S1, 'elbow'/'knee' at F, 'wrist'/'ankle' at S2's distal "
        "frame and 'hand'/'foot' at the distal tip.");
  m.def("tolani_arm", &TolaniArm, py::arg("side") = Side::kLeft,
        py::arg("body") = Anthropometry{},
        "limb_figure(tolani_arm_geometry(side, body)).");
  m.def("tolani_leg", &TolaniLeg, py::arg("side") = Side::kLeft,
        py::arg("body") = Anthropometry{},
        "limb_figure(tolani_leg_geometry(side, body)).");
  m.def("human_figure",
        [](const Anthropometry& body, bool floating_root, bool clavicles) {
          return HumanFigure({body, floating_root, clavicles});
        },
        py::arg("body") = Anthropometry{}, py::arg("floating_root") = true,
        py::arg("clavicles") = true,
        "The whole human Figure (framework/builders.h): pelvis root (6-DOF floating when "
        "floating_root, else fixed), a three-joint spine, neck and head, clavicles (when "
        "clavicles), and per side the 7-DOF arm and leg of tolani_arm_geometry / "
        "tolani_leg_geometry, scaled by body.height (metres). Limb names carry "
        "'left_'/'right_' (joint 'left_shoulder', coordinates 'left_shoulder.0'); sites "
        "'pelvis', 'neck', 'head' and per side '_shoulder', '_elbow', '_wrist', '_hand', "
        "'_hip', '_knee', '_ankle', '_foot'.");
  m.def("human_end_effector_sites", &HumanEndEffectorSites,
        "Names of the end-effector sites of human_figure: both hands, both feet and the "
        "head.");
}

// Denavit-Hartenberg tables.
void BindDenavitHartenberg(py::module_& m) {
  py::enum_<DhConvention>(m, "DhConvention")
      .value("CLASSIC", DhConvention::kClassic)
      .value("MODIFIED", DhConvention::kModified);
  py::class_<DhRow>(m, "DhRow")
      .def(py::init([](double a, double alpha, double d, double theta, JointKind kind,
                       double lower, double upper, std::string name) {
             DhRow r;
             r.a = a; r.alpha = alpha; r.d = d; r.theta = theta; r.kind = kind;
             r.lower = lower; r.upper = upper; r.name = std::move(name);
             return r;
           }),
           py::arg("a") = 0.0, py::arg("alpha") = 0.0, py::arg("d") = 0.0,
           py::arg("theta") = 0.0, py::arg("kind") = JointKind::kRevolute,
           py::arg("lower") = -kInfinity, py::arg("upper") = kInfinity,
           py::arg("name") = "")
      .def_readwrite("a", &DhRow::a)
      .def_readwrite("alpha", &DhRow::alpha)
      .def_readwrite("d", &DhRow::d)
      .def_readwrite("theta", &DhRow::theta)
      .def_readwrite("kind", &DhRow::kind)
      .def_readwrite("lower", &DhRow::lower)
      .def_readwrite("upper", &DhRow::upper)
      .def_readwrite("name", &DhRow::name);
  m.def("denavit_hartenberg_figure",
        [](const std::vector<DhRow>& rows, DhConvention convention, PoseArg X_base,
           PoseArg X_tool) {
          DhTable table;
          table.rows = rows;
          table.convention = convention;
          if (!X_base.is_none()) table.X_base = ToPose(X_base, "X_base");
          if (!X_tool.is_none()) table.X_tool = ToPose(X_tool, "X_tool");
          return DenavitHartenbergFigure(table);
        },
        py::arg("rows"), py::arg("convention") = DhConvention::kClassic,
        py::arg("X_base") = py::none(), py::arg("X_tool") = py::none(),
        "A Figure from a Denavit-Hartenberg table: one joint per DhRow in `convention`, "
        "X_base before the first row and X_tool after the last (poses; default identity). "
        "Raises ValueError for a bad row (non-finite parameter or limit, lower > upper), "
        "an empty table or a non-rigid X_base / X_tool.");
  m.def("dh_transform",
        [](const DhRow& row, DhConvention convention, double q) {
          return PoseToArray(DhTransform(row, convention, q));
        },
        py::arg("row"), py::arg("convention"), py::arg("q"),
        "The 4x4 transform of one DH row at joint value q (revolute: theta + q, "
        "prismatic: d + q) in the given convention. Raises ValueError as "
        "denavit_hartenberg_figure for a bad row.");
}

// URDF.
void BindUrdf(py::module_& m) {
  py::enum_<UrdfMimicPolicy>(m, "UrdfMimicPolicy")
      .value("ENFORCE", UrdfMimicPolicy::kEnforce)
      .value("INDEPENDENT", UrdfMimicPolicy::kIndependent)
      .value("REJECT", UrdfMimicPolicy::kReject);
  py::enum_<UrdfSoftLimits>(m, "UrdfSoftLimits")
      .value("NARROW", UrdfSoftLimits::kNarrow)
      .value("IGNORE", UrdfSoftLimits::kIgnore);
  py::class_<UrdfMimic>(m, "UrdfMimic")
      .def_readonly("joint", &UrdfMimic::joint,
                    "Name of the mimic joint: q[joint] = multiplier * q[leader] + offset.")
      .def_readonly("leader", &UrdfMimic::leader, "Name of the joint it follows.")
      .def_readonly("multiplier", &UrdfMimic::multiplier,
                    "The multiplier of q[joint] = multiplier * q[leader] + offset.")
      .def_readonly("offset", &UrdfMimic::offset,
                    "The offset of q[joint] = multiplier * q[leader] + offset (radians or length units).");
  py::class_<UrdfFigure>(m, "UrdfFigure")
      .def_readonly("figure", &UrdfFigure::figure, "The loaded Figure (a copy).")
      .def_readonly("robot_name", &UrdfFigure::robot_name)
      .def_readonly("source", &UrdfFigure::source)
      .def_readonly("mimics", &UrdfFigure::mimics,
                    "The mimic relations (UrdfMimic) of mimic joints in the loaded figure "
                    "(enforced by the figure unless loaded with mimic=INDEPENDENT).")
      .def_readonly("dropped_joints", &UrdfFigure::dropped_joints)
      .def_readonly("soft_limited_joints", &UrdfFigure::soft_limited_joints)
      .def("compile", [](const UrdfFigure& u) { return Compile(u.figure); },
           "figure.compile(): the Model.");
  const auto urdf_options = [](std::string base_link, std::string tip_link,
                               std::vector<std::string> site_links,
                               UrdfMimicPolicy mimic, UrdfSoftLimits soft_limits) {
    UrdfOptions o;
    o.base_link = std::move(base_link);
    o.tip_link = std::move(tip_link);
    o.site_links = std::move(site_links);
    o.mimic = mimic;
    o.soft_limits = soft_limits;
    return o;
  };
  m.def("load_urdf",
        [urdf_options](const std::string& path, std::string base_link,
                       std::string tip_link, std::vector<std::string> site_links,
                       UrdfMimicPolicy mimic, UrdfSoftLimits soft_limits) {
          return LoadUrdf(path, urdf_options(std::move(base_link), std::move(tip_link),
                                             std::move(site_links), mimic, soft_limits));
        },
        py::arg("path"), py::arg("base_link") = "", py::arg("tip_link") = "",
        py::arg("site_links") = std::vector<std::string>{},
        py::arg("mimic") = UrdfMimicPolicy::kEnforce,
        py::arg("soft_limits") = UrdfSoftLimits::kNarrow,
        "Reads a URDF file; base_link/tip_link cut out a chain (the tip gets a "
        "site named after it).");
  m.def("load_urdf_from_string",
        [urdf_options](const std::string& xml, const std::string& source_name,
                       std::string base_link, std::string tip_link,
                       std::vector<std::string> site_links, UrdfMimicPolicy mimic,
                       UrdfSoftLimits soft_limits) {
          return LoadUrdfFromString(
              xml, source_name,
              urdf_options(std::move(base_link), std::move(tip_link),
                           std::move(site_links), mimic, soft_limits));
        },
        py::arg("xml"), py::arg("source_name") = "<string>", py::arg("base_link") = "",
        py::arg("tip_link") = "", py::arg("site_links") = std::vector<std::string>{},
        py::arg("mimic") = UrdfMimicPolicy::kEnforce,
        py::arg("soft_limits") = UrdfSoftLimits::kNarrow,
        "load_urdf from XML text; source_name names it in error messages.");
}

// BVH.
void BindBvh(py::module_& m) {
  py::class_<BvhJoint>(m, "BvhJoint")
      .def_readonly("name", &BvhJoint::name, "The joint's name in the file.")
      .def_readonly("parent", &BvhJoint::parent)
      .def_readonly("offset", &BvhJoint::offset,
                    "OFFSET: the joint's position in its parent's frame (file units).")
      .def_readonly("first_channel", &BvhJoint::first_channel)
      .def_readonly("num_channels", &BvhJoint::num_channels,
                    "Number of its channels (those from first_channel on in BvhFigure.channels).")
      .def_readonly("end_sites", &BvhJoint::end_sites);
  py::class_<BvhChannel>(m, "BvhChannel")
      .def_readonly("joint", &BvhChannel::joint)
      .def_property_readonly("type",
                             [](const BvhChannel& c) { return BvhChannelName(c.type); },
                             "The channel's name in the file: 'Xposition', ..., 'Zrotation'.")
      .def_readonly("q_index", &BvhChannel::q_index);
  py::class_<BvhFigure>(m, "BvhFigure")
      .def_readonly("figure", &BvhFigure::figure, "The skeleton as a Figure (a copy).")
      .def_readonly("source", &BvhFigure::source)
      .def_readonly("root_link", &BvhFigure::root_link)
      .def_readonly("joints", &BvhFigure::joints)
      .def_readonly("channels", &BvhFigure::channels)
      .def_readonly("frame_time", &BvhFigure::frame_time)
      .def_readonly("poses", &BvhFigure::poses,
                    "The motion frames: one configuration q per row (frames x nq).")
      .def_property_readonly("num_frames", &BvhFigure::num_frames,
                             "Number of motion frames (rows of poses).")
      .def("compile", [](const BvhFigure& b) { return Compile(b.figure); },
           "figure.compile(): the Model.");
  m.def("load_bvh", &LoadBvh, py::arg("path"),
        "Reads a BVH motion-capture file into a BvhFigure (skeleton and motion). Raises "
        "ValueError naming the file and line for a malformed file.");
  m.def("load_bvh_from_string", &LoadBvhFromString, py::arg("text"),
        py::arg("source_name") = "<string>",
        "load_bvh from text; source_name names it in error messages.");
}

// Model: the compiled figure, with FK and Jacobians at a q.
void BindModel(py::module_& m) {
  py::class_<Model, std::shared_ptr<Model>>(
      m, "Model",
      "The compiled, immutable kinematic model (flat arrays in depth-first order).")
      .def_property_readonly("nq", &Model::nq,
                             "Number of free coordinates (the length of q); a mimic "
                             "joint has none of its own.")
      .def_property_readonly("num_steps", &Model::num_steps)
      .def_property_readonly("num_sites", &Model::num_sites, "Number of sites.")
      .def_property_readonly("num_links", &Model::num_links, "Number of links.")
      .def_property_readonly("lower", &Model::lower,
                             "Lower joint limit per coordinate (nq values; radians or "
                             "length units; -inf where unbounded).")
      .def_property_readonly("upper", &Model::upper,
                             "Upper joint limit per coordinate (nq values; inf where "
                             "unbounded).")
      .def_property_readonly("dof_names", [](const Model& model) {
        std::vector<std::string> names;
        for (int i = 0; i < model.nq(); ++i) names.push_back(model.dof_name(i));
        return names;
      }, "Name of each coordinate: the joint name, with '.0/.1/.2' (spherical) or "
         "'.tx/.ty/.tz/.rz/.ry/.rx' (floating) for multi-DOF joints.")
      .def_property_readonly("has_mimics", &Model::has_mimics,
                             "True if some joint mimics another (then nq_full > nq).")
      .def_property_readonly("nq_full", &Model::nq_full,
                             "Length of the full joint vector: nq plus one per mimic "
                             "joint.")
      .def_property_readonly("full_dof_names", [](const Model& model) {
        std::vector<std::string> names;
        for (int i = 0; i < model.nq_full(); ++i) {
          names.push_back(model.full_dof_name(i));
        }
        return names;
      }, "Name of each entry of the full joint vector (every joint, mimics included).")
      .def_property_readonly("full_lower", &Model::full_lower,
                             "Each joint's own lower limit (nq_full values).")
      .def_property_readonly("full_upper", &Model::full_upper,
                             "Each joint's own upper limit (nq_full values).")
      .def("full_configuration",
           [](const Model& model, VectorNqArg q) {
             return model.FullConfiguration(ToVector(q, "q", model.nq()));
           },
           py::arg("q"),
           "The full joint vector (nq_full values, named by full_dof_names) of the "
           "free coordinates q: each mimic joint as multiplier * q[leader] + offset.")
      .def_property_readonly("site_names", [](const Model& model) {
        std::vector<std::string> names;
        for (int i = 0; i < model.num_sites(); ++i) names.push_back(model.site_name(i));
        return names;
      }, "Site names, by site index.")
      .def_property_readonly("link_names", [](const Model& model) {
        std::vector<std::string> names;
        for (int i = 0; i < model.num_links(); ++i) names.push_back(model.link_name(i));
        return names;
      }, "Link names, by link index (depth-first order).")
      .def("parent",
           [](const Model& model, int step) {
             if (step < 0 || step >= model.num_steps()) {
               throw py::value_error("step " + std::to_string(step) + " out of range [0, " +
                                     std::to_string(model.num_steps()) + ")");
             }
             return model.parent(step);
           },
           py::arg("step"),
           "Parent step of `step` (parent < step; -1 for the root step 0). Raises "
           "ValueError for a step outside [0, num_steps).")
      .def("site_index", &Model::SiteIndex, py::arg("name"),
           "Index of a site by name. Raises ValueError naming the site and listing the "
           "known ones.")
      .def("link_index", &Model::LinkIndex, py::arg("name"),
           "Index of a link by name. Raises ValueError if unknown.")
      .def("dof_index", &Model::DofIndex, py::arg("name"),
           "Index into q of a coordinate by its dof_names entry. Raises ValueError if "
           "unknown.")
      .def("mid_limits", &Model::MidLimits,
           "Middle of the limits per coordinate (nq values); 0 where a side is unbounded.")
      .def("within_limits",
           [](const Model& model, VectorNqArg q, double tolerance) {
             return model.WithinLimits(ToVector(q, "q", model.nq()), tolerance);
           },
           py::arg("q"), py::arg("tolerance") = 0.0,
           "True if every coordinate of q lies within [lower, upper] up to `tolerance`.")
      .def("forward_kinematics", &Kinematics, py::arg("q"),
           "Data holding every frame's world pose at q.")
      .def("site_pose",
           [](const Model& model, VectorNqArg q, SiteArg site) {
             const int s = SiteOf(model, site);
             return PoseToArray(SitePose(model, Kinematics(model, q), s));
           },
           py::arg("q"), py::arg("site"), "X_WS as a 4x4 array.")
      .def("site_position_quaternion",
           [](const Model& model, VectorNqArg q, SiteArg site) {
             const int s = SiteOf(model, site);
             return PoseToPositionQuaternion(SitePose(model, Kinematics(model, q), s));
           },
           py::arg("q"), py::arg("site"), "X_WS as (position, quaternion w x y z).")
      .def("site_jacobian",
           [](const Model& model, VectorNqArg q, SiteArg site) {
             const int s = SiteOf(model, site);
             Matrix6Xd J(6, model.nq());
             SiteJacobian(model, Kinematics(model, q), s, J);
             return J;
           },
           py::arg("q"), py::arg("site"),
           "J_WS (6 x nq): rows 0-2 linear, 3-5 angular velocity of the site.");
}

// Data and the FK / Jacobian functions that fill or read it.
void BindDataAndKinematics(py::module_& m) {
  py::class_<Data>(m, "Data", "The per-solve workspace of world poses (one per thread).")
      .def(py::init<const Model&>(), py::arg("model"))
      .def_property_readonly("num_steps", &Data::num_steps,
                             "Number of steps (frames) of the model it was made for.")
      .def("X_W",
           [](const Data& data, int step) {
             CheckStep(data, step);
             return PoseToArray(data.X_W(step));
           },
           py::arg("step"),
           "World pose (4x4) of step `step`, valid after forward_kinematics. Raises "
           "ValueError for a step outside [0, num_steps).");

  m.def("forward_kinematics",
        [](const Model& model, VectorNqArg q, Data* data) {
          CheckData(model, *data);
          ForwardKinematics(model, ToVector(q, "q", model.nq()), data);
        },
        py::arg("model"), py::arg("q"), py::arg("data"),
        "Fills data with the world poses at q (in place).");
  m.def("site_pose",
        [](const Model& model, const Data& data, SiteArg site) {
          CheckData(model, data);
          return PoseToArray(SitePose(model, data, SiteOf(model, site)));
        },
        py::arg("model"), py::arg("data"), py::arg("site"),
        "World pose X_WS (4x4) of a site (name or index) from data filled by "
        "forward_kinematics. Raises ValueError for an unknown site or data made for "
        "another model.");
  m.def("site_position",
        [](const Model& model, const Data& data, SiteArg site) {
          CheckData(model, data);
          return SitePosition(model, data, SiteOf(model, site));
        },
        py::arg("model"), py::arg("data"), py::arg("site"),
        "World position p_WS (3 values) of a site's origin from data filled by "
        "forward_kinematics.");
  m.def("link_pose",
        [](const Model& model, const Data& data, int link) {
          CheckData(model, data);
          if (link < 0 || link >= model.num_links()) {
            throw py::value_error("link " + std::to_string(link) + " out of range");
          }
          return PoseToArray(LinkPose(model, data, link));
        },
        py::arg("model"), py::arg("data"), py::arg("link"),
        "World pose (4x4) of link frame `link` (an index, see link_index) from data "
        "filled by forward_kinematics. Raises ValueError for an index out of range.");
  m.def("site_jacobian",
        [](const Model& model, const Data& data, SiteArg site) {
          CheckData(model, data);
          Matrix6Xd J(6, model.nq());
          SiteJacobian(model, data, SiteOf(model, site), J);
          return J;
        },
        py::arg("model"), py::arg("data"), py::arg("site"),
        "Geometric Jacobian J_WS (6 x nq) of a site in the world frame at its origin: "
        "rows 0-2 linear, 3-5 angular velocity, [v; w] = J qdot.");
  m.def("site_position_jacobian",
        [](const Model& model, const Data& data, SiteArg site) {
          CheckData(model, data);
          Eigen::Matrix3Xd J(3, model.nq());
          SitePositionJacobian(model, data, SiteOf(model, site), J);
          return J;
        },
        py::arg("model"), py::arg("data"), py::arg("site"),
        "Position Jacobian (3 x nq) of a site: the linear rows of site_jacobian.");
  m.def("point_jacobian",
        [](const Model& model, const Data& data, int step, Vector3Arg p_WQ) {
          CheckData(model, data);
          CheckStep(data, step);
          Eigen::Matrix3Xd J(3, model.nq());
          PointJacobian(model, data, step, ToVector3(p_WQ, "p_WQ"), J);
          return J;
        },
        py::arg("model"), py::arg("data"), py::arg("step"), py::arg("p_WQ"),
        "Position Jacobian (3 x nq) of a point Q fixed on step `step`, given by its "
        "world position p_WQ (3 values). Raises ValueError for a step outside "
        "[0, num_steps).");
}

}  // namespace

void BindFramework(py::module_& m) {
  BindJointsAndFigure(m);
  BindBuilders(m);
  BindDenavitHartenberg(m);
  BindUrdf(m);
  BindBvh(m);
  BindModel(m);
  BindDataAndKinematics(m);
}

}  // namespace iklab::python
