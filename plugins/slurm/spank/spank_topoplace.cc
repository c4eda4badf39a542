// spank_topoplace.so: places PTD-P jobs with topoplaced from `sbatch/salloc/srun
// --topoplace=tp=8,pp=2,dp=4` (deploy/slurm/README.md is the operator guide).
//
// Where each step of a job's placement happens:
//   sbatch/salloc/srun (allocator, local; the option callback, before Slurm verifies the
//     options): Reserve (TTL) -> hostfile of the ranks' nodes in rank order ->
//     SLURM_HOSTFILE, so Slurm requests exactly those nodes with arbitrary distribution;
//     the allocation id goes to the job as TOPOPLACE_PLAN_ID (environment) and
//     SPANK_TOPOPLACE_PLAN_ID (job control environment: prolog, epilog and
//     EpilogSlurmctld see it under that name, the batch script as SLURM_SPANK_...).
//     srun inside a job does not place again.
//     If the job does not fit now (RESOURCE_EXHAUSTED: its GPUs or a hard max_tier are not
//     free), it is deferred to Slurm's queue instead (deferred_placement.h): job control
//     variables tell deploy/slurm/job_submit.lua its node count and switch request.
//   init_post_opt (same process): SLURM_HOSTFILE is unset again so it does not leak into
//     the job; exit removes the hostfile.
//   slurm_spank_job_prolog (slurmd, on the job's nodes, when the job starts): Commit to
//     "slurm:<job id>" (idempotent, so every node may do it). A job that never starts is
//     never committed: its reservation expires after the TTL. A deferred job is placed
//     here on the nodes Slurm gave it, with an idempotency key of its job id, so every
//     node's prolog (and later every step and the epilog) gets the same allocation.
//   slurmstepd (remote): init_post_opt fetches the plan once per step and node;
//     task_init sets each task's variables (task_env.h).
//   slurm_spank_job_epilog (slurmd, at job end): Release (idempotent).
// Every RPC has the plugstack `timeout`; no callback lets an exception out; prolog and
// epilog never fail (a failing prolog would drain the node), they log instead.
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

extern "C" {
#include <slurm/slurm.h>
#include <slurm/spank.h>
}

#include <cstdint>
#include <exception>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "plugins/common/node_name_map.h"
#include "plugins/slurm/spank/deferred_placement.h"
#include "plugins/slurm/spank/placement_session.h"
#include "plugins/slurm/spank/plan_view.h"
#include "plugins/slurm/spank/spank_config.h"
#include "plugins/slurm/spank/task_env.h"

extern "C" {
extern const char plugin_name[], plugin_type[];
extern const unsigned plugin_version, spank_plugin_version;
}
SPANK_PLUGIN(topoplace, 1)

