// The one place that lists every built-in plugin: topoplace's policy first, then the
// baselines, and every scorer with its default weight. Weights come from configuration
// (`--weights name=w,...`); a weight of 0 disables a scorer.
#ifndef TOPOPLACE_SCHEDULER_BUILTIN_BUILTIN_PLUGINS_H_
#define TOPOPLACE_SCHEDULER_BUILTIN_BUILTIN_PLUGINS_H_

#include "scheduler/framework/registry.h"

namespace topoplace::sched {

// The built-in registry; one instance for the process.
const PluginRegistry& BuiltinPlugins();

}  // namespace topoplace::sched

#endif  // TOPOPLACE_SCHEDULER_BUILTIN_BUILTIN_PLUGINS_H_
