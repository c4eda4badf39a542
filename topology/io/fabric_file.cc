#include "topology/io/fabric_file.h"

#include <cmath>
#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "base/input_file.h"
#include "base/json_string.h"
#include "base/status_macros.h"
#include "topology/generate/reference_fabrics.h"
#include "topology/io/flat_json.h"
#include "topology/io/json_lines.h"
#include "topology/model/fabric_builder.h"

namespace topoplace {
namespace {

using Json = nlohmann::json;

constexpr absl::string_view kFormat = "topoplace.fabric/v1";
constexpr absl::string_view kPresetPrefix = "preset:";

// Where a record came from, for errors: "fabric.json:12: links[3].b: ...".
class RecordContext {
 public:
  RecordContext(absl::string_view source, absl::string_view section, size_t index, int line)
      : source_(source), section_(section), index_(index), line_(line) {}

  absl::Status Error(absl::string_view field, absl::string_view problem) const {
    std::string where = line_ > 0 ? absl::StrCat(source_, ":", line_) : std::string(source_);
    std::string path = absl::StrCat(section_, "[", index_, "]");
    if (!field.empty()) absl::StrAppend(&path, ".", field);
    return absl::InvalidArgumentError(absl::StrCat(where, ": ", path, ": ", problem));
  }
  // Prefixes an error the builder returned (its message names the field) with this
  // record's location.
  absl::Status Wrap(const absl::Status& status) const {
    if (status.ok()) return status;
    return Error("", status.message());
  }

 private:
  absl::string_view source_;
  absl::string_view section_;
  size_t index_;
  int line_;
};

// Typed, checked access to the fields of one record.
class RecordReader {
 public:
  RecordReader(const FlatRecord& record, const RecordContext& ctx) : record_(record), ctx_(ctx) {}

  absl::Status CheckShape(std::initializer_list<absl::string_view> known) const {
    if (!record_.is_object) return ctx_.Error("", "expected an object");
    for (size_t i = 0; i < record_.fields.size(); ++i) {
      const std::string& key = record_.fields[i].first;
      bool ok = false;
      for (absl::string_view k : known) ok = ok || k == key;
      if (!ok) {
        return ctx_.Error(
            key, absl::StrCat("unknown field; expected one of: ", absl::StrJoin(known, ", ")));
      }
      for (size_t j = 0; j < i; ++j) {
        if (record_.fields[j].first == key) return ctx_.Error(key, "field given twice");
      }
    }
    return absl::OkStatus();
  }

  absl::StatusOr<std::string> String(absl::string_view key, bool required) const {
    const JsonValue* v = record_.Find(key);
    if (v == nullptr) {
      if (required) return ctx_.Error(key, "missing required field (a string)");
      return std::string();
    }
    if (v->kind != JsonValue::Kind::kString) return ctx_.Error(key, "expected a string");
    if (required && v->string.empty()) return ctx_.Error(key, "must not be empty");
    return v->string;
  }

  absl::StatusOr<int32_t> Int32(absl::string_view key, int32_t fallback, bool required) const {
    const JsonValue* v = record_.Find(key);
    if (v == nullptr) {
      if (required) return ctx_.Error(key, "missing required field (an integer)");
      return fallback;
    }
    if (!v->is_integer()) return ctx_.Error(key, "expected an integer");
    if (v->integer < INT32_MIN || v->integer > INT32_MAX) {
      return ctx_.Error(key, "integer out of range");
    }
    return static_cast<int32_t>(v->integer);
  }

  absl::StatusOr<double> Number(absl::string_view key) const {
    const JsonValue* v = record_.Find(key);
    if (v == nullptr) return ctx_.Error(key, "missing required field (a number)");
    if (!v->is_number()) return ctx_.Error(key, "expected a number");
    return v->number;
  }

