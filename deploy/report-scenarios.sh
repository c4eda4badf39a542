# Sourced by the deploy/make-*report.sh scripts: which scenarios to run again.
# SCENARIOS (space separated names, default every one): after a change that moves only
# some scenarios, the others' folders are kept as they are and each index is rebuilt from
# all of them.

# wanted NAME: true when NAME is to be run (and says so on stderr when it is kept).
wanted() {
  if [[ -n "${SCENARIOS:-}" && " $SCENARIOS " != *" $1 "* ]]; then
    echo "== $1: kept (not in SCENARIOS)" >&2
    return 1
  fi
}
