// Studies (lab/study.h) from Python: the records, summaries and results of a
// run, and a Study whose scenario, solver factories, accept test and claims
// may be Python callables.
//
// The study's solves run on its worker threads without the GIL; each Python
// callable is called with the GIL taken around that call only
// (py::gil_scoped_acquire in the wrappers below), so the solves of other
// trials go on meanwhile. What a callable raises stops the study (RunStudy
// stops handing out work and rethrows on the calling thread) and reaches
// Python as a RuntimeError naming the callable and the trial, raised from
// the callable's own exception.

#include <cmath>
#include <cstdint>
#include <filesystem>
#include <limits>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "bindings.h"
#include "lab/experiment.h"
#include "lab/html_report.h"
#include "lab/report.h"
#include "lab/study.h"

namespace iklab::python {

namespace {

// A Python object kept by C++ code that runs without the GIL: copies share
// it (copying a shared_ptr touches no Python reference count), and the last
// copy releases it with the GIL taken.
using HeldPyObject = std::shared_ptr<const py::object>;

HeldPyObject HoldPyObject(py::object object) {
  return HeldPyObject(new py::object(std::move(object)),
                      [](const py::object* held) {
                        py::gil_scoped_acquire gil;
                        delete held;
                      });
}

// What a study's Python callable raised, as a C++ exception that may cross
// the worker threads and the GIL-free run: the message names the callable
// and the trial; `cause` is the Python exception (empty when the callable
// returned something unusable rather than raising).
class StudyCallbackError : public std::runtime_error {
 public:
  StudyCallbackError(const std::string& message, HeldPyObject cause)
      : std::runtime_error(message), cause_(std::move(cause)) {}
  const HeldPyObject& cause() const { return cause_; }

 private:
  HeldPyObject cause_;
};

// "scenario 'my_scenario'": the callable's role and its Python name.
std::string CallbackName(const std::string& role, const py::object& callable) {
  const py::object name = py::getattr(callable, "__qualname__", py::none());
  return role + " '" +
         std::string(py::str(name.is_none() ? py::repr(callable) : name)) + "'";
}

std::string TypeNameOf(py::handle object) {
  return py::str(py::type::of(object).attr("__name__"));
}

// Calls `call` (which calls the Python callable and converts its answer)
// with the GIL held; what it raises becomes a StudyCallbackError whose
// message starts with `what` ("study 'x': scenario 'f' at trial 3").
template <typename Call>
auto CallWithGil(const std::string& what, Call&& call) -> decltype(call()) {
  py::gil_scoped_acquire gil;
  try {
    return call();
  } catch (py::error_already_set& e) {
    throw StudyCallbackError(what + " raised " + TypeNameOf(e.value()) + ": " +
                                 std::string(py::str(e.value())),
                             HoldPyObject(e.value()));
  } catch (const StudyCallbackError&) {
    throw;
  } catch (const std::exception& e) {  // an answer of the wrong type or shape
    throw StudyCallbackError(what + ": " + e.what(), nullptr);
  }
}

// Runs `body` without the GIL; a StudyCallbackError becomes a RuntimeError
// with its message, raised from the callable's exception (its __cause__).
template <typename Body>
auto RunWithoutGil(Body&& body) -> decltype(body()) {
  try {
    py::gil_scoped_release release;
    return body();
  } catch (const StudyCallbackError& e) {
    if (e.cause()) {
      PyErr_SetObject(reinterpret_cast<PyObject*>(Py_TYPE(e.cause()->ptr())),
                      e.cause()->ptr());
      py::raise_from(PyExc_RuntimeError, e.what());
    } else {
      PyErr_SetString(PyExc_RuntimeError, e.what());
    }
    throw py::error_already_set();
  }
}

// What a Python scenario is given: TrialContext with the trial's generator
// as a NumPy Generator.
struct PythonTrialContext {
  std::shared_ptr<Model> model;
  int index = 0;
  Eigen::VectorXd start;
  py::object rng;
};

// A StudySolver's solver made in Python: the Python object may go (it holds
// a shared_ptr to the same C++ solver), the study owns a unique_ptr.
class SharedSolver final : public Solver {
 public:
  explicit SharedSolver(std::shared_ptr<const Solver> solver)
      : solver_(std::move(solver)) {}
  std::string name() const override { return solver_->name(); }
  Result Solve(const Problem& problem,
               const Eigen::VectorXd& q0) const override {
    return solver_->Solve(problem, q0);
  }
  void Prepare(const Problem& problem) const override {
    solver_->Prepare(problem);
  }

