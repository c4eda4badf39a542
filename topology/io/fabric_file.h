// The declarative fabric file (JSON, format "topoplace.fabric/v1"; documented in the
// README): hosts, switches, NICs, GPUs, links and, optionally, SHARP aggregation nodes
// (written only when the fabric has any). Loading validates everything and either
// returns a whole Fabric or an error naming the file, line, field and what was expected;
// nothing is half-loaded. Saving writes a canonical form (fixed key order, one record
// per line) so that Save(Load(f)) reproduces a canonical file byte for byte.
#ifndef TOPOPLACE_TOPOLOGY_IO_FABRIC_FILE_H_
#define TOPOPLACE_TOPOLOGY_IO_FABRIC_FILE_H_

#include <cstddef>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "topology/model/fabric.h"

namespace topoplace {

// Parses fabric JSON held in memory; `source_name` is used in error messages.
absl::StatusOr<FabricPtr> ParseFabricJson(absl::string_view text, absl::string_view source_name);
// The largest fabric file read: clos3-100k's is a few tens of MB.
inline constexpr size_t kMaxFabricFileBytes = size_t{1} << 30;
// Reads and parses a fabric file. NotFound if it cannot be read; InvalidArgument for a
// FIFO, device or directory, or a file past kMaxFabricFileBytes (base/input_file.h).
absl::StatusOr<FabricPtr> LoadFabricFile(const std::string& path);

// Serialises `fabric` in canonical form.
std::string FabricToJson(const Fabric& fabric);
// Writes FabricToJson to `path` atomically (temporary file + rename).
absl::Status SaveFabricFile(const Fabric& fabric, const std::string& path);

// Loads "preset:NAME" by generating it, anything else as a fabric file path.
absl::StatusOr<FabricPtr> LoadFabricSpec(const std::string& spec);

}  // namespace topoplace

#endif  // TOPOPLACE_TOPOLOGY_IO_FABRIC_FILE_H_
