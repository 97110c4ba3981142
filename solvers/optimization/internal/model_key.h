#ifndef IKLAB_SOLVERS_OPTIMIZATION_INTERNAL_MODEL_KEY_H_
#define IKLAB_SOLVERS_OPTIMIZATION_INTERNAL_MODEL_KEY_H_

/// @file
/// The model part of the keys of solver caches (bounded LM's restart pools,
/// the fused kernel's chains): a model object, held weakly so a cache never
/// keeps a model alive.

#include <memory>

#include "framework/model.h"

namespace iklab::internal {

/// True if `key` still refers to the very object `model` owns. An expired
/// key never matches: a dead model's address may be reused by another.
inline bool IsModel(const std::weak_ptr<const Model>& key,
                    const std::shared_ptr<const Model>& model) {
  return !key.expired() && !key.owner_before(model) &&
         !model.owner_before(key);
}

}  // namespace iklab::internal

#endif  // IKLAB_SOLVERS_OPTIMIZATION_INTERNAL_MODEL_KEY_H_
