#!/bin/sh
# A cheap stand-in for Claude Code (about 10 ms a call), used by the benchmarks: it reads the prompt from
# stdin, appends a line and commits, and prints Claude Code's stream-json (init, one tool call, result).
# BENCH_CLAIM=1: it also claims its story; as the verifier (STAR_ROLE=verifier) it accepts.
# BENCH_PRINT_BYTES=N: it first prints N bytes of assistant messages (the peak-memory benchmark).
# BENCH_SLEEP=S: as the implementer it first sleeps S seconds (a slow agent, for the fleet benchmark).
# BENCH_FEATURE=1: its work is a feature with its test (src/<story>.js, test/<story>.test.js), for the cost of
# verification by execution (fail-to-pass and mutants).
# BENCH_START_FILE=F: it first writes the time it started (epoch ms) to F (time to the first agent spawn).
if [ -n "$BENCH_START_FILE" ] && [ ! -s "$BENCH_START_FILE" ]; then date +%s%3N > "$BENCH_START_FILE"; fi
cat > /dev/null
if [ -n "$BENCH_SLEEP" ] && [ "$STAR_ROLE" != verifier ]; then sleep "$BENCH_SLEEP"; fi
# A story's work goes to a file of its own, so stories run side by side (the fleet) do not conflict.
work="bench-work${STAR_STORY_ID:+-$STAR_STORY_ID}.txt"
if [ "$STAR_ROLE" = verifier ]; then
  printf '%s' '{"verdict":"accept","findings":[]}' > "$STAR_VERDICT_FILE"
else
  echo "step $$" >> "$work"
  if [ -n "$BENCH_FEATURE" ]; then
    id=$(printf '%s' "${STAR_STORY_ID:-task}" | tr -c 'A-Za-z0-9' '_')
    mkdir -p src test
    printf 'export function f_%s(x) {\n  return x * 2 + 1;\n}\n' "$id" > "src/$id.js"
    printf "import assert from 'node:assert/strict';\nimport { test } from 'node:test';\nimport { f_%s } from '../src/%s.js';\n\ntest('f_%s', () => {\n  assert.equal(f_%s(1), 3);\n  assert.equal(f_%s(4), 9);\n});\n" "$id" "$id" "$id" "$id" "$id" > "test/$id.test.js"
  fi
  # Like agents of other runners it commits; in star-loop's sandbox .git is read-only and star-loop commits.
  { git add "$work" && git -c user.name=bench -c user.email=bench@example.invalid commit -q -m "bench step" --no-verify; } 2>/dev/null
  if [ -n "$BENCH_CLAIM" ]; then printf '{"complete":true,"story":"%s"}' "$STAR_STORY_ID" > "$STAR_CLAIM_FILE"; fi
fi
printf '%s\n' '{"type":"system","subtype":"init","session_id":"bench","model":"bench-model","tools":["Bash"]}'
if [ -n "$BENCH_PRINT_BYTES" ]; then
  line='{"type":"assistant","message":{"model":"bench-model","content":[{"type":"text","text":"'"$(head -c 900 /dev/zero | tr '\0' 'x')"'"}]},"session_id":"bench"}'
  yes "$line" | head -c "$BENCH_PRINT_BYTES"
  echo
fi
printf '%s\n' '{"type":"assistant","message":{"model":"bench-model","content":[{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"echo step >> bench-work.txt"}}]},"session_id":"bench"}'
printf '%s\n' '{"type":"result","subtype":"success","is_error":false,"result":"Appended a line.","session_id":"bench","total_cost_usd":0,"usage":{"input_tokens":10,"output_tokens":2}}'
