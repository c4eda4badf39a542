#include "scheduler/job/job_spec.h"

#include <algorithm>
#include <array>
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
#include "base/host_name.h"
#include "base/status_macros.h"

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

// What a spec's keys fill in while it is read.
struct Parsing {
  JobSpec job;
  ShapeOverrides shape;
  std::optional<std::string> preset;
  std::optional<int64_t> total_gpus;
  // The host list (exclude or hosts) that bare tokens continue, if any.
  std::vector<std::string>* host_list = nullptr;
  bool seen_tp = false, seen_pp = false, seen_dp = false;
};

// One row of the spec's keys: the names it reads (several where they share a parser),
// what their values are and what they default to (docs/DESIGN.md's job spec table is
// JobSpecKeysTable()), and how a value is read into Parsing. `parse` gets the key it was
// found by, lower case.
struct SpecKey {
  std::vector<absl::string_view> names;
  absl::string_view value;
  absl::string_view fallback;
  absl::Status (*parse)(Parsing& p, absl::string_view key, absl::string_view value);
};

// Which of `names` `key` is (its index); names.size() if none.
size_t IndexOf(const std::vector<absl::string_view>& names, absl::string_view key) {
  return static_cast<size_t>(std::find(names.begin(), names.end(), key) - names.begin());
}

// Stores a parsed value into `field`, or returns the parse error.
template <typename T, typename U>
absl::Status Assign(T& field, absl::StatusOr<U> parsed) {
  if (!parsed.ok()) return parsed.status();
  field = *std::move(parsed);
  return absl::OkStatus();
}

// Reads `value` into the field of `fields` at the index of `key` among `names`.
template <typename T, size_t N>
absl::Status ParseInto(const std::vector<absl::string_view>& names, absl::string_view key,
                       const std::array<T*, N>& fields, absl::StatusOr<T> parsed) {
  return Assign(*fields[std::min(IndexOf(names, key), N - 1)], std::move(parsed));
}

// A value among `choices` (name, value), or an error listing them as `expected`.
template <typename T, size_t N>
absl::Status ParseChoice(absl::string_view key, absl::string_view value,
                         const std::array<std::pair<absl::string_view, T>, N>& choices,
                         absl::string_view expected, T& out) {
  for (const auto& [name, v] : choices) {
    if (value == name) {
      out = v;
      return absl::OkStatus();
    }
  }
  return FieldError(key, expected, value);
}

