// The brief form of a trace: what the MCP `trace` tool answers by default.
// Claude Code and hosts like it hand the model only structuredContent, so
// this object is the whole answer an agent reads; a whole trace of a module
// is megabytes (nn.LSTM: 960 KB). The brief is the answer first -- the
// summary (main path, selections, backward) -- plus the ops on that path and
// the alternatives the assumptions leave open, in a compact form, and it
// must fit a context window: at most kBriefMaxBytes whatever the op (issue
// 16 set 16 KB; the margin holds the version warning and the JSON-RPC
// envelope).
//
// When the compact form is still too big, lists are cut in the order of what
// an agent porting a kernel needs least: notes and open alternatives first,
// then Python call detail, most plumbing ops (no kernel, no library), op
// detail, backward entries and most of the summary's backward path,
// selection detail, the last plumbing ops, and only last the steps of the
// main path -- undecided branches before typical ones, and never the entry
// step or a step that runs a kernel or a library, so the entry op, the
// typical implementation with its kernels, and the backward op survive every
// cut. Each cut removes one item from the end of its list and subtracts that
// item's size, so fitting costs a few serialisations, not one per item.
#include <algorithm>
#include <functional>
#include <set>
#include <string>

#include "base/json.h"
#include "tools/mcp_tools.h"