 private:
  const FlatRecord& record_;
  const RecordContext& ctx_;
};

absl::StatusOr<LinkState> ParseLinkState(const RecordContext& ctx, const std::string& s) {
  for (LinkState state : {LinkState::kUp, LinkState::kDegraded, LinkState::kDown}) {
    if (s == LinkStateName(state)) return state;
  }
  return ctx.Error("state",
                   absl::StrCat("unknown link state '", s, "'; expected up, degraded or down"));
}

// Parses the document into a builder; any error leaves nothing behind because the
// builder is discarded.
class FabricJsonReader {
 public:
  FabricJsonReader(absl::string_view text, absl::string_view source)
      : text_(text), source_(source) {}

  absl::StatusOr<FabricPtr> Read() {
    TP_ASSIGN_OR_RETURN(FlatDocument doc, ParseFlatJson(text_, source_));
    lines_ = RecordLines(text_);
    TP_RETURN_IF_ERROR(ReadHeader(doc));
    FabricBuilder builder(name_, version_);
    TP_RETURN_IF_ERROR(ForEach(doc, "hosts", [&](const RecordReader& in, const RecordContext& ctx) {
      TP_RETURN_IF_ERROR(in.CheckShape({"name", "nvlink_domain", "gpu_model"}));
      TP_ASSIGN_OR_RETURN(std::string name, in.String("name", true));
      TP_ASSIGN_OR_RETURN(std::string domain, in.String("nvlink_domain", false));
      TP_ASSIGN_OR_RETURN(std::string model, in.String("gpu_model", false));
      absl::StatusOr<HostId> host = builder.AddHost(std::move(name), std::move(domain));
      if (!host.ok() || model.empty()) return ctx.Wrap(host.status());
      return ctx.Wrap(builder.SetGpuModel(*host, std::move(model)));
    }));
    TP_RETURN_IF_ERROR(ForEach(doc, "nics", [&](const RecordReader& in, const RecordContext& ctx) {
      TP_RETURN_IF_ERROR(in.CheckShape({"host", "name", "speed_gbps"}));
      TP_ASSIGN_OR_RETURN(HostId host, FindHost(builder, in, ctx));
      TP_ASSIGN_OR_RETURN(std::string name, in.String("name", true));
      TP_ASSIGN_OR_RETURN(double speed, in.Number("speed_gbps"));
      return ctx.Wrap(builder.AddNic(host, std::move(name), speed).status());
    }));
    TP_RETURN_IF_ERROR(ForEach(doc, "gpus", [&](const RecordReader& in, const RecordContext& ctx) {
      TP_RETURN_IF_ERROR(in.CheckShape({"host", "index", "nic", "numa"}));
      TP_ASSIGN_OR_RETURN(HostId host, FindHost(builder, in, ctx));
      TP_ASSIGN_OR_RETURN(int32_t index, in.Int32("index", 0, true));
      TP_ASSIGN_OR_RETURN(int32_t numa, in.Int32("numa", -1, false));
      TP_ASSIGN_OR_RETURN(std::string nic_name, in.String("nic", false));
      NicId nic = -1;
      if (!nic_name.empty()) {
        const std::string full = absl::StrCat(*in.String("host", true), "/", nic_name);
        std::optional<NicId> found = builder.FindNic(full);
        if (!found)
          return ctx.Error("nic", absl::StrCat("no NIC '", full, "' (declare it in nics)"));
        nic = *found;
      }
      return ctx.Wrap(builder.AddGpu(host, index, nic, numa).status());
    }));
    TP_RETURN_IF_ERROR(
        ForEach(doc, "switches", [&](const RecordReader& in, const RecordContext& ctx) {
          TP_RETURN_IF_ERROR(in.CheckShape({"name", "tier"}));
          TP_ASSIGN_OR_RETURN(std::string name, in.String("name", true));
          TP_ASSIGN_OR_RETURN(int32_t tier, in.Int32("tier", 0, false));
          return ctx.Wrap(builder.AddSwitch(std::move(name), tier).status());
        }));
    TP_RETURN_IF_ERROR(ForEach(doc, "links", [&](const RecordReader& in, const RecordContext& ctx) {
      TP_RETURN_IF_ERROR(in.CheckShape({"a", "b", "speed_gbps", "lanes", "count", "state"}));
      TP_ASSIGN_OR_RETURN(Endpoint a, FindEndpoint(builder, in, ctx, "a"));
      TP_ASSIGN_OR_RETURN(Endpoint b, FindEndpoint(builder, in, ctx, "b"));
      LinkAttrs attrs;
      TP_ASSIGN_OR_RETURN(attrs.speed_gbps, in.Number("speed_gbps"));
      TP_ASSIGN_OR_RETURN(attrs.lanes, in.Int32("lanes", 4, false));
      TP_ASSIGN_OR_RETURN(attrs.count, in.Int32("count", 1, false));
      TP_ASSIGN_OR_RETURN(std::string state, in.String("state", false));
      if (!state.empty()) {
        TP_ASSIGN_OR_RETURN(attrs.state, ParseLinkState(ctx, state));
      }
      return ctx.Wrap(builder.AddLink(a, b, attrs).status());
    }));
    // Both optional sections name a switch, and (unattributed NICs) its port.
    auto attachments = [&](const std::string& section, bool with_port) {
      return ForEach(doc, section, [&](const RecordReader& in, const RecordContext& ctx) {
        TP_RETURN_IF_ERROR(with_port ? in.CheckShape({"name", "switch", "port"})
                                     : in.CheckShape({"name", "switch"}));
        TP_ASSIGN_OR_RETURN(std::string name, in.String("name", true));
        TP_ASSIGN_OR_RETURN(std::string sw_name, in.String("switch", true));
        std::optional<SwitchId> sw = builder.FindSwitch(sw_name);
        if (!sw) {
          return ctx.Error("switch",
                           absl::StrCat("no switch '", sw_name, "' (declare it in switches)"));
        }
        if (!with_port) return ctx.Wrap(builder.AddAggregationNode(std::move(name), *sw).status());
        TP_ASSIGN_OR_RETURN(std::string port, in.String("port", false));
        return ctx.Wrap(builder.AddUnattributedNic(std::move(name), *sw, std::move(port)).status());
      });
    };
    TP_RETURN_IF_ERROR(attachments("aggregation_nodes", false));
    TP_RETURN_IF_ERROR(attachments("unattributed_nics", true));
    return std::move(builder).Build();
  }

