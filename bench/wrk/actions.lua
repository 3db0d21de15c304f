-- wrk script for the transition benchmark (bench/run.sh): POST /v1/apps/{app}/products/{id}/actions,
-- alternating submit_change and withdraw on every product of one app.
--
--   BENCH_TOKEN=<key> wrk -t2 -c32 -d20s -s bench/wrk/actions.lua http://127.0.0.1:18080 -- PLAN_FILE THREADS
--
-- PLAN_FILE has one line per product: "<bundleId> <productId> <first action>", the first action being
-- submit_change for a product READY_FOR_SALE and withdraw for one WAITING_FOR_REVIEW (run.sh writes it from
-- the database before each run, so a run may start where the previous one stopped). Product k (0-based) is
-- owned by thread k % THREADS, which walks its products round-robin and flips each product's action after
-- every request. With 1,000 products per thread and 16 connections per thread, a product's next request is
-- made 1,000 requests after its previous one, long after that one was answered: no two requests for one
-- product are ever in flight together, so every request is a legal transition and should answer 200.
-- Only request() is scripted (no response() hook), so wrk's own overhead stays small; done() prints one
-- machine-readable line.

local thread_count = 0

function setup(thread)
  thread:set("tid", thread_count)
  thread_count = thread_count + 1
end

local paths, actions, bodies, n, i = {}, {}, {}, 0, 0
local headers = {}

function init(args)
  local plan, threads = args[1], tonumber(args[2] or "1")
  local token = os.getenv("BENCH_TOKEN")
  assert(plan, "usage: -- PLAN_FILE THREADS")
  assert(token and token ~= "", "BENCH_TOKEN is not set")
  headers["Authorization"] = "Bearer " .. token
  headers["Content-Type"] = "application/json"
  bodies["submit_change"] = '{"action":"submit_change"}'
  bodies["withdraw"] = '{"action":"withdraw"}'
  local k = 0
  for line in io.lines(plan) do
    local app, id, first = line:match("^(%S+)%s+(%S+)%s+(%S+)$")
    if app then
      if k % threads == tid then
        n = n + 1
        paths[n] = "/v1/apps/" .. app .. "/products/" .. id .. "/actions"
        actions[n] = first
      end
      k = k + 1
    end
  end
  assert(n > 0, "no products for thread " .. tostring(tid))
end

-- wrk calls thread 0's request() once before the run to check the request it makes (script_verify_request),
-- and never sends that one: it must not flip a product's action, or that product's next request is refused.
local checked = false

function request()
  if tid == 0 and not checked then
    checked = true
    return wrk.format("POST", paths[1], headers, bodies[actions[1]])
  end
  i = i % n + 1
  local action = actions[i]
  actions[i] = (action == "submit_change") and "withdraw" or "submit_change"
  return wrk.format("POST", paths[i], headers, bodies[action])
end

done = function(summary, latency, requests)
  local dur = summary.duration / 1e6
  local e = summary.errors
  io.write(string.format(
    "BENCH_ACTIONS requests=%d duration_s=%.3f ok=%d non2xx=%d err_connect=%d err_read=%d err_write=%d " ..
    "err_timeout=%d ok_per_s=%.1f p50_ms=%.3f p90_ms=%.3f p99_ms=%.3f max_ms=%.3f\n",
    summary.requests, dur, summary.requests - e.status, e.status, e.connect, e.read, e.write, e.timeout,
    (summary.requests - e.status) / dur,
    latency:percentile(50) / 1000, latency:percentile(90) / 1000, latency:percentile(99) / 1000,
    latency.max / 1000))
end