namespace {

using topoplace::plugins::NodeNameMap;
using topoplace::slurm::DeferredSubmission;
using topoplace::slurm::FailurePolicy;
using topoplace::slurm::PlacementSession;
using topoplace::slurm::PlanView;
using topoplace::slurm::SpankConfig;

constexpr char kPlanIdVar[] = "TOPOPLACE_PLAN_ID";
// The job control variable as prolog and epilog see it, and as the batch step sees it.
constexpr char kControlPlanIdVar[] = "SPANK_TOPOPLACE_PLAN_ID";
constexpr char kJobControlPlanIdVar[] = "SLURM_SPANK_TOPOPLACE_PLAN_ID";
// A deferred job's spec, as prolog/epilog and as its steps see it.
constexpr char kControlDeferredVar[] = "SPANK_TOPOPLACE_DEFERRED_SPEC";
constexpr char kJobControlDeferredVar[] = "SLURM_SPANK_TOPOPLACE_DEFERRED_SPEC";

// One per process (sbatch, slurmstepd, ...); SPANK calls the plugin from one thread.
struct PluginState {
  bool config_loaded = false;
  SpankConfig config;
  NodeNameMap node_map;
  // Allocator/local: the reservation this submission made, or its deferral to Slurm.
  std::string placed_spec;
  std::string plan_id;
  std::string hostfile;
  std::optional<DeferredSubmission> deferred;
  // Remote: the job's plan, fetched once per step.
  std::optional<PlanView> plan;
  std::string remote_plan_id;
  bool task_warning_shown = false;
};

PluginState& State() {
  static PluginState* const state = new PluginState;
  return *state;
}

// Runs a callback body; anything thrown becomes `on_exception` and a log line.
template <typename Body>
int Guarded(const char* where, int on_exception, Body&& body) noexcept {
  try {
    return body();
  } catch (const std::exception& e) {
    slurm_error("topoplace: %s: %s", where, e.what());
  } catch (...) {
    slurm_error("topoplace: %s: unknown exception", where);
  }
  return on_exception;
}

bool IsSubmitter(spank_context_t context) {
  return context == S_CTX_ALLOCATOR || context == S_CTX_LOCAL;
}

std::string SpankGetenv(spank_t sp, const char* name) {
  // Room for a long job spec or node list (Slurm fails the call rather than truncate).
  std::vector<char> buf(64 * 1024);
  if (spank_getenv(sp, name, buf.data(), static_cast<int>(buf.size())) != ESPANK_SUCCESS) {
    return "";
  }
  return buf.data();
}

// The submission cannot be placed for a reason that is not the user's spec: warn and go on
// unplaced, or refuse, per `on_failure`.
int PlacementFailed(const PluginState& state, const absl::Status& status) {
  if (state.config.on_failure == FailurePolicy::kRefuse) {
    slurm_error("topoplace: no placement (%s); submission refused (on_failure=refuse)",
                std::string(status.message()).c_str());
    return -1;
  }
  slurm_spank_log("topoplace: warning: no placement (%s); the job proceeds unplaced",
                  std::string(status.message()).c_str());
  return 0;
}

absl::StatusOr<std::string> WriteHostfile(const PluginState& state, const PlanView& plan) {
  std::string path = absl::StrCat(state.config.hostfile_dir, "/topoplace-hosts.XXXXXX");
  const int fd = mkstemp(path.data());
  if (fd < 0) return absl::UnavailableError(absl::StrCat("cannot create hostfile ", path));
  const std::string text = topoplace::slurm::HostfileText(plan, state.node_map);
  const bool ok = fchmod(fd, 0644) == 0 &&
                  write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size());
  close(fd);
  if (!ok) {
    unlink(path.c_str());
    return absl::UnavailableError(absl::StrCat("cannot write hostfile ", path));
  }
  return path;
}

void ReleaseQuietly(PluginState& state) {
  if (state.plan_id.empty()) return;
  if (auto session = PlacementSession::Open(state.config); session.ok()) {
    (void)(*session)->Release(state.plan_id);
  }
  state.plan_id.clear();
}

// The job does not fit now: Slurm queues it (init_post_opt passes the deferral on).
int DeferToSlurm(PluginState& state, const std::string& spec, const absl::Status& why) {
  absl::StatusOr<DeferredSubmission> deferred = topoplace::slurm::DeferSubmission(spec);
  if (!deferred.ok()) return PlacementFailed(state, deferred.status());
  state.deferred = *std::move(deferred);
  state.placed_spec = spec;
  slurm_spank_log("topoplace: %s", std::string(why.message()).c_str());
  slurm_spank_log("%s", state.deferred->Summary().c_str());
  return 0;
}

// A deferred job that has started: its placement on the nodes Slurm gave it, made by the
// first caller and replayed (same idempotency key) for every other.
absl::StatusOr<topoplace::slurm::Reservation> StartedJobPlacement(const std::string& deferred_spec,
                                                                  const std::string& nodelist,
                                                                  uint32_t job_id) {
  if (nodelist.empty()) {
    return absl::FailedPreconditionError("SLURM_JOB_NODELIST is not set");
  }
  absl::StatusOr<topoplace::slurm::StartPlacement> start =
      topoplace::slurm::StartSpec(deferred_spec, nodelist, State().node_map);
  if (!start.ok()) return start.status();
  absl::StatusOr<std::unique_ptr<PlacementSession>> session =
      PlacementSession::Open(State().config);
  if (!session.ok()) return session.status();
  return (*session)->Reserve(start->spec, topoplace::slurm::StartRequestId(job_id), start->hosts);
}

