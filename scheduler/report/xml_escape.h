// Escaping for text placed in SVG/XML documents (plan drawings, simulator charts).
#ifndef TOPOPLACE_SCHEDULER_REPORT_XML_ESCAPE_H_
#define TOPOPLACE_SCHEDULER_REPORT_XML_ESCAPE_H_

#include <string>

#include "absl/strings/string_view.h"

namespace topoplace::sched {

// Returns `text` with &, <, > and " replaced by their XML entities.
std::string XmlEscape(absl::string_view text);

}  // namespace topoplace::sched

#endif  // TOPOPLACE_SCHEDULER_REPORT_XML_ESCAPE_H_
