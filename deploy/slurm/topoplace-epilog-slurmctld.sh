#!/bin/sh
# EpilogSlurmctld for topoplace: releases the job's allocation when the job ends. The
# SPANK plugin's job epilog already does this on the job's nodes; use this script where
# the nodes cannot reach topoplaced. Slurm passes the job control environment, so
# SPANK_TOPOPLACE_PLAN_ID names the allocation (absent for jobs submitted without
# --topoplace or submitted unplaced).
#
# Environment (set in slurm.conf's environment or edit the defaults):
#   TOPOPLACE_SERVER  topoplaced address       (127.0.0.1:7469)
#   TOPOPLACE_BIN     the topoplace CLI         (topoplace on PATH)
#   TOPOPLACE_TOKEN_FILE  bearer token file read by the CLI (optional)
#   TOPOPLACE_MUNGE_SOCKET  or MUNGE (SlurmUser's uid in topoplaced's munge_admin_uids)
# Always exits 0: a failing EpilogSlurmctld must not hold up the controller; failures
# are logged to syslog and the allocation expires or can be released by hand
# (`topoplace --server ... release alloc-N`).
[ -n "$SPANK_TOPOPLACE_PLAN_ID" ] || exit 0
server=${TOPOPLACE_SERVER:-127.0.0.1:7469}
bin=${TOPOPLACE_BIN:-topoplace}
# The plan id comes from the job's environment, which its user set: release it only if it
# is this job's (committed to it, or reserved by its user), as the SPANK epilog checks.
if ! out=$(timeout 10 "$bin" --server "$server" release "$SPANK_TOPOPLACE_PLAN_ID" \
  --slurm-job "${SLURM_JOB_ID:-0}" --slurm-uid "${SLURM_JOB_UID:-0}" 2>&1); then
  logger -t topoplace-epilog "job ${SLURM_JOB_ID:-?}: release of $SPANK_TOPOPLACE_PLAN_ID failed: $out"
fi
exit 0