// sbatch/salloc/srun: reserve, write the hostfile, steer Slurm with SLURM_HOSTFILE.
int PlaceSubmission(const char* optarg) {
  PluginState& state = State();
  absl::StatusOr<std::string> spec =
      topoplace::slurm::ValidateTopoplaceOption(optarg ? optarg : "");
  if (!spec.ok()) {
    slurm_error("%s", std::string(spec.status().message()).c_str());
    return -1;
  }
  // srun inside a placed job (or any job): the job's reservation already holds its nodes.
  if (spank_context() == S_CTX_LOCAL && (getenv("SLURM_JOB_ID") || getenv(kPlanIdVar))) return 0;
  // sbatch may hand the same option over twice (command line and script passes).
  if ((!state.plan_id.empty() || state.deferred) && state.placed_spec == *spec) return 0;
  ReleaseQuietly(state);
  state.deferred.reset();

  absl::StatusOr<std::unique_ptr<PlacementSession>> session = PlacementSession::Open(state.config);
  if (!session.ok()) return PlacementFailed(state, session.status());
  // The key carries the submitting user, so only that user's job may commit it
  // (job_binding.h); the nonce makes it unique.
  std::random_device random;
  const uint64_t nonce = (uint64_t{random()} << 32) | random();
  const std::string request_id =
      topoplace::slurm::SubmitRequestId(static_cast<uint32_t>(getuid()), nonce);
  absl::StatusOr<topoplace::slurm::Reservation> reservation =
      (*session)->Reserve(*spec, request_id);
  if (!reservation.ok()) {
    if (reservation.status().code() == absl::StatusCode::kInvalidArgument) {
      slurm_error("--topoplace: %s", std::string(reservation.status().message()).c_str());
      return -1;
    }
    if (reservation.status().code() == absl::StatusCode::kResourceExhausted) {
      return DeferToSlurm(state, *spec, reservation.status());
    }
    return PlacementFailed(state, reservation.status());
  }
  state.plan_id = reservation->plan_id;
  state.placed_spec = *spec;
  absl::StatusOr<std::string> hostfile = WriteHostfile(state, reservation->plan);
  if (!hostfile.ok()) {
    ReleaseQuietly(state);
    return PlacementFailed(state, hostfile.status());
  }
  state.hostfile = *hostfile;
  setenv("SLURM_HOSTFILE", state.hostfile.c_str(), 1);
  setenv(kPlanIdVar, state.plan_id.c_str(), 1);
  slurm_spank_log(
      "%s",
      topoplace::slurm::SummaryLine(state.plan_id, reservation->plan, state.node_map).c_str());
  return 0;
}

