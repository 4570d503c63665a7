#!/usr/bin/env bash
# Fuzzes every Jazzer target of the core in turn (Jazzer fuzzes one target per run), each for a chosen time.
#
#   benchmarks/fuzz-all.sh [SECONDS_PER_TARGET] [MAX_EXECUTIONS_PER_TARGET] [TARGET_FILTER]
#   e.g. benchmarks/fuzz-all.sh 3600 10000000          (1 hour or 10M executions, whichever comes first)
#        benchmarks/fuzz-all.sh 180 "" "DeliveryFuzzTest|WireCodec"   (3 minutes of each target whose Class#method matches the regex)
#
# Each target is fuzzed with JAZZER_FUZZ=1 -Dtest=Class#method, its budget passed as JAZZER_MAX_DURATION and
# JAZZER_MAX_EXECUTIONS: Jazzer 0.25+ takes those over the @FuzzTest maxDuration (30 s for most targets here),
# so one Jazzer run covers the whole budget. Should a run end early, the script starts the target again until
# SECONDS_PER_TARGET (default 120) or MAX_EXECUTIONS_PER_TARGET is reached; the working corpus in
# reliable-udp-core/.cifuzz-corpus/ (not committed) carries over between runs. FUZZ_OUT (default
# benchmarks/target/fuzz) names the log directory, so that runs of different targets can go side by side.
# Logs: $FUZZ_OUT/CLASS#METHOD.log; the summary (executions, executions/s, coverage, finding) is
# printed and written to $FUZZ_OUT/summary.txt. A finding stops that target: Jazzer writes the
# crashing input into src/test/resources/.../<Class>Inputs/<method>/; commit it with the fix, and the normal
# build replays it in regression mode. Exit status 1 when any target had a finding.
set -uo pipefail
cd "$(dirname "$0")/.."
SECONDS_PER_TARGET="${1:-120}"
MAX_EXECUTIONS="${2:-}"
FILTER="${3:-}"
export JAVA_HOME="${JAVA_HOME:-/usr/lib/jvm/temurin-25-jdk-amd64}"
OUT="${FUZZ_OUT:-benchmarks/target/fuzz}"
mkdir -p "$OUT"

# every @FuzzTest method of the core, as Class#method
targets=$(grep -rl '@FuzzTest' reliable-udp-core/src/test/java | sort | while read -r f; do
  cls=$(basename "$f" .java)
  awk -v cls="$cls" '/@FuzzTest/ {want=1; next} want && /void [a-zA-Z0-9_]+\(/ {
      match($0, /void [a-zA-Z0-9_]+\(/); m=substr($0, RSTART+5, RLENGTH-6); print cls "#" m; want=0 }' "$f"
done | grep -E "$FILTER")

# compile once; each run then starts the tests without recompiling
./mvnw -B -q -pl reliable-udp-core -am test-compile >/dev/null || { echo "test-compile failed"; exit 1; }

: > "$OUT/summary.txt"
status=0
for t in $targets; do
  log="$OUT/$t.log"
  : > "$log"
  echo "fuzzing $t for ${SECONDS_PER_TARGET} s${MAX_EXECUTIONS:+ or $MAX_EXECUTIONS executions} (log: $log)"
  start=$(date +%s)
  execs=0; fuzz_seconds=0; finding=no; cov=?
  while :; do
    # Jazzer >= 0.25 takes JAZZER_MAX_DURATION / JAZZER_MAX_EXECUTIONS over the annotation's maxDuration, so one
    # run normally covers the whole budget; the loop only restarts it if it ends early
    left_s=$((SECONDS_PER_TARGET - ($(date +%s) - start))); [ "$left_s" -lt 1 ] && left_s=1
    left_n=0; [ -n "$MAX_EXECUTIONS" ] && left_n=$((MAX_EXECUTIONS - execs))
    JAZZER_FUZZ=1 JAZZER_MAX_DURATION="${left_s}s" JAZZER_MAX_EXECUTIONS="$left_n" \
      ./mvnw -B -pl reliable-udp-core surefire:test "-Dtest=$t" -Dsurefire.failIfNoSpecifiedTests=false >> "$log" 2>&1
    rc=$?
    done_line=$(grep -aE '^Done [0-9]+ runs in [0-9]+ second' "$log" | tail -1)
    n=$(echo "$done_line" | sed -nE 's/^Done ([0-9]+) runs in ([0-9]+) second.*/\1/p')
    s=$(echo "$done_line" | sed -nE 's/^Done ([0-9]+) runs in ([0-9]+) second.*/\2/p')
    c=$(grep -aE '^#[0-9]+.*cov: ' "$log" | tail -1 | sed -nE 's/.*cov: ([0-9]+).*/\1/p')
    [ -n "$c" ] && cov=$c
    if [ $rc -ne 0 ] || grep -aqE '== Java Exception|FuzzTestFindingException|deadly signal' "$log"; then
      finding=YES; status=1; break
    fi
    [ -n "$n" ] && { execs=$((execs + n)); fuzz_seconds=$((fuzz_seconds + s)); }
    # count each run once: the next grep must not see this run's Done line again
    sed -i 's/^Done \([0-9]* runs in\)/Counted \1/' "$log"
    now=$(date +%s)
    [ $((now - start)) -ge "$SECONDS_PER_TARGET" ] && break
    [ -n "$MAX_EXECUTIONS" ] && [ "$execs" -ge "$MAX_EXECUTIONS" ] && break
  done
  rate=$([ "$fuzz_seconds" -gt 0 ] && echo $((execs / fuzz_seconds)) || echo ?)
  printf '%-70s executions %-11s fuzzing s %-6s exec/s %-7s cov %-6s finding %s\n' \
    "$t" "$execs" "$fuzz_seconds" "$rate" "$cov" "$finding" | tee -a "$OUT/summary.txt"
done
echo "summary in $OUT/summary.txt"
exit $status
