#include "base/json_string.h"

#include "absl/strings/str_format.h"

namespace topoplace {
namespace {

// The short escape JSON has for a control byte, or 0.
char ShortEscape(unsigned char c) {
  switch (c) {
    case '\b':
      return 'b';
    case '\t':
      return 't';
    case '\n':
      return 'n';
    case '\f':
      return 'f';
    case '\r':
      return 'r';
    default:
      return 0;
  }
}

}  // namespace

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
    if (c == '"' || c == '\\') {
      out.push_back('\\');
      out.push_back(static_cast<char>(c));
    } else if (const char e = ShortEscape(c); e != 0) {
      out.push_back('\\');
      out.push_back(e);
    } else {
      absl::StrAppendFormat(&out, "\\u%04x", c);
    }
  }
  out.append(text.data() + plain_from, text.size() - plain_from);
  out.push_back('"');
}

}  // namespace topoplace