// Over 80 lines because it is a table: one entry per key of the job spec, read by the parser
// and printed as the spec's documentation.
const std::vector<SpecKey>& SpecKeys() {
  static const std::vector<SpecKey>* const kKeys = new std::vector<SpecKey>{
      {{"tp", "pp", "dp", "cp", "ep"},
       "parallel degrees, >= 1",
       "1 (tp, pp, dp required)",
       [](Parsing& p, absl::string_view key, absl::string_view value) {
         bool* const seen[] = {&p.seen_tp, &p.seen_pp, &p.seen_dp};
         const size_t i = IndexOf({"tp", "pp", "dp", "cp", "ep"}, key);
         if (i < 3) *seen[i] = true;
         return ParseInto<int, 5>({"tp", "pp", "dp", "cp", "ep"}, key,
                                  {&p.job.tp, &p.job.pp, &p.job.dp, &p.job.cp, &p.job.ep},
                                  ParseDegree(key, value));
       }},
      {{"gpus"},
       "total GPUs, a cross-check of the product",
       "-",
       [](Parsing& p, absl::string_view key, absl::string_view value) {
         return Assign(p.total_gpus, ParseInt(key, value, 1, int64_t{1} << 30));
       }},
      {{"gpus_per_node"},
       "GPUs of one host the job uses",
       "8",
       [](Parsing& p, absl::string_view key, absl::string_view value) {
         return Assign(p.job.gpus_per_node, ParseDegree(key, value));
       }},
      {{"tp_across_nodes"},
       "`0`/`1`: allow tp > gpus_per_node",
       "0",
       [](Parsing& p, absl::string_view key, absl::string_view value) {
         TP_ASSIGN_OR_RETURN(int64_t v, ParseInt(key, value, 0, 1));
         p.job.tp_across_nodes = v == 1;
         return absl::OkStatus();
       }},
      {{"order"},
       "`tp-cp-ep-dp-pp` or `tp-cp-ep-pp-dp` (fastest first)",
       "`tp-cp-ep-dp-pp`",
       [](Parsing& p, absl::string_view key, absl::string_view value) {
         return ParseChoice<RankOrder, 2>(key, value,
                                          {{{"tp-cp-ep-dp-pp", RankOrder::kTpCpEpDpPp},
                                            {"tp-cp-ep-pp-dp", RankOrder::kTpCpEpPpDp}}},
                                          "tp-cp-ep-dp-pp or tp-cp-ep-pp-dp", p.job.order);
       }},
      {{"model"},
       "preset `7b`, `70b`, `175b`, `405b` ...",
       "the default preset",
       [](Parsing& p, absl::string_view key, absl::string_view value) {
         if (FindModelPreset(value) == nullptr) {
           return FieldError(key, absl::StrCat("one of ", absl::StrJoin(ModelPresetNames(), ", ")),
                             value);
         }
         p.preset = std::string(value);
         return absl::OkStatus();
       }},
      {{"h", "s", "b", "layers", "mb"},
       "model shape overrides: hidden size, sequence length, micro-batch size, layers, "
       "micro-batches per iteration",
       "from the preset",
       [](Parsing& p, absl::string_view key, absl::string_view value) {
         const std::vector<absl::string_view> names = {"h", "s", "b", "layers", "mb"};
         constexpr int64_t kMax[] = {1 << 20, 1 << 24, 1 << 16, 1 << 14, 1 << 20};
         const size_t i = std::min<size_t>(IndexOf(names, key), 4);
         return ParseInto<std::optional<int64_t>, 5>(
             names, key,
             {&p.shape.hidden, &p.shape.seq, &p.shape.micro_batch, &p.shape.layers,
              &p.shape.micro_batches},
             absl::StatusOr<std::optional<int64_t>>(ParseInt(key, value, 1, kMax[i])));
       }},
      {{"params"},
       "model parameters (`70e9` or `70b`)",
       "from the preset",
       [](Parsing& p, absl::string_view key, absl::string_view value) {
         return Assign(p.shape.params, ParseCount(key, value, 1e6, 1e14));
       }},
      {{"dtype"},
       "`bf16`, `fp16`, `fp32` or `fp8`",
       "from the preset",
       [](Parsing& p, absl::string_view, absl::string_view value) {
         TP_RETURN_IF_ERROR(DtypeBytes(value).status());
         p.shape.dtype = std::string(value);
         return absl::OkStatus();
       }},
      {{"tp_bytes", "cp_bytes", "ep_bytes", "dp_bytes", "pp_bytes"},
       "explicit bytes per device per iteration for a dimension",
       "from the shape",
       [](Parsing& p, absl::string_view key, absl::string_view value) {
         return ParseInto<std::optional<double>, 5>(
             {"tp_bytes", "cp_bytes", "ep_bytes", "dp_bytes", "pp_bytes"}, key,
             {&p.job.bytes.tp, &p.job.bytes.cp, &p.job.bytes.ep, &p.job.bytes.dp, &p.job.bytes.pp},
             absl::StatusOr<std::optional<double>>(ParseCount(key, value, 0, 1e16)));
       }},
      {{"max_tier"},
       "`nvlink`, `leaf`, `block`, `pod`, `cluster`: the widest domain the job may span "
       "(`nvlink`: one NVLink domain)",
       "`cluster`",
       [](Parsing& p, absl::string_view key, absl::string_view value) {
         return ParseChoice<MaxTier, 5>(key, value,
                                        {{{"nvlink", MaxTier::kNvlink},
                                          {"leaf", MaxTier::kLeaf},
                                          {"block", MaxTier::kBlock},
                                          {"pod", MaxTier::kPod},
                                          {"cluster", MaxTier::kCluster}}},
                                        "nvlink, leaf, block, pod or cluster", p.job.max_tier);
       }},
      {{"mode"},
       "`hard` (fail if the tier cannot hold) or `soft` (relax with a note)",
       "`hard`",
       [](Parsing& p, absl::string_view key, absl::string_view value) {
         return ParseChoice<ConstraintMode, 2>(
             key, value, {{{"hard", ConstraintMode::kHard}, {"soft", ConstraintMode::kSoft}}},
             "hard or soft", p.job.mode);
       }},
      {{"max_wait"},
       "how long a scheduler holds a hard tier before relaxing it (`90`, `30s`, `30m`, `2h`)",
       "unset: forever",
       [](Parsing& p, absl::string_view key, absl::string_view value) {
         return Assign(p.job.max_wait_s, ParseSeconds(key, value));
       }},
      {{"segment"},
       "Slurm's `--segment`: nodes per segment, each inside one block (slurm-block; kueue-bestfit: "
       "Kueue's pod-set slices)",
       "-",
       [](Parsing& p, absl::string_view key, absl::string_view value) {
         return Assign(p.job.segment, ParseInt(key, value, 1, 1 << 24));
       }},
      {{"priority"},
       "higher is more important; an integer in [-2^31, 2^32-1] (Kubernetes' PriorityClass "
       "values, Slurm's job priorities); stored with the allocation (`Allocation.priority`), "
       "not read by placement",
       "0",
       [](Parsing& p, absl::string_view key, absl::string_view value) {
         return Assign(p.job.priority, ParseInt(key, value, kMinPriority, kMaxPriority));
       }},
      {{"replace_on_restart"},
       "`alloc-N`, the interrupted run this job restarts: a daemon keeps it off that run's "
       "hosts whose NIC cable failed (api/server/services/restart_exclusions.h)",
       "-",
       [](Parsing& p, absl::string_view key, absl::string_view value) {
         const absl::string_view digits = absl::StripPrefix(value, "alloc-");
         if (digits.size() == value.size() || digits.empty() || digits.size() > 18 ||
             !std::all_of(digits.begin(), digits.end(), absl::ascii_isdigit)) {
           return FieldError(key, "an allocation id like alloc-42", value);
         }
         p.job.replace_on_restart = std::string(value);
         return absl::OkStatus();
       }},
      {{"exclude", "hosts"},
       "hosts never to use (`exclude=h1,h2`); the only hosts to use (`hosts=h1,h2`: a "
       "scheduler that chose the nodes asks for the ranks' map on them)",
       "-",
       [](Parsing& p, absl::string_view key, absl::string_view value) {
         p.host_list = key == "exclude" ? &p.job.exclude : &p.job.hosts;
         TP_RETURN_IF_ERROR(CheckHostName(HostListField(*p.host_list, p.job), value));
         p.host_list->emplace_back(value);
         return absl::OkStatus();
       }},
  };
  return *kKeys;
}

