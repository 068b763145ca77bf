#!/usr/bin/env bash
# Fails when a C++ file is not laid out as .clang-format says (clang-format 14, Debian's clang-format package), naming
# each file; `scripts/check-format.sh --fix` rewrites them in place. Generated sources (translations/) are left out.
set -euo pipefail
cd "$(dirname "$0")/.."
command -v clang-format >/dev/null || { echo "check-format: clang-format not found (apt install clang-format)"; exit 1; }
mapfile -t files < <(git ls-files '*.cpp' '*.h' | grep -v -e '^translations/' -e '^tests/data/')
if [[ ${1:-} == --fix ]]; then
  clang-format --style=file -i "${files[@]}"
  exit 0
fi
bad=0
for f in "${files[@]}"; do
  if ! clang-format --style=file --dry-run -Werror "$f" >/dev/null 2>&1; then
    echo "check-format: $f is not formatted (scripts/check-format.sh --fix)"
    bad=1
  fi
done
(( bad == 0 )) && echo "check-format: ${#files[@]} files formatted"
exit $bad
