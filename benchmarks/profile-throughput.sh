#!/usr/bin/env bash
# Profiles one-connection reliable-ordered throughput per message size (docs/benchmarks.md, "Throughput"
# and "Diagnostics"): NodeProbe's counts per delivered message, system calls and
# context switches per message (perf stat, when the kernel lets us), and a JFR recording with JDK 25's
# CPU-time sampler for `jfr view cpu-time-hot-methods`. Counts and shares, not rates: fit for a shared
# machine; rates only from a quiet one (1-minute load below 0.5).
#
#   benchmarks/profile-throughput.sh [OUT_DIR] [SIZES...]      (default: target/profile-<time>, 32 256 1024)
#   PROBE_ARGS="--congestion none" benchmarks/profile-throughput.sh ...   (extra NodeProbe options)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
java=${JAVA_HOME:-/usr/lib/jvm/temurin-25-jdk-amd64}/bin/java
jar=$here/target/benchmarks.jar
[ -f "$jar" ] || { echo "build the jar first: ./mvnw -q -pl benchmarks -am package -DskipTests" >&2; exit 2; }
out=${1:-$here/target/profile-$(date +%Y%m%d-%H%M%S)}
shift || true
sizes=${*:-32 256 1024}
mkdir -p "$out"
events=syscalls:sys_enter_sendto,syscalls:sys_enter_recvfrom,syscalls:sys_enter_epoll_wait,syscalls:sys_enter_write,syscalls:sys_enter_read,syscalls:sys_enter_futex,context-switches,task-clock
perf_ok=0
if command -v perf > /dev/null && perf stat -e syscalls:sys_enter_sendto -- true > /dev/null 2>&1; then
  perf_ok=1
fi
for size in $sizes; do
  echo "=== ${size} B, load $(cut -d' ' -f1-3 /proc/loadavg)" | tee -a "$out/summary.txt"
  cmd=("$java" "-XX:StartFlightRecording=filename=$out/size-$size.jfr,settings=profile,jdk.CPUTimeSample#enabled=true,jdk.CPUTimeSample#throttle=2ms"
       -cp "$jar" io.reliableudp.bench.throughput.NodeProbe --size "$size" --seconds 5 --offer ${PROBE_ARGS:-})
  if [ $perf_ok = 1 ]; then
    perf stat -x, -e "$events" -o "$out/perf-$size.csv" "${cmd[@]}" > "$out/probe-$size.txt" 2>&1
  else
    "${cmd[@]}" > "$out/probe-$size.txt" 2>&1
  fi
  grep -v -e '^WARNING' -e 'jfr,startup' "$out/probe-$size.txt" | tee -a "$out/summary.txt"
  if [ $perf_ok = 1 ]; then
    # the probe prints "(N delivered)" for the warm-up and the measured run: divide by both (whole JVM)
    total=$(grep -o '([0-9]* delivered)' "$out/probe-$size.txt" | tr -dc '0-9\n' | paste -sd+ | bc)
    awk -F, -v t="$total" '/^[0-9]/ {printf "  %-36s %14s  per delivered message %.5f\n", $3, $1, $1 / t}' "$out/perf-$size.csv" \
      | tee -a "$out/summary.txt"
  fi
  "${java%/java}/jfr" view --width 160 cpu-time-hot-methods "$out/size-$size.jfr" 2>/dev/null | head -25 > "$out/hot-$size.txt" || true
done
echo "results in $out (summary.txt; size-N.jfr: jfr view cpu-time-hot-methods / allocation-by-site)"