// slurmstepd: fetch the job's plan once for this step.
void FetchStepPlan(spank_t sp) {
  PluginState& state = State();
  std::string plan_id = SpankGetenv(sp, kJobControlPlanIdVar);
  if (plan_id.empty()) plan_id = SpankGetenv(sp, kControlPlanIdVar);
  if (plan_id.empty()) plan_id = SpankGetenv(sp, kPlanIdVar);
  absl::StatusOr<PlanView> plan = absl::NotFoundError("no plan");
  if (const std::string deferred = SpankGetenv(sp, kJobControlDeferredVar);
      plan_id.empty() && !deferred.empty()) {
    uint32_t job_id = 0;
    spank_get_item(sp, S_JOB_ID, &job_id);
    absl::StatusOr<topoplace::slurm::Reservation> started =
        StartedJobPlacement(deferred, SpankGetenv(sp, "SLURM_JOB_NODELIST"), job_id);
    plan_id = started.ok() ? started->plan_id : "(deferred)";
    plan = started.ok() ? absl::StatusOr<PlanView>(std::move(started->plan))
                        : absl::StatusOr<PlanView>(started.status());
  } else if (plan_id.empty()) {
    return;  // an unplaced job
  } else {
    absl::StatusOr<std::unique_ptr<PlacementSession>> session =
        PlacementSession::Open(state.config);
    plan =
        session.ok() ? (*session)->FetchPlan(plan_id) : absl::StatusOr<PlanView>(session.status());
  }
  if (!plan.ok()) {
    slurm_error("topoplace: plan %s unavailable (%s); tasks run without topoplace variables",
                plan_id.c_str(), std::string(plan.status().message()).c_str());
    return;
  }
  state.plan = std::move(*plan);
  state.remote_plan_id = plan_id;
  // sbatch hands the hostfile's arbitrary distribution to the batch script, where it
  // would break every plain `srun` (arbitrary without a hostfile is "-n 0"). Tasks find
  // their ranks from TOPOPLACE_RANK(S) instead, whatever the distribution.
  uint32_t step_id = 0;
  if (spank_get_item(sp, S_JOB_STEPID, &step_id) != ESPANK_SUCCESS ||
      step_id != SLURM_BATCH_SCRIPT) {
    return;
  }
  if (SpankGetenv(sp, "SLURM_DISTRIBUTION") == "arbitrary") {
    spank_unsetenv(sp, "SLURM_DISTRIBUTION");
    spank_unsetenv(sp, "SLURM_ARBITRARY_NODELIST");
  }
  // A deferred job's sbatch counted --ntasks-per-node for the one node it assumed, and
  // Slurm keeps that count in the batch script's SLURM_NTASKS: count the job's nodes.
  if (const std::optional<int64_t> tasks = topoplace::slurm::DeferredTaskCount(
          SpankGetenv(sp, "SLURM_JOB_NUM_NODES"), SpankGetenv(sp, "SLURM_NTASKS_PER_NODE"));
      tasks && !SpankGetenv(sp, kJobControlDeferredVar).empty()) {
    const std::string count = std::to_string(*tasks);
    spank_setenv(sp, "SLURM_NTASKS", count.c_str(), 1);
    spank_setenv(sp, "SLURM_NPROCS", count.c_str(), 1);
  }
}

void SetTaskEnvironment(spank_t sp) {
  PluginState& state = State();
  if (!state.plan) return;
  int task_id = 0;
  uint32_t local_tasks = 0;
  const std::string node = SpankGetenv(sp, "SLURMD_NODENAME");
  if (spank_get_item(sp, S_TASK_ID, &task_id) != ESPANK_SUCCESS ||
      spank_get_item(sp, S_JOB_LOCAL_TASK_COUNT, &local_tasks) != ESPANK_SUCCESS) {
    return;
  }
  absl::StatusOr<topoplace::slurm::TaskEnv> env =
      topoplace::slurm::TaskEnvironment(*state.plan, state.remote_plan_id, node, state.node_map,
                                        task_id, static_cast<int>(local_tasks));
  if (!env.ok()) {
    if (!state.task_warning_shown) {
      slurm_error("topoplace: %s; tasks run without topoplace variables",
                  std::string(env.status().message()).c_str());
      state.task_warning_shown = true;
    }
    return;
  }
  for (const auto& [name, value] : *env) spank_setenv(sp, name.c_str(), value.c_str(), 1);
}

// The prolog and epilog run as root with the job's true id and user from slurmd; the plan
// id comes from the job's environment, which its submitter set: act only on the job's own.
absl::Status CheckOwnJob(spank_t sp, PlacementSession& session, const std::string& plan_id,
                         uint32_t job_id, bool commit) {
  uid_t uid = 0;
  if (spank_get_item(sp, S_JOB_UID, &uid) != ESPANK_SUCCESS) {
    const char* env_uid = getenv("SLURM_JOB_UID");
    if (env_uid == nullptr) return absl::FailedPreconditionError("the job's user is unknown");
    uid = static_cast<uid_t>(strtoul(env_uid, nullptr, 10));
  }
  absl::StatusOr<topoplace::slurm::AllocationOwner> owner = session.Owner(plan_id);
  if (!owner.ok()) return owner.status();
  return topoplace::slurm::CheckJobMayBind(
      *owner, job_id, static_cast<uint32_t>(uid),
      commit ? topoplace::slurm::BindAction::kCommit : topoplace::slurm::BindAction::kRelease);
}

