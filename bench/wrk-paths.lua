-- wrk script for bench/api-load.ts: cycles through the request paths listed one per line in
-- the file NORDPROP_BENCH_PATHS (each thread from its own offset) and prints one JSON line of
-- figures at the end. wrk counts every status >= 400 as an error.
local paths = {}
for line in io.lines(os.getenv("NORDPROP_BENCH_PATHS")) do
  paths[#paths + 1] = line
end
local next_index = 0
local thread_count = 0

function setup(thread)
  thread:set("next_index", thread_count * 7919)
  thread_count = thread_count + 1
end

function request()
  next_index = next_index % #paths + 1
  return wrk.format("GET", paths[next_index])
end

function done(summary, latency, requests)
  local e = summary.errors
  io.write(string.format(
    '{"requests":%d,"durationUs":%d,"p50Us":%d,"p99Us":%d,"errors":%d}\n',
    summary.requests, summary.duration, latency:percentile(50), latency:percentile(99),
    e.connect + e.read + e.write + e.status + e.timeout))
end
