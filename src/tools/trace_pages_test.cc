// Issue 27 on the real 2.6.0 tree: every `full` page at most 20 KB of
// structuredContent, nothing lost or doubled by the cutting (each op, each
// kernel entry, each frame comes back once when the pages are put
// together), named parts, and the text channel carrying the same kernels,
// libraries and ops as the structured one -- for every op of
// native_functions.yaml and the largest modules, through the code the MCP
// server runs.
#include <algorithm>
#include <atomic>
#include <iostream>
#include <map>
#include <mutex>
#include <regex>
#include <set>
#include <thread>

#include <gtest/gtest.h>

#include "base/json.h"
#include "base/permalink.h"
#include "render/render.h"
#include "testing/test_tree_index.h"
#include "testing/test_util.h"
#include "tools/brief_test_util.h"
#include "tools/mcp_tools.h"
#include "tools/trace_pages.h"
#include "tools/trace_text.h"
#include "trace/trace.h"

namespace optrace {
namespace {

using json = nlohmann::ordered_json;

OptraceTools& Tools() {
  static OptraceTools* tools = [] {
    auto* t = new OptraceTools(CorpusTree("2.6.0"), /*allow_code=*/false, TestStoreDir());
    t->StartLoading();
    std::string error;
    EXPECT_TRUE(t->WaitLoaded(&error)) << error;
    return t;
  }();
  return *tools;
}

// Puts pieces back together: an object (or an array element) whose "part"
// index is above 1 continues the one before it.
void Merge(json& into, const json& piece);
void Append(json& array, const json& element) {
  if (element.is_object() && element.contains("part") && element["part"]["index"].get<int>() > 1 && !array.empty())
    Merge(array.back(), element);
  else array.push_back(element);
}
void Merge(json& into, const json& piece) {
  for (const auto& [key, value] : piece.items()) {
    if (key == "part" || key == "page" || key == "next_cursor") continue;
    if (value.is_array() && into.contains(key)) {
      for (const auto& e : value) Append(into[key], e);
    } else if (value.is_object() && into.contains(key) && value.contains("part") &&
               value["part"]["index"].get<int>() > 1) {
      Merge(into[key], value);
    } else {
      into[key] = value;
    }
  }
}
// The page marks a cut adds; a page put back together is compared without them.
bool IsPageMark(const std::string& key) { return key == "part" || key == "page" || key == "next_cursor"; }

nlohmann::json WithoutParts(const json& v) {
  if (v.is_array()) {
    nlohmann::json out = nlohmann::json::array();
    for (const auto& e : v) out.push_back(WithoutParts(e));
    return out;
  }
  if (!v.is_object()) return nlohmann::json::parse(v.dump());
  nlohmann::json out = nlohmann::json::object();
  for (const auto& [key, value] : v.items())
    if (!IsPageMark(key)) out[key] = WithoutParts(value);
  return out;
}

// a == b, objects compared as sets of keys (the merge may order a key a page
// brought later), page marks left out. The every-op test compares 3,144
// megabyte-sized traces: this walks them once instead of copying both.
bool SameWithoutParts(const json& a, const json& b) {
  if (a.is_object() != b.is_object() || a.is_array() != b.is_array()) return false;
  if (a.is_array()) {
    if (a.size() != b.size()) return false;
    for (size_t i = 0; i < a.size(); ++i)
      if (!SameWithoutParts(a[i], b[i])) return false;
    return true;
  }
  if (!a.is_object()) return a == b;
  size_t keys = 0;
  for (const auto& [key, value] : a.items()) {
    if (IsPageMark(key)) continue;
    ++keys;
    auto it = b.find(key);
    if (it == b.end() || !SameWithoutParts(value, *it)) return false;
  }
  for (const auto& [key, value] : b.items()) keys -= IsPageMark(key) ? 0 : 1;
  return keys == 0;
}

// The pages put together again are the whole trace, exactly.
void ExpectPagesAreTheWhole(const std::vector<json>& pages, const json& full, const std::string& what) {
  ASSERT_FALSE(pages.empty());
  json together = pages[0];
  for (size_t i = 1; i < pages.size(); ++i) Merge(together, pages[i]);
  if (SameWithoutParts(together, full)) return;
  nlohmann::json a = WithoutParts(together), b = WithoutParts(full);
  EXPECT_TRUE(a == b) << what << ": the pages put together differ from the whole: "
                      << nlohmann::json::diff(b, a).dump().substr(0, 1500);
}

void ExpectPagesHoldTheWhole(const json& full, const std::vector<json>& pages, const std::string& what) {
  for (size_t i = 0; i < pages.size(); ++i) {
    const json& page = pages[i];
    // Counted as the pages are cut (TheLargestModulesPageWithinTheLimit checks the count is the dump's length).
    EXPECT_LE(DumpedJsonSize(page), kFullPageMaxBytes) << what << " page " << i + 1;
    EXPECT_EQ(page["query"], full["query"]) << what;
    EXPECT_EQ(page["target"], full["target"]) << what;
    if (pages.size() > 1) {
      EXPECT_EQ(page["page"]["index"], i + 1);
      EXPECT_EQ(page["page"]["of"], pages.size());
      EXPECT_EQ(page.contains("next_cursor"), i + 1 < pages.size());
    }
  }
  ExpectPagesAreTheWhole(pages, full, what);
}

// `op`/`kernel`/`library` marks of a text: LABEL `NAME` where LABEL starts
// the text or follows a character other than [a-z_] (the regex
// (^|[^a-z_])LABEL `([^`]+)`, scanned by hand: std::regex cost the every-op
// test seconds; MarkedReadsAsTheRegex checks the two agree).
std::set<std::string> Marked(const std::string& text, const std::string& label) {
  std::set<std::string> names;
  const std::string opening = label + " `";
  auto word_char = [](char c) { return (c >= 'a' && c <= 'z') || c == '_'; };
  size_t from = 0;  // where the last mark ended: the search goes on from there
  for (size_t at = text.find(opening); at != std::string::npos; at = text.find(opening, std::max(at + 1, from))) {
    if (at != 0 && (at == from || word_char(text[at - 1]))) continue;  // the character before belongs to a mark
    size_t name = at + opening.size(), close = text.find('`', name);
    if (close == std::string::npos || close == name) continue;
    names.insert(text.substr(name, close - name));
    from = close + 1;
  }
  return names;
}

struct Named {
  std::set<std::string> ops, kernels, libraries;
};

// Every op, kernel and library a trace object names.
Named NamedIn(const json& t) {
  Named n;
  auto steps = [&](const json& path) {
    for (const auto& step : path) {
      n.ops.insert(step["op"].get<std::string>());
      if (step.contains("kernels"))
        for (const auto& k : step["kernels"]) n.kernels.insert(k["name"].get<std::string>());
      if (step.contains("libraries"))
        for (const auto& l : step["libraries"]) n.libraries.insert(l.get<std::string>());
    }
  };
  if (t.contains("summary")) {
    const json& s = t["summary"];
    if (s.contains("path")) steps(s["path"]);
    if (s.contains("backward")) {
      if (s["backward"].contains("path")) steps(s["backward"]["path"]);
      for (const auto& d : s["backward"].value("derivatives", json::array())) n.ops.insert(d.get<std::string>());
    }
  }
  for (const auto& op : t.value("ops", json::array())) {
    n.ops.insert(op["name"].get<std::string>());
    if (op.contains("reached_from")) n.ops.insert(op["reached_from"].get<std::string>());
    if (op.contains("yaml") && op["yaml"].is_object() && op["yaml"].value("structured_delegate", json()).is_string())
      n.ops.insert(op["yaml"]["structured_delegate"].get<std::string>());
    for (const auto& k : op.value("kernels", json::array())) n.kernels.insert(k["name"].get<std::string>());
    for (const auto& l : op.value("libraries", json::array())) n.libraries.insert(l["name"].get<std::string>());
    for (const char* key : {"calls", "other_device_calls"})
      for (const auto& c : op.value(key, json::array())) n.ops.insert(c["op"].get<std::string>());
  }
  for (const auto& b : t.value("backward", json::array())) {
    n.ops.insert(b["op"].get<std::string>());
    for (const char* key : {"ops", "open", "untaken"})
      for (const auto& o : b.value(key, json::array()))
        n.ops.insert(o.is_string() ? o.get<std::string>() : o.value("op", ""));
  }
  for (const auto& d : t.value("decompositions", json::array())) n.ops.insert(d["op"].get<std::string>());
  for (const auto& s : t.value("selections", json::array())) {
    if (s.contains("op")) n.ops.insert(s["op"].get<std::string>());
    for (const auto& a : s.value("alternatives", json::array())) n.ops.insert(a["op"].get<std::string>());
  }
  return n;
}

void ExpectSameFacts(const json& structured, const std::string& text, const std::string& what) {
  Named n = NamedIn(structured);
  EXPECT_EQ(Marked(text, "op"), n.ops) << what;
  EXPECT_EQ(Marked(text, "kernel"), n.kernels) << what;
  EXPECT_EQ(Marked(text, "library"), n.libraries) << what;
}

// The hand scan finds what the regex it replaces finds, on marks at the
// start, after punctuation, back to back, inside words, unclosed and empty.
TEST(TracePages, MarkedReadsAsTheRegex) {
  for (const std::string text : {"op `a` and op `b`\n- op `c`", "op `a`op `b` (op `d`)", "loop `x` top `y` _op `z`",
                                 "op `` op `e", "kernel `k1`, library `cublas` op `f`kernel `k2`"}) {
    for (const std::string label : {"op", "kernel", "library"}) {
      std::set<std::string> expected;
      std::regex mark("(^|[^a-z_])" + label + " `([^`]+)`");
      for (auto it = std::sregex_iterator(text.begin(), text.end(), mark); it != std::sregex_iterator(); ++it)
        expected.insert((*it)[2].str());
      EXPECT_EQ(Marked(text, label), expected) << label << " in: " << text;
    }
  }
  EXPECT_EQ(Marked("op `a` and op `b`", "op"), (std::set<std::string>{"a", "b"}));
}

// Known facts first: the SDPA brief names its backends in both channels,
// and _efficient_attention_backward (77 KB as one object) is cut into parts.
TEST(TracePages, SdpaSelectionsInBothChannelsAndItsBiggestOpCut) {
  REQUIRE_CORPUS("2.6.0");
  McpToolResult brief = Tools().Call("trace", {{"query", "F.scaled_dot_product_attention"}, {"device", "cuda"}});
  ASSERT_FALSE(brief.is_error) << brief.text;
  ExpectSameFacts(brief.structured, brief.text, "sdpa brief");
  for (const char* backend : {"_scaled_dot_product_efficient_attention", "_scaled_dot_product_cudnn_attention"})
    EXPECT_NE(brief.text.find(backend), std::string::npos) << backend;
  // Flash attention takes fp16/bf16 only (cuda/sdp_utils.cpp:511): float32 rules it out (an
  // alternative, never on the path), bfloat16 takes it.
  EXPECT_EQ(brief.text.find("- op `_scaled_dot_product_flash_attention`"), std::string::npos);
  McpToolResult bf16 = Tools().Call(
      "trace", {{"query", "F.scaled_dot_product_attention"}, {"device", "cuda"}, {"assume", {"dtype=bfloat16"}}});
  ASSERT_FALSE(bf16.is_error) << bf16.text;
  EXPECT_NE(bf16.text.find("- op `_scaled_dot_product_flash_attention`"), std::string::npos) << bf16.text;

  McpToolResult op = Tools().Call("trace", {{"query", "F.scaled_dot_product_attention"},
                                            {"device", "cuda"},
                                            {"ops", {"_efficient_attention_backward"}},
                                            {"sections", {"ops"}}});
  ASSERT_FALSE(op.is_error) << op.text;
  EXPECT_LE(DumpJson(op.structured).size(), kFullPageMaxBytes);
  ASSERT_FALSE(op.structured["ops"].empty());
  for (const auto& o : op.structured["ops"]) EXPECT_EQ(o["name"], "_efficient_attention_backward");
  EXPECT_EQ(op.structured["ops"][0]["part"]["index"], 1);
  EXPECT_GT(op.structured["ops"][0]["part"]["of"].get<int>(), 1);
  EXPECT_EQ(op.structured["ops"][0]["yaml"]["file"], "aten/src/ATen/native/native_functions.yaml");
  EXPECT_TRUE(op.structured["python"].empty());
  ExpectSameFacts(op.structured, op.text, "sdpa ops page");
}

// Parts by name: layer_norm's backward op with its CUDA kernels, over the
// pages the cursor walks (the summary, which names them too, comes first);
// sections.
TEST(TracePages, PartsByName) {
  REQUIRE_CORPUS("2.6.0");
  json args = {{"query", "F.layer_norm"}, {"device", "cuda"}, {"ops", {"native_layer_norm_backward"}}};
  json ops = json::array();
  for (std::string cursor;;) {
    if (!cursor.empty()) args["cursor"] = cursor;
    McpToolResult r = Tools().Call("trace", args);
    ASSERT_FALSE(r.is_error) << r.text;
    EXPECT_EQ(r.structured["parts"]["ops"], json::array({"native_layer_norm_backward"}));
    for (const auto& o : r.structured["ops"]) ops.push_back(o);
    if (!r.structured.contains("next_cursor")) break;
    cursor = r.structured["next_cursor"];
    ASSERT_LT(ops.size(), 50u);
  }
  ASSERT_FALSE(ops.empty());
  std::set<std::string> kernels;
  for (const auto& o : ops) {
    EXPECT_EQ(o["name"], "native_layer_norm_backward");
    for (const auto& k : o.value("kernels", json::array())) kernels.insert(k["name"].get<std::string>());
  }
  EXPECT_TRUE(kernels.count("layer_norm_grad_input_kernel")) << ::testing::PrintToString(kernels);

  McpToolResult s = Tools().Call("trace", {{"query", "F.layer_norm"}, {"sections", {"backward", "selections"}}});
  ASSERT_FALSE(s.is_error) << s.text;
  EXPECT_FALSE(s.structured.contains("summary"));
  EXPECT_TRUE(s.structured["ops"].empty());
  EXPECT_TRUE(s.structured["python"].empty());
  ASSERT_FALSE(s.structured["backward"].empty());
  EXPECT_EQ(s.structured["backward"][0]["op"], "native_layer_norm");
  EXPECT_EQ(s.structured["backward"][0]["derivatives"]["file"], "tools/autograd/derivatives.yaml");

  McpToolResult bad = Tools().Call("trace", {{"query", "F.layer_norm"}, {"ops", {"native_layer_norm_bakward"}}});
  EXPECT_TRUE(bad.is_error);
  EXPECT_NE(bad.text.find("did you mean native_layer_norm_backward"), std::string::npos) << bad.text;
  McpToolResult cursor = Tools().Call("trace", {{"query", "F.layer_norm"}, {"detail", "full"}, {"cursor", "999"}});
  EXPECT_TRUE(cursor.is_error);
}

// The five big modules on both devices: every page fits, both channels of
// each name the same things, and the pages put together are the whole trace.
TEST(TracePages, TheLargestModulesPageWithinTheLimit) {
  REQUIRE_CORPUS("2.6.0");
  for (const char* query : {"nn.LSTM", "nn.MultiheadAttention", "nn.TransformerEncoderLayer", "nn.Conv2d",
                            "F.scaled_dot_product_attention"}) {
    for (const char* device : {"cuda", "cpu"}) {
      SCOPED_TRACE(std::string(query) + " on " + device);
      json full = FullTrace(query, device);
      std::vector<json> pages = TracePages(full);
      ExpectPagesHoldTheWhole(full, pages, query);
      EXPECT_GT(pages.size(), 5u);  // each is hundreds of kilobytes of trace
      EXPECT_EQ(DumpedJsonSize(full), DumpJson(full).size());
      for (const json& page : pages) {
        EXPECT_EQ(DumpedJsonSize(page), DumpJson(page).size());
        ExpectSameFacts(page, TraceJsonMarkdown(page), query);
      }
    }
  }
}

// The cursor walks the pages through the tool, as a client does: F.softmax's
// 11 pages, each within the limit, together its whole trace. Each call
// traces again, so the walk is quadratic in the trace: nn.LSTM's 112 pages
// took 23 s of CPU; its pages are checked whole, without the tool, in
// TheLargestModulesPageWithinTheLimit.
TEST(TracePages, TheCursorWalksEveryPage) {
  REQUIRE_CORPUS("2.6.0");
  json args = {{"query", "F.softmax"}, {"device", "cuda"}, {"detail", "full"}};
  std::vector<json> pages;
  for (std::string cursor;;) {
    if (!cursor.empty()) args["cursor"] = cursor;
    McpToolResult r = Tools().Call("trace", args);
    ASSERT_FALSE(r.is_error) << r.text;
    EXPECT_LE(DumpJson(r.structured).size(), kFullPageMaxBytes) << cursor;
    EXPECT_NE(r.text.find("page " + std::to_string(pages.size() + 1) + " of"), std::string::npos) << cursor;
    pages.push_back(std::move(r.structured));
    if (!pages.back().contains("next_cursor")) break;
    cursor = pages.back()["next_cursor"];
    ASSERT_LT(pages.size(), 200u);
  }
  EXPECT_GT(pages.size(), 5u);
  json whole = FullTrace("F.softmax");
  // The tool links every location at the tree's tag.
  AddPermalinks(&whole, "https://github.com/pytorch/pytorch/blob/v2.6.0/");
  EXPECT_EQ(pages[0]["source"]["permalink"], "https://github.com/pytorch/pytorch/blob/v2.6.0/");
  ASSERT_FALSE(pages[1]["ops"].empty());
  const json& op = pages[1]["ops"][0];
  EXPECT_EQ(op["yaml"]["url"],
            "https://github.com/pytorch/pytorch/blob/v2.6.0/aten/src/ATen/native/native_functions.yaml#L" +
                std::to_string(op["yaml"]["line"].get<int>()));
  for (json& page : pages) page["source"] = whole["source"];  // the tool adds the installed torch
  ExpectPagesAreTheWhole(pages, whole, "F.softmax");
}

// Every op of native_functions.yaml (3,144 in 2.6.0) on CUDA, each traced
// once, as the tool traces, on every core: every page of its full trace fits
// and the pages hold the whole; its brief fits (issue 16) with the
// essentials; the brief's and the first page's text name exactly the ops,
// kernels and libraries their structured content names.
TEST(TracePages, EveryOpBriefAndPagesWithinTheLimitsAndBothChannelsAgree) {
  REQUIRE_CORPUS("2.6.0");
  const std::vector<std::string> all = AllOpQueries(TreeIndex("2.6.0"));
  ASSERT_EQ(all.size(), 3144u);
  std::atomic<size_t> next{0};
  std::mutex mu;
  std::vector<std::pair<size_t, std::string>> brief_sizes;
  auto work = [&] {
    for (size_t i; (i = next.fetch_add(kEveryOpStride)) < all.size();) {
      SCOPED_TRACE(all[i]);
      json full = FullTrace(all[i]);
      std::vector<json> pages = TracePages(full);
      ExpectPagesHoldTheWhole(full, pages, all[i]);
      json brief = BriefTrace(full);
      size_t size = DumpJson(brief).size();
      EXPECT_LE(size, kBriefLimit) << all[i];
      ExpectEssentials(full, brief);
      ExpectSameFacts(brief, TraceJsonMarkdown(brief), all[i] + " brief");
      ExpectSameFacts(pages[0], TraceJsonMarkdown(pages[0]), all[i] + " page 1");
      std::lock_guard<std::mutex> lock(mu);
      brief_sizes.emplace_back(size, all[i]);
    }
  };
  std::vector<std::thread> threads;
  for (unsigned t = 0; t < std::max(1u, std::thread::hardware_concurrency()); ++t) threads.emplace_back(work);
  for (auto& t : threads) t.join();
  std::sort(brief_sizes.rbegin(), brief_sizes.rend());
  std::cout << "largest briefs: " << brief_sizes[0].second << " " << brief_sizes[0].first << " bytes, "
            << brief_sizes[1].second << " " << brief_sizes[1].first << ", median "
            << brief_sizes[brief_sizes.size() / 2].first << "\n";
}

// MCP answers cite the 2.6.0 tree at its tag: find's kernel definition, op's
// YAML line and derivatives entry, tests' entries; the brief names the base.
TEST(TracePages, AnswersCarryPermalinksAtTheTreesTag) {
  REQUIRE_CORPUS("2.6.0");
  const std::string base = "https://github.com/pytorch/pytorch/blob/v2.6.0/";
  McpToolResult find = Tools().Call("find", {{"symbol", "softmax_warp_forward"}, {"limit", 3}});
  ASSERT_FALSE(find.is_error) << find.text;
  EXPECT_EQ(find.structured["definitions"][0]["url"], base + "aten/src/ATen/native/cuda/PersistentSoftmax.cuh#L68");
  EXPECT_EQ(find.structured["source"]["permalink"], base);
  McpToolResult op = Tools().Call("op", {{"name", "aten::add.Tensor"}});
  EXPECT_EQ(op.structured["entries"][0]["url"], base + "aten/src/ATen/native/native_functions.yaml#L552");
  EXPECT_EQ(op.structured["entries"][0]["derivatives"]["url"], base + "tools/autograd/derivatives.yaml#L229");
  McpToolResult tests = Tools().Call("tests", {{"query", "nn.LSTM"}});
  const json& entry = tests.structured["entries"][0];
  EXPECT_EQ(entry["url"], base + entry["file"].get<std::string>() + "#L" + std::to_string(entry["line"].get<int>()));
  McpToolResult brief = Tools().Call("trace", {{"query", "F.softmax"}});
  EXPECT_EQ(brief.structured["source"]["permalink"], base);
  EXPECT_NE(brief.text.find("links at " + base), std::string::npos);
}

// "Did you mean" once per answer (issue 27 saw it twice in trace's text),
// and `tests` suggests as trace does.
TEST(TracePages, DidYouMeanOnce) {
  REQUIRE_CORPUS("2.6.0");
  auto count = [](const std::string& text) {
    size_t n = 0;
    std::string lower = text;
    for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    for (size_t at = lower.find("did you mean"); at != std::string::npos; at = lower.find("did you mean", at + 1)) ++n;
    return n;
  };
  McpToolResult trace = Tools().Call("trace", {{"query", "nn.LSTMM"}});
  EXPECT_TRUE(trace.is_error);
  EXPECT_EQ(count(trace.text), 1u) << trace.text;
  EXPECT_NE(trace.text.find("nn.LSTM"), std::string::npos);
  for (const auto& [query, wanted] :
       {std::pair<std::string, std::string>{"nn.lstm", "nn.LSTM"}, {"F.sdpa", "F.scaled_dot_product_attention"}}) {
    McpToolResult tests = Tools().Call("tests", {{"query", query}});
    EXPECT_TRUE(tests.is_error);
    EXPECT_EQ(count(tests.text), 1u) << tests.text;
    EXPECT_NE(tests.text.find(wanted), std::string::npos) << tests.text;
  }
}

// The splitter on a small value: scalars in every piece, arrays dealt out.
TEST(TracePages, SplitKeepsScalarsAndDealsOutArrays) {
  json op = {{"name", "mm"}, {"role", "forward"}, {"kernels", json::array()}};
  for (int i = 0; i < 40; ++i) op["kernels"].push_back({{"name", "k" + std::to_string(i)}, {"line", i + 1}});
  std::vector<json> pieces = SplitJsonObject(op, 300);
  ASSERT_GT(pieces.size(), 3u);
  size_t kernels = 0;
  for (size_t i = 0; i < pieces.size(); ++i) {
    EXPECT_LE(DumpJson(pieces[i]).size(), 300u) << DumpJson(pieces[i]);
    EXPECT_EQ(pieces[i]["name"], "mm");
    EXPECT_EQ(pieces[i]["role"], "forward");
    EXPECT_EQ(pieces[i]["part"]["index"], i + 1);
    kernels += pieces[i]["kernels"].size();
  }
  EXPECT_EQ(kernels, 40u);
  EXPECT_EQ(pieces.back()["kernels"].back()["name"], "k39");
  EXPECT_EQ(SplitJsonObject(op, 1 << 20).size(), 1u);
  EXPECT_FALSE(SplitJsonObject(op, 1 << 20)[0].contains("part"));
}

}  // namespace
}  // namespace optrace
