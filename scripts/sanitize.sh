#!/usr/bin/env bash
# The unit and actor tests under the sanitizers, each in its own
# build tree (not part of scripts/test.sh: two more full builds):
#
#   scripts/sanitize.sh              # ASan + UBSan, then TSan
#   scripts/sanitize.sh asan         # or: tsan
#   TROUPE_SANITIZE_TESTS=domain_tests scripts/sanitize.sh asan
#
# asan: build-asan/, -fsanitize=address,undefined, every UBSan report
#       fatal, leaks checked (LeakSanitizer).
# tsan: build-tsan/, -fsanitize=thread.
# Debian's libcaf is not instrumented: ASan and UBSan check troupe's code
# and what CAF's headers put into it; TSan sees CAF's header-only parts but
# not the synchronization inside libcaf_core (scripts/tsan.supp and
# scripts/lsan.supp say what is suppressed and why). Each binary runs all
# its test cases in one process; the output goes to
# build-<kind>/<binary>.log and the summary to stdout.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh >/dev/null
kinds=("$@")
[[ ${#kinds[@]} -gt 0 ]] || kinds=(asan tsan)
jobs="${TROUPE_BUILD_JOBS:-$(nproc)}"
# The unit (domain and storage) and actor tests; the gateway's and the
# processes' tests stay with scripts/test.sh. TROUPE_SANITIZE_TESTS
# narrows it (e.g. "domain_tests").
read -r -a binaries <<<"${TROUPE_SANITIZE_TESTS:-domain_tests actor_tests}"
status=0
for kind in "${kinds[@]}"; do
  case "$kind" in
    asan)
      # "null" stays recoverable so that scripts/ubsan.supp can name the
      # one report in CAF's headers; halt_on_error stops at any other.
      flags="-fsanitize=address,undefined -fno-sanitize-recover=undefined -fsanitize-recover=null -fno-omit-frame-pointer"
      run_env=(ASAN_OPTIONS=detect_leaks=1:abort_on_error=1:detect_stack_use_after_return=1
               "LSAN_OPTIONS=suppressions=$PWD/scripts/lsan.supp:print_suppressions=0"
               "UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1:suppressions=$PWD/scripts/ubsan.supp") ;;
    tsan)
      flags="-fsanitize=thread -fno-omit-frame-pointer"
      run_env=("TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1:suppressions=$PWD/scripts/tsan.supp") ;;
    *)
      echo "usage: scripts/sanitize.sh [asan|tsan]..." >&2
      exit 2 ;;
  esac
  dir="build-$kind"
  # A tree configured with other flags is configured again.
  if [[ -f "$dir/CMakeCache.txt" ]] && ! grep -qxF "CMAKE_CXX_FLAGS:STRING=$flags" "$dir/CMakeCache.txt"; then
    rm -f "$dir/build.ninja"
  fi
  if [[ ! -f "$dir/build.ninja" ]]; then
    mkdir -p "$dir"
    cmake -S . -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
      "-DCMAKE_CXX_FLAGS=$flags" "-DCMAKE_EXE_LINKER_FLAGS=$flags" \
      >"$dir/configure.log" 2>&1 || { tail -n 30 "$dir/configure.log"; exit 1; }
  fi
  started=$(date +%s)
  cmake --build "$dir" --parallel "$jobs" --target "${binaries[@]}" \
    >"$dir/build.log" 2>&1 || { tail -n 30 "$dir/build.log"; exit 1; }
  echo "$kind: built in $(( $(date +%s) - started )) s"
  for b in "${binaries[@]}"; do
    started=$(date +%s)
    if env "${run_env[@]}" "$dir/$b" --warn NoTests >"$dir/$b.log" 2>&1; then
      echo "$kind: $b passed in $(( $(date +%s) - started )) s: $(grep -E '^All tests passed|^test cases' "$dir/$b.log" | tail -n 1)"
    else
      status=1
      echo "$kind: $b FAILED after $(( $(date +%s) - started )) s (see $dir/$b.log):"
      grep -E 'ERROR: |WARNING: ThreadSanitizer|runtime error|FAILED|^test cases' "$dir/$b.log" | head -n 20
    fi
  done
done
exit "$status"
