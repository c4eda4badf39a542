// Slurm hostlist expressions: "b00-n[000-031],b01-n[000-003,007]" for a set of names.
#ifndef TOPOPLACE_PLUGINS_SLURM_HOSTLIST_H_
#define TOPOPLACE_PLUGINS_SLURM_HOSTLIST_H_

#include <string>
#include <vector>

namespace topoplace::slurm {

// Compresses `names` into one Slurm hostlist expression. Names sharing a prefix and a
// zero-padded numeric suffix of the same width fold into ranges; other names stay as
// they are. Groups appear in order of their first name; duplicates are dropped.
std::string CompressHostlist(const std::vector<std::string>& names);

}  // namespace topoplace::slurm

#endif  // TOPOPLACE_PLUGINS_SLURM_HOSTLIST_H_