 private:
  absl::Status HeaderError(absl::string_view problem) const {
    return absl::InvalidArgumentError(absl::StrCat(source_, ": ", problem));
  }

  absl::Status ReadHeader(const FlatDocument& doc) {
    static constexpr absl::string_view kScalars[] = {"format", "name", "version"};
    static constexpr absl::string_view kSections[] = {
        "hosts", "nics", "gpus", "switches", "links", "aggregation_nodes", "unattributed_nics"};
    constexpr absl::string_view kExpected =
        "expected format, name, version, hosts, nics, gpus, switches, links, aggregation_nodes, "
        "unattributed_nics";
    auto check_known = [&](const std::string& key, auto& names,
                           absl::string_view kind) -> absl::Status {
      for (absl::string_view k : names) {
        if (k == key) return absl::OkStatus();
      }
      return HeaderError(absl::StrCat("unknown top-level ", kind, " '", key, "'; ", kExpected));
    };
    for (const auto& [key, value] : doc.scalars) {
      if (check_known(key, kSections, "").ok()) {
        return HeaderError(absl::StrCat(key, ": expected an array of records"));
      }
      TP_RETURN_IF_ERROR(check_known(key, kScalars, "field"));
    }
    for (const auto& [key, records] : doc.sections) {
      TP_RETURN_IF_ERROR(check_known(key, kSections, "array"));
    }
    const JsonValue* format = doc.Scalar("format");
    if (format == nullptr || format->kind != JsonValue::Kind::kString ||
        format->string != kFormat) {
      return HeaderError(absl::StrCat("format: expected \"", kFormat, "\""));
    }
    if (const JsonValue* name = doc.Scalar("name")) {
      if (name->kind != JsonValue::Kind::kString) return HeaderError("name: expected a string");
      name_ = name->string;
    }
    if (const JsonValue* version = doc.Scalar("version")) {
      if (!version->is_integer() || version->integer < 0) {
        return HeaderError("version: expected a non-negative integer");
      }
      version_ = version->kind == JsonValue::Kind::kUint ? version->unsigned_integer
                                                         : static_cast<uint64_t>(version->integer);
    }
    return absl::OkStatus();
  }

