#ifndef IKLAB_LAB_STUDY_SCENE_H_
#define IKLAB_LAB_STUDY_SCENE_H_

/// @file
/// A study's trials in 3D (lab/scene.h). WriteStudyOutputs writes every
/// study's scene.json; this is the piece an experiment that runs several
/// studies (one per cell of a matrix) uses to gather one view per study.

#include <string>

#include "lab/scene.h"
#include "lab/study.h"

namespace iklab {

/// Adds a view `name` of `study`'s trial `trial`: the start pose (grey),
/// every solver's answer as a figure layer in its own colour (PaletteColor of
/// the solver's index; verified answers first when `max_solvers` > 0 caps
/// their number; refused and non-finite answers are not drawn), the trial's
/// goals and constraints (AddProblemLayers at the first verified answer, else
/// the start), and a table of every solver's status, success, errors and
/// time.
/// @param figure the study model's figure in `scene` (Scene::AddFigure).
/// @throws std::invalid_argument if no solver solved `trial`.
SceneView& AddStudyTrialView(const Study& study, const StudyResult& result,
                             int trial, int figure, const std::string& name,
                             iklab::Scene* scene, int max_solvers = 0);

}  // namespace iklab

#endif  // IKLAB_LAB_STUDY_SCENE_H_
