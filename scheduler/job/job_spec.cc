#include "scheduler/job/job_spec.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "topology/base/host_name.h"
#include "topology/base/status_macros.h"

namespace topoplace::sched {
namespace {

absl::Status FieldError(absl::string_view field, absl::string_view expected,
                        absl::string_view got) {
  return absl::InvalidArgumentError(
      absl::StrCat("job spec field '", field, "': expected ", expected, ", got '", got, "'"));
}

absl::StatusOr<int64_t> ParseInt(absl::string_view field, absl::string_view value, int64_t lo,
                                 int64_t hi) {
  int64_t v = 0;
  if (!absl::SimpleAtoi(value, &v) || v < lo || v > hi) {
    return FieldError(field, absl::StrCat("an integer in [", lo, ", ", hi, "]"), value);
  }
  return v;
}

// Seconds from a plain number or one with an s, m or h suffix (90, 90s, 30m, 1.5h).
absl::StatusOr<double> ParseSeconds(absl::string_view field, absl::string_view value) {
  absl::string_view digits = value;
  double scale = 1;
  if (!value.empty()) {
    switch (absl::ascii_tolower(value.back())) {
      case 's':
        scale = 1;
        digits.remove_suffix(1);
        break;
      case 'm':
        scale = 60;
        digits.remove_suffix(1);
        break;
      case 'h':
        scale = 3600;
        digits.remove_suffix(1);
        break;
      default:
        break;
    }
  }
  constexpr double kMaxSeconds = 365.0 * 24 * 3600;
  double v = 0;
  if (!absl::SimpleAtod(digits, &v) || !std::isfinite(v) || v < 0 || v * scale > kMaxSeconds) {
    return FieldError(field, "a duration from 0 to a year: seconds, or a number with s, m or h",
                      value);
  }
  return v * scale;
}

// Accepts plain numbers (7e10) and suffixed counts (70b, 6.7B, 1.5t, 350m).
absl::StatusOr<double> ParseCount(absl::string_view field, absl::string_view value, double lo,
                                  double hi) {
  absl::string_view digits = value;
  double scale = 1;
  if (!value.empty()) {
    switch (absl::ascii_tolower(value.back())) {
      case 'k':
        scale = 1e3;
        break;
      case 'm':
        scale = 1e6;
        break;
      case 'b':
        scale = 1e9;
        break;
      case 't':
        scale = 1e12;
        break;
      default:
        break;
    }
    if (scale != 1) digits.remove_suffix(1);
  }
  double v = 0;
  if (!absl::SimpleAtod(digits, &v) || !std::isfinite(v) || v * scale < lo || v * scale > hi) {
    return FieldError(
        field, absl::StrCat("a number in [", lo, ", ", hi, "] (suffixes k, m, b, t allowed)"),
        value);
  }
  return v * scale;
}

absl::StatusOr<int> DtypeBytes(absl::string_view value) {
  if (value == "bf16" || value == "fp16") return 2;
  if (value == "fp32") return 4;
  if (value == "fp8") return 1;
  return FieldError("dtype", "one of bf16, fp16, fp32, fp8", value);
}

// Which model fields the user set explicitly, applied over a preset afterwards.
struct ShapeOverrides {
  std::optional<int64_t> hidden, seq, micro_batch, layers, micro_batches;
  std::optional<double> params;
  std::optional<std::string> dtype;
  bool any() const {
    return hidden || seq || micro_batch || layers || micro_batches || params || dtype;
  }
};

absl::StatusOr<int> ParseDegree(absl::string_view field, absl::string_view value) {
  TP_ASSIGN_OR_RETURN(int64_t v, ParseInt(field, value, 1, 1 << 20));
  return static_cast<int>(v);
}

// "hosts[3]": the field an entry of `list` (job.hosts or job.exclude) is, in errors.
std::string HostListField(const std::vector<std::string>& list, const JobSpec& job) {
  return absl::StrCat(&list == &job.hosts ? "hosts" : "exclude", "[", list.size(), "]");
}

}  // namespace

absl::string_view RankOrderName(RankOrder order) {
  return order == RankOrder::kTpCpEpDpPp ? "tp-cp-ep-dp-pp" : "tp-cp-ep-pp-dp";
}

absl::string_view MaxTierName(MaxTier tier) {
  switch (tier) {
    case MaxTier::kLeaf:
      return "leaf";
    case MaxTier::kBlock:
      return "block";
    case MaxTier::kPod:
      return "pod";
    case MaxTier::kCluster:
      return "cluster";
  }
  return "cluster";
}

absl::StatusOr<JobSpec> ParseJobSpec(absl::string_view spec) {
  JobSpec job;
  ShapeOverrides shape;
  std::optional<std::string> preset;
  std::optional<int64_t> total_gpus;
  // The host list (exclude or hosts) that bare tokens continue, if any.
  std::vector<std::string>* host_list = nullptr;
  bool seen_tp = false, seen_pp = false, seen_dp = false;
  if (absl::StripAsciiWhitespace(spec).empty()) {
    return FieldError("spec", "key=value pairs such as 'tp=8,pp=4,dp=16'", spec);
  }
  for (absl::string_view raw : absl::StrSplit(spec, ',')) {
    absl::string_view token = absl::StripAsciiWhitespace(raw);
    if (token.empty()) return FieldError("spec", "no empty entries between commas", spec);
    const size_t eq = token.find('=');
    if (eq == absl::string_view::npos) {
      if (host_list == nullptr) return FieldError("spec", "key=value", token);
      TP_RETURN_IF_ERROR(CheckHostName(HostListField(*host_list, job), token));
      host_list->emplace_back(token);
      continue;
    }
    const std::string key = absl::AsciiStrToLower(token.substr(0, eq));
    const absl::string_view value = token.substr(eq + 1);
    host_list = nullptr;
    if (value.empty()) return FieldError(key, "a value", value);
    if (key == "tp") {
      TP_ASSIGN_OR_RETURN(job.tp, ParseDegree(key, value));
      seen_tp = true;
    } else if (key == "pp") {
      TP_ASSIGN_OR_RETURN(job.pp, ParseDegree(key, value));
      seen_pp = true;
    } else if (key == "dp") {
      TP_ASSIGN_OR_RETURN(job.dp, ParseDegree(key, value));
      seen_dp = true;
    } else if (key == "cp") {
      TP_ASSIGN_OR_RETURN(job.cp, ParseDegree(key, value));
    } else if (key == "ep") {
      TP_ASSIGN_OR_RETURN(job.ep, ParseDegree(key, value));
    } else if (key == "gpus") {
      TP_ASSIGN_OR_RETURN(total_gpus, ParseInt(key, value, 1, int64_t{1} << 30));
    } else if (key == "gpus_per_node") {
      TP_ASSIGN_OR_RETURN(job.gpus_per_node, ParseDegree(key, value));
    } else if (key == "tp_across_nodes") {
      TP_ASSIGN_OR_RETURN(int64_t v, ParseInt(key, value, 0, 1));
      job.tp_across_nodes = v == 1;
    } else if (key == "order") {
      if (value == "tp-cp-ep-dp-pp") {
        job.order = RankOrder::kTpCpEpDpPp;
      } else if (value == "tp-cp-ep-pp-dp") {
        job.order = RankOrder::kTpCpEpPpDp;
      } else {
        return FieldError(key, "tp-cp-ep-dp-pp or tp-cp-ep-pp-dp", value);
      }
    } else if (key == "model") {
      if (FindModelPreset(value) == nullptr) {
        return FieldError(key, absl::StrCat("one of ", absl::StrJoin(ModelPresetNames(), ", ")),
                          value);
      }
      preset = std::string(value);
    } else if (key == "h") {
      TP_ASSIGN_OR_RETURN(shape.hidden, ParseInt(key, value, 1, 1 << 20));
    } else if (key == "s") {
      TP_ASSIGN_OR_RETURN(shape.seq, ParseInt(key, value, 1, 1 << 24));
    } else if (key == "b") {
      TP_ASSIGN_OR_RETURN(shape.micro_batch, ParseInt(key, value, 1, 1 << 16));
    } else if (key == "layers") {
      TP_ASSIGN_OR_RETURN(shape.layers, ParseInt(key, value, 1, 1 << 14));
    } else if (key == "params") {
      TP_ASSIGN_OR_RETURN(shape.params, ParseCount(key, value, 1e6, 1e14));
    } else if (key == "mb") {
      TP_ASSIGN_OR_RETURN(shape.micro_batches, ParseInt(key, value, 1, 1 << 20));
    } else if (key == "dtype") {
      TP_RETURN_IF_ERROR(DtypeBytes(value).status());
      shape.dtype = std::string(value);
    } else if (key == "tp_bytes" || key == "cp_bytes" || key == "ep_bytes" || key == "dp_bytes" ||
               key == "pp_bytes") {
      TP_ASSIGN_OR_RETURN(double v, ParseCount(key, value, 0, 1e16));
      std::optional<double>* slot = key == "tp_bytes"   ? &job.bytes.tp
                                    : key == "cp_bytes" ? &job.bytes.cp
                                    : key == "ep_bytes" ? &job.bytes.ep
                                    : key == "dp_bytes" ? &job.bytes.dp
                                                        : &job.bytes.pp;
      *slot = v;
    } else if (key == "max_tier") {
      if (value == "leaf") {
        job.max_tier = MaxTier::kLeaf;
      } else if (value == "block") {
        job.max_tier = MaxTier::kBlock;
      } else if (value == "pod") {
        job.max_tier = MaxTier::kPod;
      } else if (value == "cluster") {
        job.max_tier = MaxTier::kCluster;
      } else {
        return FieldError(key, "leaf, block, pod or cluster", value);
      }
    } else if (key == "mode") {
      if (value == "hard") {
        job.mode = ConstraintMode::kHard;
      } else if (value == "soft") {
        job.mode = ConstraintMode::kSoft;
      } else {
        return FieldError(key, "hard or soft", value);
      }
    } else if (key == "max_wait") {
      TP_ASSIGN_OR_RETURN(job.max_wait_s, ParseSeconds(key, value));
    } else if (key == "segment") {
      TP_ASSIGN_OR_RETURN(job.segment, ParseInt(key, value, 1, 1 << 24));
    } else if (key == "priority") {
      TP_ASSIGN_OR_RETURN(job.priority, ParseInt(key, value, kMinPriority, kMaxPriority));
    } else if (key == "replace_on_restart") {
      const absl::string_view digits = absl::StripPrefix(value, "alloc-");
      if (digits.size() == value.size() || digits.empty() || digits.size() > 18 ||
          !std::all_of(digits.begin(), digits.end(), absl::ascii_isdigit)) {
        return FieldError(key, "an allocation id like alloc-42", value);
      }
      job.replace_on_restart = std::string(value);
    } else if (key == "exclude" || key == "hosts") {
      host_list = key == "exclude" ? &job.exclude : &job.hosts;
      TP_RETURN_IF_ERROR(CheckHostName(HostListField(*host_list, job), value));
      host_list->emplace_back(value);
    } else {
      return FieldError(key,
                        "a known key (tp, pp, dp, cp, ep, gpus, gpus_per_node, model, h, "
                        "s, b, layers, params, mb, dtype, *_bytes, order, max_tier, mode, "
                        "max_wait, segment, priority, replace_on_restart, exclude, hosts)",
                        token);
    }
  }
  if (!seen_tp || !seen_pp || !seen_dp) {
    const char* missing = !seen_tp ? "tp" : !seen_pp ? "pp" : "dp";
    return FieldError(missing, "to be present (tp, pp and dp are required)", "");
  }

  // Model shape: preset, then field overrides. Without a preset, either every shape field
  // or explicit bytes must be given; a bare spec uses the default preset.
  if (preset) {
    job.model = *FindModelPreset(*preset);
  } else if (!shape.any()) {
    job.model = *FindModelPreset(kDefaultModelPreset);
  } else {
    job.model = ModelShape{};
    job.model.name = "custom";
    const char* missing = !shape.hidden   ? "h"
                          : !shape.seq    ? "s"
                          : !shape.layers ? "layers"
                          : !shape.params ? "params"
                                          : nullptr;
    if (missing != nullptr) {
      return FieldError(missing, "to be set when the model is given by shape (or use model=)", "");
    }
  }
  if (shape.any() && preset) job.model.name = absl::StrCat(*preset, "+custom");
  if (shape.hidden) job.model.hidden = *shape.hidden;
  if (shape.seq) job.model.seq = *shape.seq;
  if (shape.micro_batch) job.model.micro_batch = *shape.micro_batch;
  if (shape.layers) job.model.layers = *shape.layers;
  if (shape.params) job.model.params = *shape.params;
  if (shape.micro_batches) job.model.micro_batches = *shape.micro_batches;
  if (shape.dtype) {
    job.model.dtype = *shape.dtype;
    TP_ASSIGN_OR_RETURN(job.model.dtype_bytes, DtypeBytes(*shape.dtype));
  }
  TP_RETURN_IF_ERROR(ValidateJobSpec(job));
  if (total_gpus && *total_gpus != job.world_size()) {
    return FieldError("gpus", absl::StrCat("tp*cp*ep*dp*pp = ", job.world_size(), " GPUs"),
                      absl::StrCat(*total_gpus));
  }
  return job;
}

absl::Status ValidateJobSpec(const JobSpec& job) {
  const std::pair<const char*, int> degrees[] = {
      {"tp", job.tp}, {"pp", job.pp}, {"dp", job.dp},
      {"cp", job.cp}, {"ep", job.ep}, {"gpus_per_node", job.gpus_per_node}};
  for (const auto& [name, value] : degrees) {
    if (value < 1) return FieldError(name, "an integer >= 1", absl::StrCat(value));
  }
  if (job.world_size() > (int64_t{1} << 24)) {
    return FieldError("tp*cp*ep*dp*pp", "at most 16777216 GPUs", absl::StrCat(job.world_size()));
  }
  // A TP group fills part of one node or whole nodes; whole nodes must then share an
  // NVLink domain, which the engine checks against the fabric (CheckTpFitsADomain).
  if (!job.tp_across_nodes && job.gpus_per_node % job.tp != 0 && job.tp % job.gpus_per_node != 0) {
    return FieldError("tp",
                      absl::StrCat("a divisor or a multiple of gpus_per_node=", job.gpus_per_node,
                                   " so that TP groups fill whole NVLink domains' hosts (set "
                                   "tp_across_nodes=1 to allow otherwise)"),
                      absl::StrCat(job.tp));
  }
  if (job.world_size() % job.gpus_per_node != 0) {
    return FieldError(
        "gpus_per_node",
        absl::StrCat("a divisor of the GPU count tp*cp*ep*dp*pp = ", job.world_size()),
        absl::StrCat(job.gpus_per_node));
  }
  if (job.segment < 0) return FieldError("segment", "an integer >= 1", absl::StrCat(job.segment));
  if (job.priority < kMinPriority || job.priority > kMaxPriority) {
    return FieldError("priority",
                      absl::StrCat("an integer in [", kMinPriority, ", ", kMaxPriority, "]"),
                      absl::StrCat(job.priority));
  }
  if (job.segment > 0 && job.segment < job.nodes() && job.nodes() % job.segment != 0) {
    return FieldError("segment",
                      absl::StrCat("a divisor of the job's ", job.nodes(),
                                   " nodes (Slurm refuses such a --segment at submission)"),
                      absl::StrCat(job.segment));
  }
  const ModelShape& m = job.model;
  if (m.hidden < 1 || m.seq < 1 || m.micro_batch < 1 || m.layers < 1 || m.micro_batches < 1 ||
      !(m.params > 0)) {
    return FieldError("model", "h, s, b, layers, mb and params all >= 1", m.name);
  }
  if (m.moe_layers > m.layers) {
    return FieldError("layers", absl::StrCat("at least the model's ", m.moe_layers, " MoE layers"),
                      absl::StrCat(m.layers));
  }
  if (m.experts > 0 && m.experts % job.ep != 0) {
    return FieldError("ep", absl::StrCat("a divisor of the model's ", m.experts, " experts"),
                      absl::StrCat(job.ep));
  }
  if (m.layers < job.pp) {
    return FieldError("pp", absl::StrCat("at most layers=", m.layers, " pipeline stages"),
                      absl::StrCat(job.pp));
  }
  if (m.seq % job.cp != 0) {
    return FieldError("cp", absl::StrCat("a divisor of the sequence length s=", m.seq),
                      absl::StrCat(job.cp));
  }
  if (m.hidden % job.tp != 0) {
    return FieldError("tp", absl::StrCat("a divisor of the hidden size h=", m.hidden),
                      absl::StrCat(job.tp));
  }
  return absl::OkStatus();
}

std::string FormatJobSpec(const JobSpec& job) {
  std::string out = absl::StrCat("tp=", job.tp, ",pp=", job.pp, ",dp=", job.dp);
  if (job.cp != 1) absl::StrAppend(&out, ",cp=", job.cp);
  if (job.ep != 1) absl::StrAppend(&out, ",ep=", job.ep);
  absl::StrAppend(&out, ",gpus_per_node=", job.gpus_per_node);
  if (job.tp_across_nodes) absl::StrAppend(&out, ",tp_across_nodes=1");
  if (job.order != RankOrder::kTpCpEpDpPp)
    absl::StrAppend(&out, ",order=", RankOrderName(job.order));
  const ModelShape& m = job.model;
  absl::StrAppend(&out, ",h=", m.hidden, ",s=", m.seq, ",b=", m.micro_batch, ",layers=", m.layers,
                  ",params=", m.params, ",mb=", m.micro_batches, ",dtype=", m.dtype);
  const std::pair<const char*, const std::optional<double>*> bytes[] = {
      {"tp_bytes", &job.bytes.tp},
      {"cp_bytes", &job.bytes.cp},
      {"ep_bytes", &job.bytes.ep},
      {"dp_bytes", &job.bytes.dp},
      {"pp_bytes", &job.bytes.pp}};
  for (const auto& [name, value] : bytes) {
    if (value->has_value()) absl::StrAppend(&out, ",", name, "=", **value);
  }
  absl::StrAppend(&out, ",max_tier=", MaxTierName(job.max_tier),
                  ",mode=", job.mode == ConstraintMode::kHard ? "hard" : "soft");
  if (job.max_wait_s) absl::StrAppend(&out, absl::StrFormat(",max_wait=%.17g", *job.max_wait_s));
  if (job.segment != 0) absl::StrAppend(&out, ",segment=", job.segment);
  if (job.priority != 0) absl::StrAppend(&out, ",priority=", job.priority);
  if (!job.replace_on_restart.empty()) {
    absl::StrAppend(&out, ",replace_on_restart=", job.replace_on_restart);
  }
  if (!job.exclude.empty()) absl::StrAppend(&out, ",exclude=", absl::StrJoin(job.exclude, ","));
  if (!job.hosts.empty()) absl::StrAppend(&out, ",hosts=", absl::StrJoin(job.hosts, ","));
  return out;
}

}  // namespace topoplace::sched