// Job prolog/epilog on a node: commit or release the job's allocation. Never fails.
void BindToJob(spank_t sp, bool commit) {
  const char* const env_plan_id = getenv(kControlPlanIdVar);
  const char* const deferred = getenv(kControlDeferredVar);
  std::string plan_id = env_plan_id ? env_plan_id : "";
  if (plan_id.empty() && (deferred == nullptr || *deferred == '\0')) return;
  uint32_t job_id = 0;
  if (spank_get_item(sp, S_JOB_ID, &job_id) != ESPANK_SUCCESS) {
    const char* env_id = getenv("SLURM_JOB_ID");
    job_id = env_id ? static_cast<uint32_t>(strtoul(env_id, nullptr, 10)) : 0;
  }
  if (plan_id.empty()) {
    // The prolog's environment names the job's nodes SLURM_NODELIST.
    const char* nodelist = getenv("SLURM_NODELIST");
    if (nodelist == nullptr) nodelist = getenv("SLURM_JOB_NODELIST");
    absl::StatusOr<topoplace::slurm::Reservation> started =
        StartedJobPlacement(deferred, nodelist ? nodelist : "", job_id);
    if (!started.ok()) {
      slurm_error("topoplace: job %u on %s runs without a plan: %s", job_id,
                  nodelist ? nodelist : "?", std::string(started.status().message()).c_str());
      return;
    }
    plan_id = started->plan_id;
  }
  absl::StatusOr<std::unique_ptr<PlacementSession>> session =
      PlacementSession::Open(State().config);
  absl::Status status = session.status();
  if (session.ok()) status = CheckOwnJob(sp, **session, plan_id, job_id, commit);
  if (status.ok()) {
    status = commit ? (*session)->Commit(plan_id, job_id) : (*session)->Release(plan_id);
  }
  const char* what = commit ? "commit" : "release";
  if (!status.ok()) {
    slurm_error("topoplace: %s of %s for job %u failed: %s", what, plan_id.c_str(), job_id,
                std::string(status.message()).c_str());
    return;
  }
  slurm_info("topoplace: %s of %s for job %u done", what, plan_id.c_str(), job_id);
}

// Parses the plugstack arguments once per process. Every callback receives them, and
// slurmd's prolog/epilog runs call job_prolog/job_epilog without init.
int LoadConfig(int ac, char** av) {
  PluginState& state = State();
  if (state.config_loaded) return ESPANK_SUCCESS;
  absl::StatusOr<SpankConfig> config =
      topoplace::slurm::ParseSpankArgs(std::vector<std::string>(av, av + ac));
  if (!config.ok()) {
    slurm_error("%s", std::string(config.status().message()).c_str());
    return ESPANK_BAD_ARG;
  }
  state.config = *config;
  if (!state.config.node_map.empty()) {
    absl::StatusOr<NodeNameMap> map = NodeNameMap::Load(state.config.node_map);
    if (!map.ok()) {
      slurm_error("spank_topoplace node_map: %s", std::string(map.status().message()).c_str());
      return ESPANK_BAD_ARG;
    }
    state.node_map = *std::move(map);
  }
  state.config_loaded = true;
  return ESPANK_SUCCESS;
}

}  // namespace

