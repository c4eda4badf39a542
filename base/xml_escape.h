// Escaping for text placed in SVG/XML documents (fabric and plan drawings, simulator
// charts).
#ifndef TOPOPLACE_BASE_XML_ESCAPE_H_
#define TOPOPLACE_BASE_XML_ESCAPE_H_

#include <string>

#include "absl/strings/string_view.h"

namespace topoplace {

// Returns `text` with &, <, > and " replaced by their XML entities.
std::string XmlEscape(absl::string_view text);

}  // namespace topoplace

#endif  // TOPOPLACE_BASE_XML_ESCAPE_H_