  template <typename Fn>
  absl::Status ForEach(const FlatDocument& doc, const std::string& section, Fn&& fn) {
    const std::vector<FlatRecord>* records = doc.Section(section);
    if (records == nullptr) return absl::OkStatus();
    const std::vector<int>& lines = lines_[section];
    for (size_t i = 0; i < records->size(); ++i) {
      RecordContext ctx(source_, section, i, i < lines.size() ? lines[i] : 0);
      TP_RETURN_IF_ERROR(fn(RecordReader((*records)[i], ctx), ctx));
    }
    return absl::OkStatus();
  }

  static absl::StatusOr<HostId> FindHost(const FabricBuilder& builder, const RecordReader& in,
                                         const RecordContext& ctx) {
    TP_ASSIGN_OR_RETURN(std::string name, in.String("host", true));
    std::optional<HostId> host = builder.FindHost(name);
    if (!host)
      return ctx.Error("host", absl::StrCat("no host named '", name, "' (declare it in hosts)"));
    return *host;
  }

  static absl::StatusOr<Endpoint> FindEndpoint(const FabricBuilder& builder, const RecordReader& in,
                                               const RecordContext& ctx, absl::string_view field) {
    TP_ASSIGN_OR_RETURN(std::string name, in.String(field, true));
    if (name.find('/') != std::string::npos) {
      if (std::optional<NicId> nic = builder.FindNic(name)) return NicEnd(*nic);
    } else if (std::optional<SwitchId> sw = builder.FindSwitch(name)) {
      return SwitchEnd(*sw);
    }
    return ctx.Error(field, absl::StrCat("no NIC or switch named '", name,
                                         "'; expected \"host/nic\" from nics or a switch name"));
  }

  absl::string_view text_;
  absl::string_view source_;
  std::string name_;
  uint64_t version_ = 1;
  absl::flat_hash_map<std::string, std::vector<int>> lines_;
};

// Shortest text that reads back as the same double; integers without a fraction.
void AppendNumber(std::string& out, double v) {
  if (std::abs(v) < 1e15 && v == std::floor(v)) {
    absl::StrAppend(&out, static_cast<int64_t>(v));
    return;
  }
  out += Json(v).dump();
}

// Writes `"key": value` pairs of one record on one line.
class RecordWriter {
 public:
  explicit RecordWriter(std::string& out) : out_(out) { out_ += "    {"; }
  RecordWriter& Str(absl::string_view key, absl::string_view value) {
    Key(key);
    AppendJsonString(out_, value);
    return *this;
  }
  RecordWriter& Num(absl::string_view key, double value) {
    Key(key);
    AppendNumber(out_, value);
    return *this;
  }
  void End(bool last) { out_ += last ? "}\n" : "},\n"; }

