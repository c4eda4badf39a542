// JSON string literals for the writers that build JSON text by hand for speed (the fabric
// file, the kube-scheduler extender's answers, JsonWriter), escaped as nlohmann's dump
// escapes them.
#ifndef TOPOPLACE_BASE_JSON_STRING_H_
#define TOPOPLACE_BASE_JSON_STRING_H_

#include <string>

#include "absl/strings/string_view.h"

namespace topoplace {

// Appends `text` as a quoted JSON string. `text` must be valid UTF-8 (it is passed through
// unchanged); quotes and backslashes are escaped, control bytes as \n, \t, \r, \b, \f
// where JSON has a short form and as \u00xx (lower-case hex) where it has not.
void AppendJsonString(std::string& out, absl::string_view text);

}  // namespace topoplace

#endif  // TOPOPLACE_BASE_JSON_STRING_H_