namespace optrace {

using json = nlohmann::ordered_json;

namespace {

constexpr size_t kBriefMaxBytes = 16000, kBriefMaxAlternatives = 16, kBriefMaxNotFound = 10, kBriefMaxNotes = 8,
                 kBriefMaxCalls = 8, kBriefMaxFrames = 8, kBriefMaxKernels = 6;

// Keeps the first `limit` items of the array at obj[key]; returns how many were dropped.
size_t Cap(json& obj, const char* key, size_t limit) {
  if (!obj.contains(key) || !obj[key].is_array() || obj[key].size() <= limit) return 0;
  size_t dropped = obj[key].size() - limit;
  obj[key].erase(obj[key].begin() + static_cast<std::ptrdiff_t>(limit), obj[key].end());
  return dropped;
}

// Keeps only `keys` of obj.
void Keep(json& obj, std::initializer_list<const char*> keys) {
  json kept = json::object();
  for (const char* k : keys)
    if (obj.contains(k)) kept[k] = std::move(obj[k]);
  obj = std::move(kept);
}

bool NonEmpty(const json& obj, const char* key) { return obj.is_object() && obj.contains(key) && !obj[key].empty(); }

// An op (or a summary step) that runs code of its own: a kernel or a vendor library.
bool DoesWork(const json& op) { return NonEmpty(op, "kernels") || NonEmpty(op, "libraries"); }

// An op on the main path: its YAML line and dispatch, implementations,
// stubs, kernels and libraries with their lines, the condition of its edge.
json BriefOp(json op) {
  if (op.contains("yaml") && op["yaml"].is_object()) Keep(op["yaml"], {"file", "line", "dispatch"});
  for (auto& impl : op["impls"]) Keep(impl, {"key", "function", "file", "line"});
  for (auto& stub : op["stubs"]) {
    Keep(stub, {"name", "registrations"});
    for (auto& r : stub["registrations"]) Keep(r, {"device", "target", "file", "line"});
  }
  for (auto& kernel : op["kernels"]) Keep(kernel, {"name", "device", "file", "line"});
  Cap(op, "kernels", kBriefMaxKernels);
  for (auto& library : op["libraries"]) {
    Keep(library, {"name", "file", "line", "calls"});
    Cap(library, "calls", 4);
  }
  Keep(op,
       {"name", "role", "reached_from", "depth", "yaml", "impls", "stubs", "kernels", "libraries", "when", "typical"});
  op["calls"] = json::array();
  return op;
}

// An alternative: the op, where it branches off and the condition.
json BriefAlternative(const json& op) {
  json alt = {{"name", op["name"]}, {"role", op["role"]}};
  if (op.contains("reached_from")) alt["reached_from"] = op["reached_from"];
  if (op.contains("when") && !op["when"].empty()) alt["when"] = json::array({op["when"].back()});
  alt["typical"] = false;
  if (op.contains("undecided")) alt["undecided"] = true;
  return alt;
}

// --- cutting to size ---

// The bytes an array item takes in the serialised brief (its comma included).
size_t ItemBytes(const json& item) { return DumpJson(item).size() + 1; }

// Removes the last item of `array` that `pick` accepts, while more than
// `keep` of them are left; returns its size, 0 when there is none to remove.
size_t PopLast(json& array, size_t keep, const std::function<bool(const json&)>& pick = nullptr) {
  if (!array.is_array()) return 0;
  size_t matching = 0;
  for (const auto& item : array) matching += !pick || pick(item);
  if (matching <= keep) return 0;
  for (size_t i = array.size(); i-- > 0;) {
    if (pick && !pick(array[i])) continue;
    size_t bytes = ItemBytes(array[i]);
    array.erase(array.begin() + static_cast<std::ptrdiff_t>(i));
    return bytes;
  }
  return 0;
}

// Shortens the longest list `key` among the objects of `array` by one item, down to `keep`.
size_t PopFromLongest(json& array, const char* key, size_t keep) {
  if (!array.is_array()) return 0;
  json* longest = nullptr;
  for (auto& item : array)
    if (item.is_object() && item.contains(key) && item[key].is_array() && item[key].size() > keep &&
        (!longest || item[key].size() > (*longest)[key].size()))
      longest = &item;
  return longest ? PopLast((*longest)[key], keep) : 0;
}

// brief[path...], or a null value (nothing to cut) where the path is missing.
json& At(json& brief, std::initializer_list<const char*> path) {
  thread_local json none;  // tool calls run on several threads
  json* at = &brief;
  for (const char* key : path) {
    if (!at->is_object() || !at->contains(key)) {
      none = json();
      return none;
    }
    at = &(*at)[key];
  }
  return *at;
}

using Cut = std::function<size_t(json&)>;

// The cuts, least needed first; each removes one item per call.
std::vector<Cut> Cuts() {
  auto alternative = [](const json& op) { return !op.value("typical", true); };
  auto plumbing = [](const json& op) { return op.value("typical", true) && !DoesWork(op); };
  auto undecided_step = [](const json& step) { return step.value("undecided", false); };
  auto plumbing_step = [](const json& step) { return !DoesWork(step) && step.contains("level"); };
  auto top_plumbing_step = [](const json& step) { return !DoesWork(step); };
  return {
      [](json& b) { return PopLast(b["notes"], 2); },
      [](json& b) { return PopLast(b["not_found"], 2); },
      [=](json& b) { return PopLast(b["ops"], 0, alternative); },
      [](json& b) { return PopFromLongest(b["python"], "calls", 2); },
      [](json& b) { return PopLast(b["python"], 3); },
      [=](json& b) { return PopLast(b["ops"], 4, plumbing); },
      [](json& b) { return PopFromLongest(b["ops"], "when", 1); },
      [](json& b) { return PopFromLongest(b["ops"], "stubs", 1); },
      [](json& b) { return PopFromLongest(b["ops"], "kernels", 2); },
      [](json& b) { return PopLast(b["backward"], 2); },
      [](json& b) {
        return PopFromLongest(At(b, {"summary", "backward", "path"}), "kernels", 2);
      },
      [](json& b) {
        return PopLast(At(b, {"summary", "backward", "path"}), 8);
      },
      [](json& b) {
        return PopFromLongest(At(b, {"summary", "selections"}), "alternatives", 2);
      },
      [](json& b) {
        return PopLast(At(b, {"summary", "selections"}), 1);
      },
      [=](json& b) { return PopLast(b["ops"], 0, plumbing); },
      [](json& b) {
        return PopLast(At(b, {"summary", "backward", "path"}), 2);
      },
      [](json& b) {
        return PopFromLongest(At(b, {"summary", "path"}), "kernels", 2);
      },
      [=](json& b) {
        return PopLast(At(b, {"summary", "path"}), 1, undecided_step);
      },
      [=](json& b) {
        return PopLast(At(b, {"summary", "path"}), 1, plumbing_step);
      },
      [=](json& b) {
        return PopLast(At(b, {"summary", "path"}), 1, top_plumbing_step);
      },
      [](json& b) { return PopLast(b["ops"], 2); },
      // Last resort, for an op no real tree has yet: one of everything.
      [](json& b) { return PopLast(b["python"], 1); },
      [](json& b) { return PopLast(b["backward"], 1); },
      [](json& b) {
        return PopLast(At(b, {"summary", "path"}), 2);
      },
      [](json& b) { return PopLast(b["ops"], 1); },
  };
}

// Cuts until the brief fits kBriefMaxBytes (see the top of the file), less
// the digits of the omitted counts written after the cuts.
void FitBrief(json& brief) {
  constexpr size_t kLimit = kBriefMaxBytes - 16;
  size_t size = DumpJson(brief).size();
  for (const Cut& cut : Cuts()) {
    while (true) {
      if (size <= kLimit && (size = DumpJson(brief).size()) <= kLimit) return;
      size_t removed = cut(brief);
      if (!removed) break;
      size -= std::min(size, removed);
    }
  }
}

}  // namespace

json BriefTrace(const json& full) {
  // The top-level fields in their order; ops and decompositions are rebuilt
  // below (copying a module's megabyte of ops would cost more than the cuts).
  json brief = json::object();
  for (const auto& [key, value] : full.items()) {
    if (key == "selections") continue;  // the summary has them
    brief[key] = key == "ops" || key == "decompositions" ? json::array() : value;
  }
  std::set<std::string> on_path;
  for (const auto& p : full["summary"]["path"]) on_path.insert(p.value("op", std::string()));
  for (const auto& p : full["summary"]["backward"]["path"]) on_path.insert(p.value("op", std::string()));
  // Typical ops that do the work (a kernel or a vendor library) come first,
  // so cutting the brief to size never drops them before plumbing.
  json ops = json::array(), plumbing = json::array(), alternatives = json::array();
  auto does_work = [](const json& op) { return op.value("typical", false) && DoesWork(op); };
  for (const auto& op : full["ops"]) {
    std::string name = op.value("name", std::string());
    if (does_work(op) && op.value("role", std::string()) == "forward") {
      ops.push_back(BriefOp(op));
      on_path.insert(name);  // its backward is kept too
    } else if (on_path.count(name)) plumbing.push_back(BriefOp(op));
    else if (op.value("undecided", false) && alternatives.size() < kBriefMaxAlternatives)
      alternatives.push_back(BriefAlternative(op));
  }
  // Shallowest first (what the entry calls before what its helpers call);
  // at one depth, vendor-library calls before kernels.
  std::stable_sort(ops.begin(), ops.end(), [](const json& a, const json& b) {
    auto rank = [](const json& op) { return std::make_pair(op.value("depth", 0), op["libraries"].empty() ? 1 : 0); };
    return rank(a) < rank(b);
  });
  for (auto& p : plumbing) ops.push_back(std::move(p));
  if (ops.empty())  // nothing typical (a not-found trace): the entry ops
    for (const auto& op : full["ops"])
      if (!op.contains("reached_from") && ops.size() < kBriefMaxAlternatives) ops.push_back(BriefOp(op));
  for (auto& a : alternatives) ops.push_back(std::move(a));
  brief["ops"] = std::move(ops);
  for (auto& f : brief["python"]) {
    json calls = json::array();
    for (auto& c : f["calls"])
      if (c.contains("resolved") && calls.size() < kBriefMaxCalls) calls.push_back(c);
    f["calls"] = std::move(calls);
  }
  Cap(brief, "python", kBriefMaxFrames);
  // Backward entries of the ops that do the work first, as for the ops.
  std::set<std::string> working;
  const json& kept_ops = brief["ops"];
  for (const auto& op : kept_ops)
    if (does_work(op)) working.insert(op.value("name", std::string()));
  json backward = json::array(), other_backward = json::array();
  for (auto b : full["backward"]) {
    std::string op = b.value("op", std::string());
    if (!on_path.count(op)) continue;
    if (b["derivatives"].is_object()) Keep(b["derivatives"], {"file", "line", "name"});
    (working.count(op) ? backward : other_backward).push_back(std::move(b));
  }
  // In the order of their ops above.
  auto position = [&](const json& b) {
    for (size_t i = 0; i < kept_ops.size(); ++i)
      if (kept_ops[i].value("name", std::string()) == b.value("op", std::string())) return i;
    return kept_ops.size();
  };
  std::stable_sort(backward.begin(), backward.end(),
                   [&](const json& a, const json& b) { return position(a) < position(b); });
  for (auto& b : other_backward) backward.push_back(std::move(b));
  brief["backward"] = std::move(backward);
  size_t decompositions = full["decompositions"].size();
  Cap(brief, "not_found", kBriefMaxNotFound);
  Cap(brief, "notes", kBriefMaxNotes);
  brief["brief"] = {{"ops_omitted", 0},
                    {"decompositions_omitted", decompositions},
                    {"not_found_omitted", 0},
                    {"full", "call trace with detail \"full\" for every op, call site and decomposition"}};
  FitBrief(brief);
  brief["brief"]["ops_omitted"] = full["ops"].size() - brief["ops"].size();  // cuts included
  brief["brief"]["not_found_omitted"] = full["not_found"].size() - brief["not_found"].size();
  return brief;
}

}  // namespace optrace