 private:
  void Key(absl::string_view key) {
    if (!first_) out_ += ", ";
    first_ = false;
    AppendJsonString(out_, key);
    out_ += ": ";
  }
  std::string& out_;
  bool first_ = true;
};

template <typename T, typename Fn>
void WriteSection(std::string& out, absl::string_view name, const std::vector<T>& items,
                  bool last_section, Fn&& write_fields) {
  out += "  ";
  AppendJsonString(out, name);
  out += ": [";
  if (!items.empty()) out += "\n";
  for (size_t i = 0; i < items.size(); ++i) {
    RecordWriter w(out);
    write_fields(w, items[i]);
    w.End(i + 1 == items.size());
  }
  out += items.empty() ? "]" : "  ]";
  out += last_section ? "\n" : ",\n";
}

}  // namespace

absl::StatusOr<FabricPtr> ParseFabricJson(absl::string_view text, absl::string_view source_name) {
  return FabricJsonReader(text, source_name).Read();
}

absl::StatusOr<FabricPtr> LoadFabricFile(const std::string& path) {
  TP_ASSIGN_OR_RETURN(const std::string text,
                      ReadInputFile(path, kMaxFabricFileBytes, "fabric file"));
  return ParseFabricJson(text, path);
}

std::string FabricToJson(const Fabric& f) {
  std::string out;
  out.reserve(128 * (f.hosts().size() + f.nics().size() + f.gpus().size() + f.links().size()));
  out += "{\n  \"format\": ";
  AppendJsonString(out, kFormat);
  out += ",\n  \"name\": ";
  AppendJsonString(out, f.name());
  absl::StrAppend(&out, ",\n  \"version\": ", f.version(), ",\n");
  WriteSection(out, "hosts", f.hosts(), false, [](RecordWriter& w, const Host& h) {
    w.Str("name", h.name);
    if (!h.nvlink_domain.empty()) w.Str("nvlink_domain", h.nvlink_domain);
    if (!h.gpu_model.empty()) w.Str("gpu_model", h.gpu_model);
  });
  WriteSection(out, "nics", f.nics(), false, [&f](RecordWriter& w, const Nic& n) {
    w.Str("host", f.hosts()[n.host].name).Str("name", n.name).Num("speed_gbps", n.speed_gbps);
  });
  WriteSection(out, "gpus", f.gpus(), false, [&f](RecordWriter& w, const Gpu& g) {
    w.Str("host", f.hosts()[g.host].name).Num("index", g.index);
    if (g.nic >= 0) w.Str("nic", f.nics()[g.nic].name);
    if (g.numa >= 0) w.Num("numa", g.numa);
  });
  WriteSection(out, "switches", f.switches(), false, [](RecordWriter& w, const Switch& s) {
    w.Str("name", s.name);
    const int32_t tier = s.tier != 0 ? s.tier : s.declared_tier;
    if (tier != 0) w.Num("tier", tier);
  });
  // The optional last sections are written only when there is something in them, so files
  // without aggregation nodes or unattributed NICs keep their exact canonical text.
  const bool has_aggregation = !f.aggregation_nodes().empty();
  const bool has_unattributed = !f.unattributed_nics().empty();
  WriteSection(out, "links", f.links(), !has_aggregation && !has_unattributed,
               [&f](RecordWriter& w, const Link& l) {
                 w.Str("a", f.EndpointName(l.a))
                     .Str("b", f.EndpointName(l.b))
                     .Num("speed_gbps", l.speed_gbps);
                 w.Num("lanes", l.lanes).Num("count", l.count).Str("state", LinkStateName(l.state));
               });
  auto write_attachment = [&f](RecordWriter& w, const SwitchAttachment& a) {
    w.Str("name", a.name).Str("switch", f.switches()[a.switch_id].name);
    if (!a.port.empty()) w.Str("port", a.port);
  };
  if (has_aggregation) {
    WriteSection(out, "aggregation_nodes", f.aggregation_nodes(), !has_unattributed,
                 write_attachment);
  }
  if (has_unattributed) {
    WriteSection(out, "unattributed_nics", f.unattributed_nics(), true, write_attachment);
  }
  out += "}\n";
  return out;
}

absl::Status SaveFabricFile(const Fabric& fabric, const std::string& path) {
  const std::string tmp = absl::StrCat(path, ".tmp");
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) return absl::PermissionDeniedError(absl::StrCat("cannot write '", tmp, "'"));
    out << FabricToJson(fabric);
    out.flush();
    if (!out) return absl::DataLossError(absl::StrCat("short write to '", tmp, "'"));
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    std::remove(tmp.c_str());
    return absl::PermissionDeniedError(absl::StrCat("cannot rename '", tmp, "' to '", path, "'"));
  }
  return absl::OkStatus();
}

absl::StatusOr<FabricPtr> LoadFabricSpec(const std::string& spec) {
  if (absl::StartsWith(spec, kPresetPrefix)) {
    return GeneratePreset(absl::string_view(spec).substr(kPresetPrefix.size()));
  }
  return LoadFabricFile(spec);
}

}  // namespace topoplace
