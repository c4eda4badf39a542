// Text from the daemon made safe for a terminal table: control characters (newlines that
// would forge rows, ANSI escapes that would rewrite the screen) are shown escaped, as
// `\n` or `\x1b`, instead of acting. JSON output needs none of this: its encoder escapes.
#ifndef TOPOPLACE_CLIENT_TERMINAL_TEXT_H_
#define TOPOPLACE_CLIENT_TERMINAL_TEXT_H_

#include <string>

#include "absl/strings/string_view.h"

namespace topoplace::client {

// `text` with every ASCII control character (below 0x20, and 0x7f) and backslash escaped.
std::string TerminalSafe(absl::string_view text);

}  // namespace topoplace::client

#endif  // TOPOPLACE_CLIENT_TERMINAL_TEXT_H_
