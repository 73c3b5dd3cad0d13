#!/usr/bin/env bash
# with-busy-cpus.sh N COMMAND...: run COMMAND with N CPU-bound processes beside it for its whole run, then stop them
# (by pid, also when COMMAND fails or is interrupted). Its exit status is COMMAND's.
set -uo pipefail
count=$1
shift
pids=()
stop() { [ ${#pids[@]} -eq 0 ] || kill "${pids[@]}" 2>/dev/null; }
trap stop EXIT INT TERM
for _ in $(seq "$count"); do
    python3 -c 'while True: pass' &
    pids+=($!)
done
echo "with-busy-cpus: ${count} busy process(es) beside: $*" >&2
"$@"