const SpecKey* FindSpecKey(absl::string_view key) {
  for (const SpecKey& k : SpecKeys()) {
    if (IndexOf(k.names, key) < k.names.size()) return &k;
  }
  return nullptr;
}

std::string KnownKeyNames() {
  std::vector<absl::string_view> names;
  for (const SpecKey& k : SpecKeys()) names.insert(names.end(), k.names.begin(), k.names.end());
  return absl::StrJoin(names, ", ");
}

}  // namespace

std::string JobSpecKeysTable() {
  std::string out = "| key | value | default |\n| --- | --- | --- |\n";
  for (const SpecKey& k : SpecKeys()) {
    std::vector<std::string> names;
    for (absl::string_view n : k.names) names.push_back(absl::StrCat("`", n, "`"));
    absl::StrAppend(&out, "| ", absl::StrJoin(names, ", "), " | ", k.value, " | ", k.fallback,
                    " |\n");
  }
  return out;
}

absl::string_view RankOrderName(RankOrder order) {
  return order == RankOrder::kTpCpEpDpPp ? "tp-cp-ep-dp-pp" : "tp-cp-ep-pp-dp";
}

absl::string_view MaxTierName(MaxTier tier) {
  switch (tier) {
    case MaxTier::kNvlink:
      return "nvlink";
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
  Parsing p;
  if (absl::StripAsciiWhitespace(spec).empty()) {
    return FieldError("spec", "key=value pairs such as 'tp=8,pp=4,dp=16'", spec);
  }
  for (absl::string_view raw : absl::StrSplit(spec, ',')) {
    absl::string_view token = absl::StripAsciiWhitespace(raw);
    if (token.empty()) return FieldError("spec", "no empty entries between commas", spec);
    const size_t eq = token.find('=');
    if (eq == absl::string_view::npos) {
      if (p.host_list == nullptr) return FieldError("spec", "key=value", token);
      TP_RETURN_IF_ERROR(CheckHostName(HostListField(*p.host_list, p.job), token));
      p.host_list->emplace_back(token);
      continue;
    }
    const std::string key = absl::AsciiStrToLower(token.substr(0, eq));
    const absl::string_view value = token.substr(eq + 1);
    p.host_list = nullptr;
    if (value.empty()) return FieldError(key, "a value", value);
    const SpecKey* known = FindSpecKey(key);
    if (known == nullptr) {
      return FieldError(key, absl::StrCat("a known key (", KnownKeyNames(), ")"), token);
    }
    TP_RETURN_IF_ERROR(known->parse(p, key, value));
  }
  JobSpec& job = p.job;
  const ShapeOverrides& shape = p.shape;
  const std::optional<std::string>& preset = p.preset;
  const std::optional<int64_t>& total_gpus = p.total_gpus;
  const bool seen_tp = p.seen_tp, seen_pp = p.seen_pp, seen_dp = p.seen_dp;
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
