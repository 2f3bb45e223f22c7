// Pages of a full trace cut by bytes, and the parts a call names (see
// trace_pages.h for why). Sizes are counted on the compact JSON the server
// writes (DumpJson), piece by piece, so cutting a megabyte costs one
// serialisation of each piece rather than one of the page per item added.
#include "tools/trace_pages.h"

#include <algorithm>
#include <map>
#include <set>

#include "base/json.h"
#include "base/text.h"

namespace optrace {

using json = nlohmann::ordered_json;

namespace {

size_t Bytes(const json& v) { return DumpedJsonSize(v); }

struct SplitOptions {
  size_t max_bytes = kFullPageMaxBytes;
  const char* part_key = "part";  // names the piece: {"index", "of"}
  bool fill_arrays = false;       // every array field of the value in every piece (empty where none)
  std::set<std::string> header;   // fields kept whole in every piece; empty: decided by size
  size_t extra_reserve = 0;       // bytes the caller adds to each piece afterwards
  size_t value_bytes = 0;         // the value's size, where the caller has it already (0: not yet)
};

// One unit dealt out to the pieces: an element of the array field `key`, or
// (element false) a piece of the nested object field `key`.
struct Unit {
  std::string key;
  json value;
  bool element = true;
  size_t bytes = 0;
};

std::vector<json> Split(const json& value, const SplitOptions& options);

// Units of `value`'s non-header fields; objects too big for `room` are cut
// again (their pieces become units of the same key).
std::vector<Unit> Units(const json& value, const json& base, size_t room) {
  std::vector<Unit> units;
  // Each unit serialised once for its size: the every-op test cuts 3,144
  // traces, and a second DumpJson per unit was a fifth of cutting them.
  auto add = [&](const std::string& key, const json& item, bool element) {
    size_t bytes = Bytes(item), cost = bytes + key.size() + 8;
    if (item.is_object() && cost > room && room > key.size() + 64) {
      SplitOptions sub;
      sub.max_bytes = room - key.size() - 8;
      sub.value_bytes = bytes;
      for (json& piece : Split(item, sub)) {
        size_t piece_bytes = Bytes(piece) + 1;
        units.push_back({key, std::move(piece), element, piece_bytes});
      }
      return;
    }
    units.push_back({key, item, element, bytes + 1});
  };
  for (const auto& [key, item] : value.items()) {
    if (base.contains(key)) continue;
    if (item.is_array()) {
      for (const auto& element : item) add(key, element, true);
    } else {
      add(key, item, false);
    }
  }
  return units;
}

std::vector<json> Split(const json& value, const SplitOptions& options) {
  if (!value.is_object()) return {value};
  size_t value_bytes = options.value_bytes ? options.value_bytes : Bytes(value);
  if (value_bytes + options.extra_reserve <= options.max_bytes) return {value};
  json base = json::object();
  size_t small = options.max_bytes / 8, fill_reserve = 0;
  for (const auto& [key, item] : value.items()) {
    // An empty array stays with every piece: "no libraries" is a fact too.
    bool keep = options.header.empty()
                    ? (!item.is_array() || item.empty()) && (!item.is_object() || Bytes(item) <= small)
                    : options.header.count(key) > 0;
    if (keep) base[key] = item;
    else if (options.fill_arrays && item.is_array()) fill_reserve += key.size() + 6;
  }
  // "part":{"index":N,"of":N} and the caller's own fields.
  size_t reserve = Bytes(base) + fill_reserve + std::string(options.part_key).size() + 40 + options.extra_reserve;
  size_t room = options.max_bytes > reserve ? options.max_bytes - reserve : 0;
  std::vector<Unit> units = Units(value, base, room);

  std::vector<std::map<std::string, json>> pieces(1);
  size_t used = 0;
  for (Unit& u : units) {
    auto& piece = pieces.back();
    bool has_key = piece.count(u.key) > 0;
    size_t cost = u.bytes + (has_key ? 0 : u.key.size() + 6);
    if (!piece.empty() && (used + cost > room || (!u.element && has_key))) {
      pieces.emplace_back();
      used = 0;
      has_key = false;
      cost = u.bytes + u.key.size() + 6;
    }
    auto& current = pieces.back();
    if (u.element) {
      if (!has_key) current[u.key] = json::array();
      current[u.key].push_back(std::move(u.value));
    } else {
      current[u.key] = std::move(u.value);
    }
    used += cost;
  }

  std::vector<json> out;
  for (size_t i = 0; i < pieces.size(); ++i) {
    json piece = json::object();
    bool first = true;
    for (const auto& [key, item] : value.items()) {
      if (base.contains(key)) piece[key] = base[key];
      else if (auto it = pieces[i].find(key); it != pieces[i].end()) piece[key] = std::move(it->second);
      else if (options.fill_arrays && item.is_array()) piece[key] = json::array();
      else continue;
      if (first) piece[options.part_key] = {{"index", i + 1}, {"of", pieces.size()}};  // after the name it belongs to
      first = false;
    }
    out.push_back(std::move(piece));
  }
  return out;
}

std::string StripAten(const std::string& name) { return name.rfind("aten::", 0) == 0 ? name.substr(6) : name; }

bool Named(const std::vector<std::string>& wanted, const std::string& op) {
  std::string base(OpBaseName(op));
  for (const auto& w : wanted)
    if (w == op || w == base) return true;
  return false;
}

// Keeps the items of the array obj[key] whose obj[key][i][field] is a wanted op.
void KeepOps(json& obj, const char* key, const char* field, const std::vector<std::string>& wanted) {
  if (!obj.is_object() || !obj.contains(key) || !obj[key].is_array()) return;
  json kept = json::array();
  for (auto& item : obj[key])
    if (item.is_object() && Named(wanted, item.value(field, std::string()))) kept.push_back(std::move(item));
  obj[key] = std::move(kept);
}

}  // namespace

const std::vector<std::string>& TraceSectionNames() {
  static const std::vector<std::string> names = {"summary",        "python",     "ops",       "backward",
                                                 "decompositions", "selections", "not_found", "notes"};
  return names;
}

bool SelectTraceParts(json* trace, const std::vector<std::string>& ops_asked, const std::vector<std::string>& sections,
                      std::string* error) {
  const auto& known = TraceSectionNames();
  for (const auto& s : sections) {
    if (std::find(known.begin(), known.end(), s) == known.end()) {
      *error = "unknown section '" + s + "'; sections are " + Join(known, ", ");
      return false;
    }
  }
  std::vector<std::string> ops;
  for (const auto& o : ops_asked) ops.push_back(StripAten(o));
  if (!ops.empty()) {
    std::vector<std::string> reached;
    for (const auto& op : (*trace)["ops"]) reached.push_back(op.value("name", std::string()));
    for (const auto& o : ops) {
      if (std::any_of(reached.begin(), reached.end(), [&](const std::string& r) { return Named({o}, r); })) continue;
      std::vector<std::string> near = DidYouMean(o, reached, 8);
      *error = "the trace reaches no op named '" + o + "'" +
               (near.empty() ? "" : "; did you mean " + Join(near, ", ")) + " (" + std::to_string(reached.size()) +
               " ops reached)";
      return false;
    }
  }
  // Named ops without named sections: what is said about those ops.
  std::vector<std::string> chosen = sections;
  if (chosen.empty() && !ops.empty()) chosen = {"summary", "ops", "backward", "decompositions", "selections"};
  if (!chosen.empty()) {
    for (const auto& s : known) {
      if (std::find(chosen.begin(), chosen.end(), s) != chosen.end() || !trace->contains(s)) continue;
      if (s == "summary") trace->erase("summary");
      else (*trace)[s] = json::array();
    }
  }
  if (ops.empty()) return true;
  KeepOps(*trace, "ops", "name", ops);
  KeepOps(*trace, "backward", "op", ops);
  KeepOps(*trace, "decompositions", "op", ops);
  KeepOps(*trace, "selections", "op", ops);
  if (trace->contains("summary")) {
    json& summary = (*trace)["summary"];
    KeepOps(summary, "path", "op", ops);
    if (summary.contains("backward")) KeepOps(summary["backward"], "path", "op", ops);
  }
  (*trace)["parts"] = {{"ops", ops}, {"sections", chosen}};
  return true;
}

std::vector<json> SplitJsonObject(const json& value, size_t max_bytes) {
  SplitOptions options;
  options.max_bytes = max_bytes;
  return Split(value, options);
}

std::vector<json> TracePages(const json& trace, size_t max_bytes) {
  SplitOptions options;
  options.max_bytes = max_bytes;
  options.part_key = "page";
  options.fill_arrays = true;
  options.header = {"schema", "query", "source", "target", "parts"};
  options.extra_reserve = 24;  // ,"next_cursor":"NNNN"
  std::vector<json> pages = Split(trace, options);
  if (pages.size() > 1)
    for (size_t i = 0; i + 1 < pages.size(); ++i) pages[i]["next_cursor"] = std::to_string(i + 2);
  return pages;
}

}  // namespace optrace