 private:
  std::shared_ptr<const Solver> solver_;
};

// A scenario's answer as a Trial: a Problem (start per Study.start) or a
// Trial, posed on the study's model.
Trial TrialFromPython(const py::object& made,
                      const std::shared_ptr<const Model>& model) {
  Trial trial(model);
  if (py::isinstance<Problem>(made)) {
    trial.problem = made.cast<const Problem&>();
  } else if (py::isinstance<Trial>(made)) {
    trial = made.cast<const Trial&>();
  } else {
    throw std::invalid_argument("must return an iklab.Problem or an iklab.Trial, got " +
                                TypeNameOf(made));
  }
  if (trial.problem.shared_model() != model) {
    throw std::invalid_argument(
        "returned a problem posed on another model (pose it on context.model)");
  }
  return trial;
}

Scenario PythonScenario(const std::string& study, const py::object& scenario) {
  const std::string what = "study '" + study + "': " + CallbackName("scenario", scenario);
  return [what, held = HoldPyObject(scenario)](const TrialContext& context) {
    // The NumPy generator's seed is the trial's first draw: it depends on
    // (study seed, trial index) alone, like the C++ scenarios' draws.
    const std::uint64_t seed = (*context.rng)();
    return CallWithGil(what + " at trial " + std::to_string(context.index), [&] {
      PythonTrialContext python_context{
          std::const_pointer_cast<Model>(context.model), context.index, context.start,
          py::module_::import("numpy.random").attr("default_rng")(seed)};
      return TrialFromPython((*held)(py::cast(std::move(python_context))), context.model);
    });
  };
}

StudySolver PythonStudySolver(std::string label, const py::object& make,
                              int attempts, int max_trials) {
  if (label.empty()) throw std::invalid_argument("StudySolver: label must not be empty");
  if (!PyCallable_Check(make.ptr())) {
    throw py::type_error("StudySolver '" + label + "': make must be callable, got " +
                         TypeNameOf(make));
  }
  const std::string what = "solver factory " + CallbackName("'" + label + "'", make);
  StudySolver solver;
  solver.label = std::move(label);
  solver.attempts = attempts;
  solver.max_trials = max_trials;
  solver.make = [what, held = HoldPyObject(make)](const SolveOptions& common,
                                                  const Trial& trial) {
    std::shared_ptr<Solver> made =
        CallWithGil(what + " at trial " + std::to_string(trial.index), [&] {
          // Copies: the callable may keep what it is given.
          const py::object answer = (*held)(py::cast(common, py::return_value_policy::copy),
                                            py::cast(trial, py::return_value_policy::copy));
          if (!py::isinstance<Solver>(answer)) {
            throw std::invalid_argument(
                "must return an iklab solver (e.g. iklab.BoundedLmSolver(common=common)), got " +
                TypeNameOf(answer));
          }
          return answer.cast<std::shared_ptr<Solver>>();
        });
    return std::unique_ptr<Solver>(std::make_unique<SharedSolver>(std::move(made)));
  };
  return solver;
}

std::function<bool(const StudyRecord&)> PythonAccept(const std::string& study,
                                                     const py::object& accept) {
  const std::string what = "study '" + study + "': " + CallbackName("accept", accept);
  return [what, held = HoldPyObject(accept)](const StudyRecord& record) {
    return CallWithGil(what + " at trial " + std::to_string(record.trial), [&] {
      const py::object answer = (*held)(py::cast(record, py::return_value_policy::copy));
      if (answer.is_none()) throw std::invalid_argument("must return a bool, got None");
      return py::bool_(answer).cast<bool>();
    });
  };
}

std::function<void(const StudyResult&, ExperimentOutput*)> PythonClaims(
    const std::string& study, const py::object& claims) {
  const std::string what = "study '" + study + "': " + CallbackName("claims", claims);
  return [what, held = HoldPyObject(claims)](const StudyResult& result,
                                             ExperimentOutput* out) {
    const std::vector<Claim> made = CallWithGil(what, [&] {
      // The result's own Python object when it has one (Study.write_report).
      const py::object answer =
          (*held)(py::cast(&result, py::return_value_policy::reference));
      if (answer.is_none() || !py::isinstance<py::iterable>(answer)) {
        throw std::invalid_argument("must return a list of iklab.Claim, got " +
                                    TypeNameOf(answer));
      }
      std::vector<Claim> list;
      for (py::handle item : answer) {
        if (!py::isinstance<Claim>(item)) {
          throw std::invalid_argument("must return a list of iklab.Claim, got an item of type " +
                                      TypeNameOf(item));
        }
        list.push_back(item.cast<Claim>());
      }
      return list;
    });
    for (const Claim& claim : made) out->AddClaim(claim);
  };
}

// A study as Python sets it up: the C++ Study without its callables, and
// the Python callables (None when not given), wrapped when it runs.
struct PythonStudy {
  Study study;
  py::object scenario = py::none();
  py::object accept = py::none();
  py::object claims = py::none();