extern "C" {

static int TopoplaceOption(int /*val*/, const char* optarg, int /*remote*/) {
  return Guarded("--topoplace", -1,
                 [&] { return IsSubmitter(spank_context()) ? PlaceSubmission(optarg) : 0; });
}

static struct spank_option topoplace_option = {
    const_cast<char*>("topoplace"),
    const_cast<char*>("SPEC"),
    const_cast<char*>("Place the job with topoplace: tp=N,pp=N,dp=N[,gpus_per_node=N,"
                      "model=NAME,max_tier=leaf|block|pod|cluster,...]"),
    1,
    0,
    TopoplaceOption};

int slurm_spank_init(spank_t sp, int ac, char** av) {
  return Guarded("init", ESPANK_ERROR, [&] {
    if (int rc = LoadConfig(ac, av); rc != ESPANK_SUCCESS) return rc;
    if (spank_context() == S_CTX_SLURMD) return static_cast<int>(ESPANK_SUCCESS);
    return static_cast<int>(spank_option_register(sp, &topoplace_option));
  });
}

int slurm_spank_init_post_opt(spank_t sp, int /*ac*/, char** /*av*/) {
  return Guarded("init_post_opt", ESPANK_SUCCESS, [&] {
    PluginState& state = State();
    if (spank_context() == S_CTX_REMOTE) {
      FetchStepPlan(sp);
      return static_cast<int>(ESPANK_SUCCESS);
    }
    if (spank_context() == S_CTX_ALLOCATOR && state.plan_id.empty()) {
      // A new job submitted from inside a placed one must not inherit that job's plan.
      unsetenv(kPlanIdVar);
      unsetenv(kJobControlPlanIdVar);
      unsetenv(kJobControlDeferredVar);
    }
    if (IsSubmitter(spank_context()) && state.deferred) {
      for (const auto& [name, value] : state.deferred->ControlVariables()) {
        if (spank_err_t rc = spank_job_control_setenv(sp, name.c_str(), value.c_str(), 1);
            rc != ESPANK_SUCCESS) {
          slurm_error("topoplace: cannot pass %s to the job (%s); it is not deferred as asked",
                      name.c_str(), spank_strerror(rc));
        }
      }
      return static_cast<int>(ESPANK_SUCCESS);
    }
    if (!IsSubmitter(spank_context()) || state.plan_id.empty()) {
      return static_cast<int>(ESPANK_SUCCESS);
    }
    unsetenv("SLURM_HOSTFILE");
    if (spank_err_t rc =
            spank_job_control_setenv(sp, "TOPOPLACE_PLAN_ID", state.plan_id.c_str(), 1);
        rc != ESPANK_SUCCESS) {
      slurm_error(
          "topoplace: cannot pass %s to the job's prolog (%s); it will not be "
          "committed and expires after its TTL",
          state.plan_id.c_str(), spank_strerror(rc));
    }
    return static_cast<int>(ESPANK_SUCCESS);
  });
}

int slurm_spank_task_init(spank_t sp, int /*ac*/, char** /*av*/) {
  return Guarded("task_init", ESPANK_SUCCESS, [&] {
    SetTaskEnvironment(sp);
    return static_cast<int>(ESPANK_SUCCESS);
  });
}

int slurm_spank_job_prolog(spank_t sp, int ac, char** av) {
  return Guarded("job_prolog", ESPANK_SUCCESS, [&] {
    if (LoadConfig(ac, av) == ESPANK_SUCCESS) BindToJob(sp, /*commit=*/true);
    return static_cast<int>(ESPANK_SUCCESS);
  });
}

int slurm_spank_job_epilog(spank_t sp, int ac, char** av) {
  return Guarded("job_epilog", ESPANK_SUCCESS, [&] {
    if (LoadConfig(ac, av) == ESPANK_SUCCESS) BindToJob(sp, /*commit=*/false);
    return static_cast<int>(ESPANK_SUCCESS);
  });
}

int slurm_spank_exit(spank_t /*sp*/, int /*ac*/, char** /*av*/) {
  return Guarded("exit", ESPANK_SUCCESS, [&] {
    PluginState& state = State();
    if (IsSubmitter(spank_context()) && !state.hostfile.empty()) {
      unlink(state.hostfile.c_str());
      state.hostfile.clear();
    }
    return static_cast<int>(ESPANK_SUCCESS);
  });
}

}  // extern "C"
