#include "tools/chunkproof/audit_live.h"

#include <numeric>

namespace cp::cli {
bool smaller_batch(const Case& a, const Case& b) {
  if (a.ctx.size() != b.ctx.size()) return a.ctx.size() < b.ctx.size();
  return std::accumulate(a.ctx.begin(), a.ctx.end(), std::int64_t{0}) <
         std::accumulate(b.ctx.begin(), b.ctx.end(), std::int64_t{0});
}

std::unique_ptr<AuditLive> start_audit_live(const LiveArgs& args) {
  if (!args.active()) return nullptr;
  auto l = std::make_unique<AuditLive>();
  l->args = args;
  l->planner = start_planner(args);
  return l;
}

std::optional<std::string> audit_live_batch(AuditLive& l, const Case& c) {
  // Interval level, as the model's search: the token-level simulation of a max_num_seqs x
  // max_model_len batch is the report's job, not the search's.
  live::LiveResult r =
      live::run_live(*l.planner, live_case(l.args, c), {.diff = diffing(l.args), .level = Level::interval});
  ++l.cases;
  if (!r.finding()) return std::nullopt;
  std::string sig = r.signature;
  auto& k = l.kinds[sig];
  if (k.batches++ == 0) k.first = print_case(r.c);
  if (!l.worst || smaller_batch(r.c, l.worst->c)) l.worst = std::move(r);
  return sig;
}

std::string audit_live_replay(const AuditLive& l, const Case& c) {
  std::string s = "chunkproof plan --planner-cmd '" + l.args.planner_cmd + "'";
  if (diffing(l.args)) s += " --version " + l.args.version;
  return s + " --case '" + print_case(c) + "'";
}

Json audit_live_json(const AuditLive& l) {
  Json kinds = Json::array();
  for (const auto& [sig, k] : l.kinds)
    kinds.push_back(Json{{"finding", sig}, {"batches", k.batches}, {"case", k.first}});
  Json worst = nullptr;
  if (l.worst)
    worst = Json{{"case", print_case(l.worst->c)},
                 {"finding", l.worst->signature},
                 {"detail", l.worst->detail},
                 {"replay", audit_live_replay(l, l.worst->c)},
                 {"result", live_json(*l.worst)}};
  return Json{{"planner_cmd", l.args.planner_cmd},
              {"diff_version", diffing(l.args) ? Json(l.args.version) : Json(nullptr)},
              {"cases", l.cases},
              {"starts", l.planner->starts()},
              {"kinds", kinds},
              {"worst", worst}};
}

void print_audit_live_text(std::ostream& os, const AuditLive& l) {
  os << "through     --planner-cmd '" << l.args.planner_cmd << "' (" << l.cases << " batch(es), " << l.planner->starts()
     << " start(s)); "
     << (diffing(l.args) ? "diffed against chunkproof's model of " + l.args.version
                         : std::string("checked with the invariants (no --version: not diffed)"))
     << "\n";
  for (const auto& [sig, k] : l.kinds) os << "            first " << sig << ": " << k.first << "\n";
  if (!l.worst) return;
  os << "worst batch " << print_case(l.worst->c) << "\n"
     << "            " << l.worst->signature << "\n"
     << "why         " << l.worst->detail << "\n"
     << "replay      " << audit_live_replay(l, l.worst->c) << "\n";
}

}  // namespace cp::cli
