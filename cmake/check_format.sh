#!/usr/bin/env bash
# Fails when one of our C++ sources differs from .clang-format (clang-format 14, Debian 12's).
# Usage: check_format.sh REPO_ROOT. Exit 77 (skipped) when clang-format is not installed.
set -euo pipefail
cd "$1"
fmt=$(command -v clang-format-14 || command -v clang-format || true)
if [[ -z $fmt ]]; then echo "SKIP: clang-format is not installed"; exit 77; fi
folders=(api client plugins scheduler store telemetry topology tests)
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  mapfile -t files < <(git ls-files "${folders[@]/%//*.h}" "${folders[@]/%//*.cc}")
else
  mapfile -t files < <(find "${folders[@]}" -name '*.h' -o -name '*.cc' | sort)
fi
bad=()
for f in "${files[@]}"; do
  "$fmt" --dry-run --Werror "$f" >/dev/null 2>&1 || bad+=("$f")
done
if ((${#bad[@]})); then
  printf '%s\n' "${bad[@]}"
  echo "${#bad[@]} file(s) differ from .clang-format; fix with: $fmt -i FILE..."
  exit 1
fi
echo "format: ${#files[@]} files follow .clang-format"
