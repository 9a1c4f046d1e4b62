// /healthz and /metrics (Prometheus text format): the coordinators' and
// replicas' counters, the gateway hub's generation and transition counts,
// how many consumer instances and sockets exist, and each route's request
// count by status and latency histogram.

#include <sstream>

#include "actors/metrics.hpp"
#include "gateway/rest/routes.hpp"

namespace troupe::rest {

namespace {

void counter(std::ostringstream& out, const char* name, const char* help,
             uint64_t v) {
  out << "# HELP " << name << ' ' << help << "\n# TYPE " << name << " counter\n"
      << name << ' ' << v << '\n';
}

void gauge(std::ostringstream& out, const char* name, const char* help,
           uint64_t v) {
  out << "# HELP " << name << ' ' << help << "\n# TYPE " << name << " gauge\n"
      << name << ' ' << v << '\n';
}

std::string label(const route& r) {
  return std::string{r.method} + " " + std::string{r.pattern};
}

void route_metrics(std::ostringstream& out, const services& svc) {
  constexpr auto relaxed = std::memory_order_relaxed;
  auto& table = routes();
  out << "# HELP troupe_http_requests_total HTTP requests by route and "
         "status.\n# TYPE troupe_http_requests_total counter\n";
  for (size_t i = 0; i < table.size(); ++i) {
    auto& s = svc.stats[i];
    for (size_t j = 0; j < route_stats::statuses.size(); ++j)
      if (auto n = s.by_status[j].load(relaxed); n > 0) {
        auto code = route_stats::statuses[j];
        out << "troupe_http_requests_total{route=\"" << label(table[i])
            << "\",status=\"" << (code ? std::to_string(code) : "other")
            << "\"} " << n << '\n';
      }
  }
  out << "# HELP troupe_http_request_duration_seconds HTTP latency by "
         "route.\n# TYPE troupe_http_request_duration_seconds histogram\n";
  for (size_t i = 0; i < table.size(); ++i) {
    auto& s = svc.stats[i];
    auto count = s.count.load(relaxed);
    if (count == 0)
      continue;
    auto name = label(table[i]);
    uint64_t cum = 0;
    for (size_t j = 0; j < s.bounds.size(); ++j) {
      cum += s.buckets[j].load(relaxed);
      out << "troupe_http_request_duration_seconds_bucket{route=\"" << name
          << "\",le=\"" << s.bounds[j] << "\"} " << cum << '\n';
    }
    out << "troupe_http_request_duration_seconds_bucket{route=\"" << name
        << "\",le=\"+Inf\"} " << count << '\n'
        << "troupe_http_request_duration_seconds_sum{route=\"" << name << "\"} "
        << static_cast<double>(s.sum_us.load(relaxed)) / 1e6 << '\n'
        << "troupe_http_request_duration_seconds_count{route=\"" << name
        << "\"} " << count << '\n';
  }
}

} // namespace

void healthz(const call& c) {
  c.reply(json_response("{\"status\":\"ok\"}", "application/json"));
}

void prometheus(const call& c) {
  c.ask<hub_stats>(
    c.svc().hub, hub_stats_request{},
    [c](caf::expected<hub_stats> hub) {
      c.ask<instance_count>(
        c.svc().instances, instance_count_request{},
        [c, hub](caf::expected<instance_count> inst) {
          std::ostringstream out;
          auto& m = metrics();
          counter(out, "troupe_rebalances_total",
                  "Transitions into PreparingRebalance.", m.rebalances);
          counter(out, "troupe_session_expiries_total",
                  "Members removed because their session expired.",
                  m.session_expiries);
          counter(out, "troupe_isr_shrinks_total",
                  "ISR shrinks stored by the controller.", m.isr_shrinks);
          counter(out, "troupe_isr_expands_total",
                  "ISR expands stored by the controller.", m.isr_expands);
          counter(out, "troupe_group_joins_total",
                  "JoinGroup requests handled.", m.joins);
          counter(out, "troupe_group_syncs_total",
                  "SyncGroup requests handled.", m.syncs);
          counter(out, "troupe_group_heartbeats_total", "Heartbeats handled.",
                  m.heartbeats);
          counter(out, "troupe_group_leaves_total",
                  "LeaveGroup requests handled.", m.leaves);
          counter(out, "troupe_offset_commits_total",
                  "OffsetCommit requests handled.", m.commits);
          counter(out, "troupe_produce_requests_total",
                  "Produce requests answered.", m.produces);
          counter(out, "troupe_fetch_requests_total",
                  "Fetch requests answered.", m.record_fetches);
          if (hub) {
            counter(out, "troupe_generation_changes_total",
                    "Group generation increments seen.",
                    hub->generation_changes);
            counter(out, "troupe_group_transitions_total",
                    "Group state transitions seen.", hub->group_transitions);
            gauge(out, "troupe_websockets", "Open /v1/ws sockets.",
                  hub->sockets);
            gauge(out, "troupe_websocket_members",
                  "/v1/ws sockets that are group members.", hub->members);
          }
          if (inst)
            gauge(out, "troupe_consumer_instances", "REST consumer instances.",
                  inst->instances);
          route_metrics(out, c.svc());
          c.reply(json_response(out.str(), "text/plain; version=0.0.4"));
        },
        milliseconds{5000});
    },
    milliseconds{5000});
}

} // namespace troupe::rest
