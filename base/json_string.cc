#include "base/json_string.h"

#include "absl/strings/str_format.h"

namespace topoplace {

void AppendJsonString(std::string& out, absl::string_view text) {
  out.reserve(out.size() + text.size() + 2);
  out.push_back('"');
  // Plain characters are copied in runs: names are long and rarely need escapes, and this
  // sits on the extender's per-request path (thousands of node names).
  size_t plain_from = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    const unsigned char c = static_cast<unsigned char>(text[i]);
    if (c >= 0x20 && c != '"' && c != '\\') continue;
    out.append(text.data() + plain_from, i - plain_from);
    plain_from = i + 1;
    if (c == '"') {
      out += "\\\"";
    } else if (c == '\\') {
      out += "\\\\";
    } else {
      absl::StrAppendFormat(&out, "\\u%04x", c);
    }
  }
  out.append(text.data() + plain_from, text.size() - plain_from);
  out.push_back('"');
}

}  // namespace topoplace
