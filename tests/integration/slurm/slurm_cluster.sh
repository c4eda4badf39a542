# Sourced by the Slurm integration tests: Debian's Slurm 22.05, one slurmctld and 8 slurmd
# on loopback under a scratch directory, nodes b00-n[000-003] and b01-n[000-003] (the host
# names of `topoplace fabric generate --blocks-per-pod 2 --nodes-per-block 4`).
#
# On source: exits 77 (skipped) without root or Slurm; sets D (scratch dir), SLURM_CONF,
# nodes, ctld_port, node_port. Defines write_config, start_slurm, stop_slurm, wait_running,
# fail. The caller traps EXIT, calls stop_slurm and removes "$D".
# Knobs: SLURM_NODE_CPUS (default 2), SLURM_EXTRA_CONF (lines appended to slurm.conf),
# SLURM_NODE_SPEC and SLURM_NODE_NAMES (other nodes: a Slurm host list and the same
# names spelled out),
# extra_logs (array of files fail() prints besides the slurmctld log).

if [[ $(id -u) -ne 0 ]]; then echo "SKIP: needs root (slurmd runs as root)"; exit 77; fi
for tool in slurmctld slurmd sbatch squeue scontrol; do
  command -v "$tool" >/dev/null || { echo "SKIP: $tool not installed"; exit 77; }
done

D=$(mktemp -d /tmp/topoplace-slurm.XXXXXX)
export SLURM_CONF=$D/etc/slurm.conf
daemon_pids=()
extra_logs=()
node_spec=${SLURM_NODE_SPEC:-b00-n[000-003],b01-n[000-003]}
read -r -a nodes <<<"${SLURM_NODE_NAMES:-b00-n000 b00-n001 b00-n002 b00-n003 b01-n000 b01-n001 b01-n002 b01-n003}"

stop_slurm() {
  if ((${#daemon_pids[@]})); then
    scancel --quiet --full --user=root 2>/dev/null || true
    for _ in $(seq 50); do
      [[ -z $(squeue -h 2>/dev/null) ]] && break
      sleep 0.2
    done
    kill "${daemon_pids[@]}" 2>/dev/null || true
    wait "${daemon_pids[@]}" 2>/dev/null || true
    daemon_pids=()
  fi
  pkill -f "slurmstepd.*$D" 2>/dev/null || true
}

fail() {
  echo "FAIL: $*"
  echo "--- slurmctld log"; tail -n 30 "$D/log/slurmctld.log" 2>/dev/null || true
  local log
  for log in "${extra_logs[@]}"; do
    echo "--- $log"; tail -n 30 "$log" 2>/dev/null || true
  done
  exit 1
}

# slurmctld's port and the slurmds' after it, below the kernel's ephemeral range
# (free_port.py): a port there can be taken by any outgoing connection, slurmctld's own
# among them, before the slurmd meant to listen on it binds. (Once in CI one slurmd stayed
# "unk*" with the ports drawn from 20000-39999; a port taken so is the cause that fit.)
ctld_port=$(python3 "$(dirname "${BASH_SOURCE[0]}")/../../testing/free_port.py" $((1 + ${#nodes[@]})))
((ctld_port > 0)) || fail "no ${#nodes[@]} + 1 consecutive free ports below the ephemeral range"
node_port=$((ctld_port + 1))

write_config() {  # $1: topology plugin
  mkdir -p "$D"/{etc,log,run,state,spool}
  cat >"$SLURM_CONF" <<CONF
ClusterName=topoplace-test
SlurmctldHost=$(hostname)(127.0.0.1)
SlurmctldPort=$ctld_port
SlurmUser=root
SlurmdUser=root
AuthType=auth/none
CredType=cred/none
ProctrackType=proctrack/pgid
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
TopologyPlugin=$1
SlurmdParameters=config_overrides
MpiDefault=none
ReturnToService=2
SchedulerType=sched/builtin
JobCompType=jobcomp/none
AccountingStorageType=accounting_storage/none
StateSaveLocation=$D/state
SlurmdSpoolDir=$D/spool/%n
SlurmctldPidFile=$D/run/slurmctld.pid
SlurmdPidFile=$D/run/slurmd-%n.pid
SlurmctldLogFile=$D/log/slurmctld.log
SlurmdLogFile=$D/log/slurmd-%n.log
NodeName=$node_spec NodeHostname=$(hostname) NodeAddr=127.0.0.1 Port=[$node_port-$((node_port + ${#nodes[@]} - 1))] CPUs=${SLURM_NODE_CPUS:-2} RealMemory=1000
PartitionName=main Nodes=ALL Default=YES MaxTime=INFINITE State=UP
${SLURM_EXTRA_CONF:-}
CONF
  echo "CgroupPlugin=cgroup/v1" >"$D/etc/cgroup.conf"
}

start_slurm() {
  slurmctld -D -i >"$D/log/slurmctld.out" 2>&1 &
  daemon_pids+=($!)
  for n in "${nodes[@]}"; do
    slurmd -D -N "$n" >"$D/log/slurmd-$n.out" 2>&1 &
    daemon_pids+=($!)
  done
  for _ in $(seq 300); do
    # sinfo fails until slurmctld listens; under pipefail that must not end the script.
    idle=$( (sinfo -h -N -t idle -o %N 2>/dev/null || true) | sort -u | wc -l)
    [[ $idle -eq ${#nodes[@]} ]] && return 0
    sleep 0.2
  done
  # The slurmd logs of the nodes that are not idle say why (a port taken, a crash).
  local n
  for n in $(sinfo -h -N -o '%N %t' 2>/dev/null | awk '$2 != "idle" {print $1}' | sort -u); do
    extra_logs+=("$D/log/slurmd-$n.log" "$D/log/slurmd-$n.out")
  done
  fail "nodes did not become idle within 60 s: $(sinfo -h -N -o '%N %t' 2>&1 | tr '\n' ' ')"
}

wait_running() {  # $1: job id
  for _ in $(seq 150); do
    [[ $(squeue -h -j "$1" -o %t 2>/dev/null) == R ]] && return 0
    sleep 0.2
  done
  fail "job $1 did not start: $(squeue -h -j "$1" -o '%t %r' 2>&1)"
}