  // The C++ study with the callables wrapped. Call with the GIL held.
  Study Prepared() const {
    Study prepared = study;
    if (!scenario.is_none()) prepared.scenario = PythonScenario(study.name, scenario);
    if (!accept.is_none()) prepared.accept = PythonAccept(study.name, accept);
    if (!claims.is_none()) prepared.claims = PythonClaims(study.name, claims);
    return prepared;
  }
};

void CheckCallableOrNone(const py::object& object, const char* name) {
  if (!object.is_none() && !PyCallable_Check(object.ptr())) {
    throw py::type_error(std::string("Study.") + name + " must be callable or None, got " +
                         TypeNameOf(object));
  }
}

std::vector<StudySolver> StudySolversFrom(const py::iterable& solvers) {
  std::vector<StudySolver> out;
  for (py::handle item : solvers) {
    if (py::isinstance<py::str>(item)) {
      out.push_back(Solvers({item.cast<std::string>()}).front());
    } else if (py::isinstance<StudySolver>(item)) {
      out.push_back(item.cast<StudySolver>());
    } else {
      throw py::type_error("Study.solvers: each entry must be a registered solver name "
                           "(str) or an iklab.StudySolver, got " + TypeNameOf(item));
    }
  }
  return out;
}

// The per-solve numbers of a result as NumPy columns, named and ordered as
// trials.csv (lab/study_outputs.cc) except that `solver` is the index into
// summaries, `status` the SolveStatus value, and q0/q are (N, nq) arrays.
py::dict StudyColumns(const StudyResult& result) {
  const auto n = static_cast<py::ssize_t>(result.records.size());
  py::dict columns;
  auto integers = [&](const char* name, auto field) {
    py::array_t<std::int32_t> a(n);
    for (py::ssize_t i = 0; i < n; ++i) a.mutable_at(i) = field(result.records[i]);
    columns[name] = a;
  };
  auto flags = [&](const char* name, auto field) {
    py::array_t<bool> a(n);
    for (py::ssize_t i = 0; i < n; ++i) a.mutable_at(i) = field(result.records[i]);
    columns[name] = a;
  };
  auto numbers = [&](const std::string& name, auto field) {
    py::array_t<double> a(n);
    for (py::ssize_t i = 0; i < n; ++i) a.mutable_at(i) = field(result.records[i]);
    columns[py::str(name)] = a;
  };
  const double nan = std::numeric_limits<double>::quiet_NaN();
  integers("solver", [](const StudyRecord& r) { return r.solver; });
  integers("trial", [](const StudyRecord& r) { return r.trial; });
  integers("frame", [](const StudyRecord& r) { return r.frame; });
  py::array_t<std::int8_t> status(n);
  for (py::ssize_t i = 0; i < n; ++i) {
    status.mutable_at(i) = static_cast<std::int8_t>(result.records[i].status);
  }
  columns["status"] = status;
  flags("claimed", [](const StudyRecord& r) { return r.claimed; });
  flags("success", [](const StudyRecord& r) { return r.verified; });
  flags("within_bounds", [](const StudyRecord& r) { return r.within_bounds; });
  integers("iterations", [](const StudyRecord& r) { return r.iterations; });
  integers("evaluations", [](const StudyRecord& r) { return r.evaluations; });
  integers("attempts", [](const StudyRecord& r) { return r.attempts; });
  auto error_columns = [&](const std::string& prefix, const std::string& suffix,
                           const GoalErrorParts& parts, auto error) {
    const std::pair<bool, double GoalError::*> fields[] = {
        {parts.position, &GoalError::position},
        {parts.angle, &GoalError::angle},
        {parts.aim, &GoalError::aim}};
    const char* names[] = {"position", "angle", "aim"};
    for (int k = 0; k < 3; ++k) {
      if (!fields[k].first) continue;
      const auto field = fields[k].second;
      numbers(prefix + names[k] + suffix, [&](const StudyRecord& r) {
        const GoalError* e = error(r);
        return e ? e->*field : nan;
      });
    }
  };
  for (std::size_t g = 0; g < result.goals.size(); ++g) {
    const std::string prefix = "goal" + std::to_string(g) + "_";
    error_columns(prefix, "_error", result.goals[g].error_parts,
                  [g](const StudyRecord& r) {
                    return g < r.errors.size() ? &r.errors[g] : nullptr;
                  });
    const std::vector<std::string>& names = result.goals[g].parameter_names;
    for (std::size_t i = 0; i < names.size(); ++i) {
      numbers(prefix + names[i], [&](const StudyRecord& r) {
        return g < r.targets.size() && i < r.targets[g].size() ? r.targets[g][i] : nan;
      });
    }
  }
  for (std::size_t k = 0; k < result.constraints.size(); ++k) {
    error_columns("constraint" + std::to_string(k) + "_", "_violation",
                  result.constraints[k].error_parts, [k](const StudyRecord& r) {
                    return k < r.constraints.size() ? &r.constraints[k].violation
                                                    : nullptr;
                  });
  }
  numbers("microseconds", [](const StudyRecord& r) { return r.microseconds; });
  py::list messages;
  for (const StudyRecord& r : result.records) messages.append(r.message);
  columns["message"] = py::module_::import("numpy").attr("array")(messages, "object");
  // q0 and q: (N, nq); a row of NaN where the solver returned no usable pose.
  const long nq = result.records.empty() ? 0 : result.records.front().q0.size();
  RowMatrixXd q0(n, nq), q(n, nq);
  for (py::ssize_t i = 0; i < n; ++i) {
    const StudyRecord& r = result.records[i];
    q0.row(i) = r.q0.transpose();
    if (r.q.size() == nq) {
      q.row(i) = r.q.transpose();
    } else {
      q.row(i).setConstant(nan);
    }
  }
  columns["q0"] = q0;
  columns["q"] = q;
  return columns;
}

// Writes the study's outputs into out_dir/<name>/ (WriteStudyOutputs: the
// same files as a C++ study), then out_dir/REPORT.md and out_dir/index.html
// (the report of a one-experiment run).
py::dict WriteStudyReport(const PythonStudy& python_study, const StudyResult& result,
                          const std::string& out_dir, const std::string& source) {
  const Study study = python_study.Prepared();
  Experiment experiment;
  experiment.name = study.name;
  experiment.title = study.title.empty() ? study.name : study.title;
  experiment.source = source;
  ExperimentContext context;
  context.seed = study.seed;
  context.threads = study.threads;
  return RunWithoutGil([&] {
    std::filesystem::create_directories(out_dir);
    ExperimentRun run{&experiment, ExperimentOutput(std::filesystem::path(out_dir) / study.name),
                      result.wall_seconds, ""};
    WriteStudyOutputs(study, result, &run.output);
    run.output.Finish(experiment.name, experiment.title, run.wall_seconds);
    const std::vector<ExperimentRun> runs = {run};
    const std::string report = WriteReport(runs, context, out_dir, experiment.title).string();
    const std::string html = WriteHtmlReport(runs, context, out_dir, experiment.title).string();
    py::gil_scoped_acquire gil;
    py::dict out;
    out["dir"] = run.output.dir().string();
    out["report"] = report;
    out["html"] = html;
    out["page"] = (std::filesystem::path(out_dir) / (study.name + ".html")).string();
    out["claims"] = run.output.claims();
    return out;
  });
}

void BindStudyRecordsAndResults(py::module_& m) {
  py::class_<SolverSummary>(m, "SolverSummary")
      .def_readonly("label", &SolverSummary::label, "The solver's label in the study.")
      .def_readonly("solves", &SolverSummary::solves,
                    "Number of solves (trials x frames).")
      .def_readonly("successes", &SolverSummary::successes,
                    "Solves the independent check verified.")
      .def_readonly("success_rate", &SolverSummary::success_rate,
                    "successes / solves.")
      .def_readonly("mean_us", &SolverSummary::mean_us)
      .def_readonly("median_us", &SolverSummary::median_us,
                    "Median time per solve over all solves, failures included, in "
                    "microseconds.")
      .def_readonly("p95_us", &SolverSummary::p95_us,
                    "95th percentile of the time per solve (all solves), microseconds.")
      .def_readonly("p99_us", &SolverSummary::p99_us,
                    "99th percentile of the time per solve (all solves), microseconds.")
      .def_readonly("mean_iterations", &SolverSummary::mean_iterations,
                    "Mean iterations per solve.")
      .def_readonly("median_position_error", &SolverSummary::median_position_error)
      .def_readonly("median_angle_error", &SolverSummary::median_angle_error,
                    "Median over all solves of the largest angle error (radians; 0 when no goal has an angle part).")
      .def_readonly("false_claims", &SolverSummary::false_claims)
      .def_readonly("statuses", &SolverSummary::statuses)
      .def_readonly("rejected", &SolverSummary::rejected)
      .def_readonly("method", &SolverSummary::method,
                    "How its trials were solved: 'simd-bounded-lm (<instruction set>, "
                    "<lanes> lanes)' on the SIMD batch solver (its times per solve are "
                    "then each trial's share of a chunk's wall time), else 'scalar: ' "
                    "and why the batch solver does not apply.");
  py::class_<ConstraintCheck>(m, "ConstraintCheck",
                              "A hard constraint of a solve's problem at the answer, "
                              "recomputed from FK at q.")
      .def_readonly("parameters", &ConstraintCheck::parameters,
                    "What the constraint asked (its Parameters() values).")
      .def_readonly("values", &ConstraintCheck::values,
                    "Inequalities: the bounded quantities at q (e.g. a collision "
                    "constraint's min_distance); empty for an equality.")
      .def_readonly("violation", &ConstraintCheck::violation,
                    "Natural-unit violation (0 when an inequality holds).")
      .def_readonly("active", &ConstraintCheck::active,
                    "Inequalities: some quantity within the study's tolerance of a bound.");
  py::class_<StudyRecord>(m, "StudyRecord")
      .def_readonly("solver", &StudyRecord::solver)
      .def_readonly("trial", &StudyRecord::trial,
                    "The trial's number, 0-based.")
      .def_readonly("frame", &StudyRecord::frame)
      .def_readonly("status", &StudyRecord::status,
                    "The solver's final SolveStatus.")
      .def_readonly("message", &StudyRecord::message, "The solver's message for this solve.")
      .def_readonly("claimed", &StudyRecord::claimed)
      .def_readonly("verified", &StudyRecord::verified,
                    "The independent check (goal errors recomputed from FK at q) agrees that the solve succeeded (or, with a study's accept test, that test passed).")
      .def_readonly("within_bounds", &StudyRecord::within_bounds)
      .def_readonly("microseconds", &StudyRecord::microseconds,
                    "Wall time of the solve, microseconds.")
      .def_readonly("iterations", &StudyRecord::iterations,
                    "Iterations the solver reported.")
      .def_readonly("evaluations", &StudyRecord::evaluations,
                    "Function evaluations the solver reported.")
      .def_readonly("attempts", &StudyRecord::attempts,
                    "Solves made for this trial (random restarts; 1: none).")
      .def_readonly("q0", &StudyRecord::q0, "The start pose of this solve (nq values).")
      .def_readonly("q", &StudyRecord::q, "The solver's answer (nq values).")
      .def_readonly("errors", &StudyRecord::errors)
      .def_readonly("targets", &StudyRecord::targets)
      .def_readonly("constraints", &StudyRecord::constraints,
                    "Per hard constraint of the problem (equalities, then "
                    "inequalities), its ConstraintCheck at q.");
  py::class_<StudyResult>(m, "StudyResult", py::dynamic_attr(),
                          "Everything a study run produced. A result of Study.run() "
                          "also has `study`, the Study it came from.")
      .def_readonly("goal_labels", &StudyResult::goal_labels,
                    "The label of each goal of trial 0's problem, in the order of "
                    "StudyRecord.errors.")
      .def_readonly("records", &StudyResult::records)
      .def_readonly("summaries", &StudyResult::summaries,
                    "One SolverSummary per solver, in the study's solver order.")
      .def_readonly("wall_seconds", &StudyResult::wall_seconds,
                    "Wall time of the whole study run, seconds.")
      .def("summary", &StudyResult::Summary, py::arg("label"),
           py::return_value_policy::reference_internal,
           "The SolverSummary with this label. Raises ValueError if none.")
      .def_property_readonly("solver_labels", [](const StudyResult& result) {
        std::vector<std::string> labels;
        for (const SolverSummary& s : result.summaries) labels.push_back(s.label);
        return labels;
      }, "The solvers' labels in the study's order (the meaning of the `solver` column).")
      .def("arrays", &StudyColumns,
           "The per-solve numbers as NumPy arrays, one entry per solve (solver-major, "
           "then trial, then frame), named as the columns of the study's trials.csv: "
           "solver (int32 index into solver_labels), trial, frame (int32), status "
           "(int8 SolveStatus values; solve_status_name decodes them), claimed, "
           "success (verified), within_bounds (bool), iterations, evaluations, "
           "attempts (int32), goal<g>_<part>_error (float64, model length units, "
           "radians, or 1 - cos for aim; only the parts goal g has), goal<g>_<name> "
           "(what goal g asked), constraint<k>_<part>_violation, microseconds "
           "(float64), message (object), and q0, q as (N, nq) float64 arrays (q: "
           "a row of NaN where the solver returned no usable pose). "
           "to_pandas() makes a DataFrame of them.");
}


// The names in signatures of the callables and results below.
struct ScenarioName {
  static constexpr auto name = py::detail::const_name(
      "Callable[[TrialContext], Problem | Trial] | None");
};
struct FactoryName {
  static constexpr auto name =
      py::detail::const_name("Callable[[SolveOptions, Trial], Solver]");
};
struct AcceptName {
  static constexpr auto name =
      py::detail::const_name("Callable[[StudyRecord], bool] | None");
};
struct ClaimsName {
  static constexpr auto name =
      py::detail::const_name("Callable[[StudyResult], list[Claim]] | None");
};
struct SolversName {
  static constexpr auto name = py::detail::const_name("list[str | StudySolver]");
};
struct GeneratorName {
  static constexpr auto name = py::detail::const_name("numpy.random.Generator");
};
struct VectorNqOrNoneName {
  static constexpr auto name =
      py::detail::const_name("numpy.ndarray[numpy.float64[nq]] | None");
};
struct StudyResultName {
  static constexpr auto name = py::detail::const_name<StudyResult>();
};
using ScenarioArg = Arg<ScenarioName>;
using FactoryArg = Arg<FactoryName>;
using AcceptArg = Arg<AcceptName>;
using ClaimsArg = Arg<ClaimsName>;
using StudySolversArg = Arg<SolversName>;
using GeneratorArg = Arg<GeneratorName>;
using VectorNqOrNoneArg = Arg<VectorNqOrNoneName>;
using StudyResultArg = Arg<StudyResultName>;

// What a Python scenario is given and returns, a solver of a study, a claim.
void BindStudyParts(py::module_& m) {
  py::class_<PythonTrialContext>(
      m, "TrialContext",
      "What a Study's scenario is given to make one trial. The scenario is called "
      "once per (solver, trial) pair and must make the same trial from the same "
      "context (draw only from `rng`), so that every solver solves the same problem.")
      .def_readonly("model", &PythonTrialContext::model,
                    "The study's model (pose the trial's problem on it).")
      .def_readonly("index", &PythonTrialContext::index, "The trial's number, 0-based.")
      .def_readonly("start", &PythonTrialContext::start,
                    "The start pose the study chose for this trial (Study.start; nq "
                    "values); empty for StartPose.PREVIOUS_TRIAL.")
      .def_property_readonly(
          "rng", [](const PythonTrialContext& c) { return GeneratorArg(c.rng); },
          "The trial's own NumPy random generator, seeded by a draw from the C++ "
          "generator of (study seed, trial index): the same seed and index give the "
          "same numbers at any thread count.")
      .def("random_configuration", [](const PythonTrialContext& c) {
        Eigen::VectorXd lower = c.model->lower(), upper = c.model->upper();
        for (int i = 0; i < lower.size(); ++i) {
          // Unbounded coordinates: (-pi, pi], as the C++ scenarios draw them.
          if (!std::isfinite(lower[i]) || !std::isfinite(upper[i])) {
            lower[i] = -EIGEN_PI;
            upper[i] = EIGEN_PI;
          }
        }
        return c.rng.attr("uniform")(lower, upper).cast<Eigen::VectorXd>();
      }, "A pose drawn uniformly within the joint limits from `rng` (unbounded "
         "coordinates in (-pi, pi]): e.g. the pose whose forward kinematics a "
         "reachable goal is made from.");

  py::class_<Trial>(m, "Trial",
                    "One trial as a scenario makes it: the problem every solver solves, "
                    "and optionally its start pose and the pose its goals came from.")
      .def(py::init([](const Problem& problem, VectorNqOrNoneArg q0,
                       VectorNqOrNoneArg q_generator) {
             Trial trial(problem.shared_model());
             trial.problem = problem;
             if (!q0.is_none()) trial.q0 = ToVector(q0, "q0", problem.nq());
             if (!q_generator.is_none()) {
               trial.q_generator = ToVector(q_generator, "q_generator", problem.nq());
             }
             return trial;
           }),
           py::arg("problem"), py::arg("q0") = py::none(), py::arg("q_generator") = py::none(),
           "A trial solving a copy of `problem` from q0 (None: the study's start "
           "pose, Study.start); q_generator (None: unknown) is the pose that made the "
           "goals, which a solver factory may read.")
      .def_readonly("index", &Trial::index, "The trial's number, 0-based (set by the study).")
      .def_property_readonly(
          "problem", [](const Trial& t) { return std::make_shared<Problem>(t.problem); },
          "A copy of the trial's problem (its goals and bounds; the study adds its "
          "regularizers).")
      .def_readonly("q0", &Trial::q0, "The start pose; empty: per Study.start.")
      .def_readonly("q_generator", &Trial::q_generator,
                    "The pose that generated the goals, when known (else empty).");

  py::class_<StudySolver>(m, "StudySolver",
                          "A solver of a study: a label and how to make the solver for "
                          "a trial.")
      .def(py::init([](std::string label, FactoryArg make, int attempts, int max_trials) {
             if (attempts < 1) {
               throw std::invalid_argument("StudySolver '" + label +
                                           "': attempts must be >= 1, got " +
                                           std::to_string(attempts));
             }
             if (max_trials < 0) {
               throw std::invalid_argument("StudySolver '" + label +
                                           "': max_trials must be >= 0, got " +
                                           std::to_string(max_trials));
             }
             return PythonStudySolver(std::move(label), make, attempts, max_trials);
           }),
           py::arg("label"), py::arg("make"), py::arg("attempts") = 1,
           py::arg("max_trials") = 0,
           "A solver made by the Python callable make(common, trial) -> Solver, "
           "called once per trial outside the timed solve (with the GIL; the solves "
           "run without it). `common` is a SolveOptions holding the study's time "
           "budget, tolerances and limits (pass it on, e.g. "
           "iklab.BoundedLmSolver(common=common), or the solver ignores the study's "
           "settings); `trial` is the Trial. attempts > 1: random restarts within the "
           "bounds until an attempt converges; max_trials > 0: only the first "
           "max_trials trials.")
      .def_static("registered", [](const std::string& name, int attempts, int max_trials) {
        if (attempts < 1) throw std::invalid_argument("attempts must be >= 1");
        if (max_trials < 0) throw std::invalid_argument("max_trials must be >= 0");
        StudySolver solver = Use(SolverNamed(name), attempts);
        solver.max_trials = max_trials;
        return solver;
      }, py::arg("name"), py::arg("attempts") = 1, py::arg("max_trials") = 0,
         "The registered solver `name` (solver_names()) with the study's common "
         "settings and its own iteration cap, labelled by its name. Raises "
         "ValueError for an unknown name.")
      .def_readonly("label", &StudySolver::label, "The label in tables and pictures.")
      .def_readonly("attempts", &StudySolver::attempts,
                    "Solves per trial with random restarts (1: none).")
      .def_readonly("max_trials", &StudySolver::max_trials,
                    "Trials this solver solves (the first ones); 0: all.")
      .def("__repr__", [](const StudySolver& s) {
        return "<iklab.StudySolver '" + s.label + "'>";
      });

  py::class_<Claim>(m, "Claim",
                    "A claim checked against a study's data, as the reproductions "
                    "state theirs: what is claimed, the paper's (or the expected) "
                    "value, ours, the verdict and why.")
      .def(py::init([](std::string text, std::string paper, std::string ours,
                       bool reproduced, std::string reason) {
             return Claim{std::move(text), std::move(paper), std::move(ours),
                          reproduced ? Verdict::kReproduced : Verdict::kDiffers,
                          std::move(reason)};
           }),
           py::arg("text"), py::arg("paper"), py::arg("ours"), py::arg("reproduced"),
           py::arg("reason") = "",
           "A claim; `reproduced` is the verdict computed from the data.")
      .def_readwrite("text", &Claim::text, "The claim in words.")
      .def_readwrite("paper", &Claim::paper, "What the paper (or the expectation) says.")
      .def_readwrite("ours", &Claim::ours, "What the study measured, formatted.")
      .def_readwrite("reason", &Claim::reason, "One line computed from the data: why the verdict.")
      .def_property("reproduced",
                    [](const Claim& c) { return c.verdict == Verdict::kReproduced; },
                    [](Claim& c, bool reproduced) {
                      c.verdict = reproduced ? Verdict::kReproduced : Verdict::kDiffers;
                    },
                    "True when our data agree with the claim.")
      .def_property_readonly("verdict",
                             [](const Claim& c) { return std::string(VerdictName(c.verdict)); },
                             "'reproduced' or 'differs'.")
      .def("__repr__", [](const Claim& c) {
        return "<iklab.Claim '" + c.text + "': " + VerdictName(c.verdict) + ">";
      });
}

// A field of Study readable and writable from Python.
#define IKLAB_STUDY_FIELD(field, doc)                                          \
  def_property(                                                                \
      #field, [](const PythonStudy& s) { return s.study.field; },              \
      [](PythonStudy& s, decltype(Study::field) value) {                       \
        s.study.field = std::move(value);                                      \
      },                                                                       \
      doc)

// A Python callable of Study (None: not given).
template <typename CallableArg>
void StudyCallableProperty(py::class_<PythonStudy>& c, const char* name,
                           py::object PythonStudy::*member, const char* doc) {
  c.def_property(
      name, [member](const PythonStudy& s) { return CallableArg(s.*member); },
      [member, name](PythonStudy& s, CallableArg value) {
        CheckCallableOrNone(value, name);
        s.*member = value;
      },
      doc);
}

void BindStudyClass(py::module_& m) {
  py::class_<PythonStudy> c(
      m, "Study",
      "A comparison study as data (lab/study.h), with the scenario, the solver "
      "factories, the accept test and the claims optionally written in Python. "
      "Study(**fields) sets the fields below; run() solves every trial with every "
      "solver (the solves in parallel on `threads` threads, without the GIL; each "
      "Python callable runs with the GIL around its call only) and returns a "
      "StudyResult; write_report(result, out_dir) writes the same outputs and "
      "report as a C++ study. What a callable raises stops the run and arrives as "
      "RuntimeError naming the callable and the trial, raised from it.");
  c.def(py::init([](py::kwargs fields) {
         py::object study = py::cast(PythonStudy{});
         study.cast<PythonStudy&>().study.name = "study";
         for (const auto& item : fields) {
           const std::string key = item.first.cast<std::string>();
           if (!py::hasattr(py::type::of(study), key.c_str()) || key.front() == '_' ||
               key == "run" || key == "validate" || key == "write_report") {
             throw py::type_error("Study has no field '" + key + "'");
           }
           py::setattr(study, key.c_str(), item.second);
         }
         return study.cast<PythonStudy>();
       }),
       "A study with the given fields (the others at their defaults; name 'study').");
  c.IKLAB_STUDY_FIELD(name, "Name: the folder and the report's section. Not empty.")
      .IKLAB_STUDY_FIELD(title, "Title of the report's section ('' : the name).")
      .IKLAB_STUDY_FIELD(question, "The question the study answers (the report's first line).")
      .def_property(
          "model",
          [](const PythonStudy& s) { return std::const_pointer_cast<Model>(s.study.model); },
          [](PythonStudy& s, std::shared_ptr<Model> model) { s.study.model = std::move(model); },
          "The Model every trial is posed on.")
      .IKLAB_STUDY_FIELD(goals,
                         "GoalSpecs made at a random reachable pose per trial (used "
                         "when `scenario` is None).")
      .def_property(
          "solvers",
          [](const PythonStudy& s) { return s.study.solvers; },
          [](PythonStudy& s, StudySolversArg solvers) {
            s.study.solvers = StudySolversFrom(solvers);
          },
          "The solvers compared: registered names (study_solver_labels()) or "
          "StudySolvers; reads back as StudySolvers.")
      .IKLAB_STUDY_FIELD(start, "Where each solve starts (a Trial's own q0 wins).")
      .IKLAB_STUDY_FIELD(given_start, "The start pose of StartPose.GIVEN (nq values).")
      .IKLAB_STUDY_FIELD(trials, "Number of trials, >= 1.")
      .IKLAB_STUDY_FIELD(seed,
                         "Seed of every random draw: the same seed gives the same "
                         "trials and results at any thread count.")
      .IKLAB_STUDY_FIELD(time_budget_seconds,
                         "Per solve, seconds; <= 0: none (then the results do not "
                         "depend on the machine's speed).")
      .IKLAB_STUDY_FIELD(position_tolerance,
                         "Success: every goal's position error <= this (model units); "
                         "the solvers stop at it too.")
      .IKLAB_STUDY_FIELD(angle_tolerance,
                         "Success: every goal's angle error <= this (radians; aim "
                         "errors 1 - cos likewise).")
      .IKLAB_STUDY_FIELD(stop_tolerance_factor,
                         "The solvers stop at the tolerances times this factor, in (0, 1].")
      .IKLAB_STUDY_FIELD(respect_limits,
                         "Solve within the joint limits (success then needs the pose "
                         "within the bounds).")
      .IKLAB_STUDY_FIELD(threads,
                         "Worker threads, >= 1 (results do not depend on it).")
      .IKLAB_STUDY_FIELD(traced_trials,
                         "The first traced_trials trials are solved once more with a "
                         "per-iteration trace for the convergence pictures.")
      .def_property(
          "tikhonov", [](const PythonStudy& s) { return s.study.regularization.tikhonov; },
          [](PythonStudy& s, double value) { s.study.regularization.tikhonov = value; },
          "Tikhonov weight alpha of alpha ||q - q0||^2 added to every trial's problem, >= 0.")
      .def_property(
          "joint_centre_bias",
          [](const PythonStudy& s) { return s.study.regularization.joint_centre_bias; },
          [](PythonStudy& s, double value) {
            s.study.regularization.joint_centre_bias = value;
          },
          "Gain a of the joint-centre bias sum a (q_i - q_ci)^2, >= 0.");
  StudyCallableProperty<ScenarioArg>(
      c, "scenario", &PythonStudy::scenario,
      "None (GoalSpecs in `goals`) or scenario(context: TrialContext) -> Problem | "
      "Trial: makes trial context.index on context.model from context.rng alone. "
      "Make new goals in each call: the solves of earlier trials may still be "
      "reading the goals it returned, so a goal kept and changed between calls "
      "would change under them.");
  StudyCallableProperty<AcceptArg>(
      c, "accept", &PythonStudy::accept,
      "None (the built-in check: claimed, goal errors recomputed from FK within "
      "tolerance, within bounds) or accept(record: StudyRecord) -> bool, the "
      "success test of each solve, called with its record filled in.");
  StudyCallableProperty<ClaimsArg>(
      c, "claims", &PythonStudy::claims,
      "None or claims(result: StudyResult) -> list[Claim]: claims computed from the "
      "result, added to the report by write_report.");
  c.def("validate", [](const PythonStudy& s) { s.Prepared().Validate(); },
        "Raises ValueError naming the field to fix (the checks run() makes first).")
      .def("run", [](py::object self) {
        const Study study = self.cast<const PythonStudy&>().Prepared();
        py::object result = py::cast(RunWithoutGil([&] { return RunStudy(study); }));
        result.attr("study") = self;
        return StudyResultArg(result);
      }, "Runs every solver on every trial and returns the StudyResult (its `study` "
         "is this Study). Raises ValueError for a bad field, RuntimeError when a "
         "Python callable raised (naming it and the trial).")
      .def("write_report",
           [](const PythonStudy& s, const StudyResult& result, const std::string& out_dir) {
             return WriteStudyReport(s, result, out_dir, "Python study");
           },
           py::arg("result"), py::arg("out_dir"),
           "Writes the study's outputs into out_dir/<name>/ as a C++ study does "
           "(trials.csv, solvers.csv, study.json, the pictures, summary.json, the "
           "claims), then out_dir/REPORT.md and the HTML report out_dir/index.html "
           "with the page out_dir/<name>.html. Returns {'dir', 'report', 'html', "
           "'page', 'claims'}.")
      .def("__repr__", [](const PythonStudy& s) {
        return "<iklab.Study '" + s.study.name + "': " + std::to_string(s.study.trials) +
               " trials, " + std::to_string(s.study.solvers.size()) + " solvers" +
               (s.scenario.is_none() ? "" : ", Python scenario") + ">";
      });
}

#undef IKLAB_STUDY_FIELD

// run_study: the main parameters as keywords, registered solvers only.
void BindRunStudy(py::module_& m) {
  m.def("study_solver_labels", [] {
    std::vector<std::string> labels;
    for (const StudySolver& s : EverySolver()) labels.push_back(s.label);
    return labels;
  }, "The labels run_study accepts (every solver with the studies' options).");
  m.def("run_study",
        [](std::shared_ptr<Model> model, std::vector<GoalSpec> goals,
           std::vector<std::string> solvers, int trials, std::uint64_t seed,
           ThreadsArg threads, StartPose start, double time_budget_seconds, double position_tolerance,
           double angle_tolerance, bool respect_limits, double tikhonov,
           double joint_centre_bias, std::string name) {
          Study study;
          study.name = std::move(name);
          study.model = std::move(model);
          study.goals = std::move(goals);
          study.solvers = solvers.empty() ? EverySolver() : Solvers(solvers);
          study.trials = trials;
          study.seed = seed;
          study.threads = ToThreadCount(threads, "threads");
          study.start = start;
          study.time_budget_seconds = time_budget_seconds;
          study.position_tolerance = position_tolerance;
          study.angle_tolerance = angle_tolerance;
          study.respect_limits = respect_limits;
          study.regularization = {tikhonov, joint_centre_bias};
          study.Validate();
          py::gil_scoped_release release;
          return RunStudy(study);
        },
        py::arg("model"), py::arg("goals"), py::arg("solvers") = std::vector<std::string>{},
        py::arg("trials") = 100, py::arg("seed") = 1, py::arg("threads") = 1,
        py::arg("start") = StartPose::kRandom, py::arg("time_budget_seconds") = 0.005,
        py::arg("position_tolerance") = 1e-5, py::arg("angle_tolerance") = 1e-5,
        py::arg("respect_limits") = true, py::arg("tikhonov") = 0.0,
        py::arg("joint_centre_bias") = 0.0, py::arg("name") = "study",
        "Runs a study (lab/study.h): random reachable targets for `goals`, every "
        "listed solver (default: all) on the same trials. For a scenario, solver "
        "factories, an accept test or claims written in Python, use Study.");
}


}  // namespace

void BindStudies(py::module_& m) {
  BindStudyRecordsAndResults(m);
  BindStudyParts(m);
  BindStudyClass(m);
  BindRunStudy(m);
}

}  // namespace iklab::python
