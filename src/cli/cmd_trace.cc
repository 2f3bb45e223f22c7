// `optrace trace`: the main face. Opens the checkout, loads (or builds) the
// index, traces each query and renders it as text (the default: the main
// path and its alternatives first; --detail full adds the flow tree,
// layers, summary table and notes), markdown, JSON (optrace.trace/1,
// doc/trace-schema.md) or Graphviz DOT. `--all` traces every op of
// native_functions.yaml, one JSON object per line, for bulk checks.
//
// Exit codes are the contract's: 0 traced, 1 a query names nothing known
// (with "did you mean" on stderr, and the JSON still printed for --json),
// 2 usage, 3 checkout or index problem.
#include <sys/ioctl.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <functional>
#include <iomanip>
#include <iostream>
#include <mutex>
#include <optional>
#include <set>
#include <thread>

#include "base/cores.h"
#include "base/json.h"
#include "base/permalink.h"
#include "cli/cmd_common.h"
#include "cli/cmd_daemon.h"
#include "cli/commands.h"
#include "index/index.h"
#include "lookup/query.h"
#include "render/render.h"
#include "trace/trace.h"
#include "trace/trace_paths.h"

namespace optrace {

namespace {

enum class Format { kText, kMarkdown, kJson, kDot };

// Columns for the text face: the terminal's when stdout is one, else 100
// (what an agent's tool output or a pipe is read at).
int TerminalWidth() {
  struct winsize ws;
  if (::isatty(STDOUT_FILENO) && ::ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0)
    return std::clamp<int>(ws.ws_col, 60, 160);
  return 100;
}

bool UseColor(const std::string& flag) {
  if (flag != "auto") return flag == "always";
  const char* no_color = std::getenv("NO_COLOR");  // https://no-color.org
  return ::isatty(STDOUT_FILENO) && !(no_color && *no_color);
}

std::string NotFoundMessage(const Status& status, const Trace& trace) {
  std::string out = "optrace: " + status.message() + "\n";
  if (!trace.suggestions.empty() && status.message().find("did you mean") == std::string::npos) {
    out += "  did you mean:";
    for (size_t i = 0; i < trace.suggestions.size(); ++i) out += (i ? ", " : " ") + trace.suggestions[i];
    out += "\n";
  }
  return out;
}

// The command line of `optrace trace`, parsed.
struct TraceFlags {
  std::string source, format = "text", device = "default", color = "auto", detail = "brief";
  std::vector<std::string> assume, queries;
  bool json = false, no_backward = false, all = false, pretty = false, links = false;
  int depth = TraceOptions().depth, width = 0, jobs = 0;
  // What the client's Python has installed, handed to the daemon, whose own
  // environment is that of the trace that started it (hidden: internal).
  std::string client_torch, client_warning;
};

void AddTraceFlags(CLI::App& app, TraceFlags* f) {
  AddSourceFlag(app, &f->source);
  app.add_flag("--json", f->json, "same as --format json (optrace.trace/1, see doc/trace-schema.md)");
  app.add_option("--format", f->format, "text (default), md, json or dot")
      ->check(CLI::IsMember({"text", "md", "markdown", "json", "dot"}));
  app.add_option("--device", f->device, "implementations to follow: cuda, cpu or all (default: CPU, CUDA, composite)")
      ->check(CLI::IsMember({"default", "cuda", "cpu", "all"}));
  app.add_flag("--no-backward", f->no_backward, "skip derivatives.yaml and backward ops");
  app.add_option("--depth", f->depth, "how deep aten ops called from implementations are followed")
      ->check(CLI::Range(0, 32));
  app.add_option("--detail", f->detail,
                 "text and md: brief (default: main path and alternatives first) or full (plus flow tree, layers, "
                 "summary table)")
      ->check(CLI::IsMember({"brief", "full"}));
  app.add_option("--assume", f->assume,
                 "typical-path assumptions, comma-separated: dtype=float32|float16|bfloat16|float64|..., "
                 "device=cuda|cpu, deterministic, tunableop, no-cudnn, rocm, eval, no-grad (doc/trace-schema.md)")
      ->delimiter(',');
  app.add_flag("--all", f->all, "trace every op of native_functions.yaml (JSON: one object per line)");
  app.add_flag("--pretty", f->pretty, "indent JSON (one query only)");
  app.add_flag("--links", f->links,
               "permalinks at the checkout's version (github.com/pytorch/pytorch/blob/<tag or commit>/...#L<line>): "
               "a url beside every file:line in JSON, a Links section in text and md");
  app.add_option("--jobs", f->jobs, "threads tracing many queries (--all; default: every core)")
      ->check(CLI::Range(1, 256));
  app.add_option("--width", f->width, "text columns (default: the terminal's, else 100)")->check(CLI::Range(40, 400));
  // How a client hands its terminal's answer to the daemon (cmd_daemon.h).
  app.add_option("--color", f->color, "color the text face: auto (a terminal without NO_COLOR), always, never")
      ->check(CLI::IsMember({"auto", "always", "never"}));
  app.add_option("--installed-torch", f->client_torch)->group("");
  app.add_option("--version-warning", f->client_warning)->group("");
  app.add_option("query", f->queries,
                 "nn.LayerNorm, F.softmax, torch.cumsum, Tensor.view, aten::_softmax, a '+' operator, a kernel ...");
}

// The same request, spelled for the daemon (which parses it with AddTraceFlags).
std::vector<std::string> DaemonArgs(const TraceFlags& f, const Checkout& checkout, const RenderOptions& render) {
  std::vector<std::string> args = {"trace",
                                   "--source",
                                   checkout.root,
                                   "--format",
                                   f.json ? "json" : f.format,
                                   "--device",
                                   f.device,
                                   "--depth",
                                   std::to_string(f.depth),
                                   "--width",
                                   std::to_string(render.width),
                                   "--color",
                                   render.color ? "always" : "never"};
  if (f.no_backward) args.push_back("--no-backward");
  if (f.pretty) args.push_back("--pretty");
  if (f.links) args.push_back("--links");
  args.insert(args.end(), {"--installed-torch", checkout.installed_torch.value_or("none"), "--version-warning",
                           checkout.version_warning});
  args.insert(args.end(), {"--detail", f.detail});
  for (const auto& a : f.assume) args.insert(args.end(), {"--assume", a});
  args.push_back("--");
  args.insert(args.end(), f.queries.begin(), f.queries.end());
  return args;
}

// One query's output.
struct Answer {
  std::string out, err;
  Status status;
};

// Runs answer(0..n-1) on `threads` workers and hands each result to `print`
// in query order, as soon as it and all before it are done.
void AnswerInOrder(size_t n, unsigned threads, const std::function<Answer(size_t)>& answer,
                   const std::function<void(const Answer&)>& print) {
  if (threads == 1) {
    for (size_t qi = 0; qi < n; ++qi) print(answer(qi));
    return;
  }
  std::vector<std::optional<Answer>> answers(n);
  std::mutex mu;
  std::condition_variable ready;
  std::atomic<size_t> next{0};
  std::vector<std::thread> pool;
  for (unsigned t = 0; t < threads; ++t) {
    pool.emplace_back([&] {
      for (size_t qi; (qi = next.fetch_add(1)) < n;) {
        Answer a = answer(qi);
        std::lock_guard<std::mutex> lock(mu);
        answers[qi] = std::move(a);
        ready.notify_all();
      }
    });
  }
  for (size_t qi = 0; qi < n; ++qi) {
    std::unique_lock<std::mutex> lock(mu);
    ready.wait(lock, [&] { return answers[qi].has_value(); });
    Answer a = std::move(*answers[qi]);
    answers[qi].reset();
    lock.unlock();
    print(a);
  }
  for (auto& t : pool) t.join();
}

// --links, JSON: the trace with a url beside every file:line.
std::string LinkedJson(const Trace& trace, const std::string& base, int indent) {
  nlohmann::ordered_json j = TraceToJson(trace);
  AddPermalinks(&j, base);
  j["source"]["permalink"] = base;
  return DumpJson(j, indent);
}

// --links, text and md: every location of the trace once, in the order the
// trace names them, with its permalink (the renderers abbreviate paths; the
// links spell them whole).
std::string LinksSection(const Trace& trace, const std::string& base, bool markdown) {
  nlohmann::ordered_json j = TraceToJson(trace);
  AddPermalinks(&j, base);
  std::vector<std::pair<std::string, std::string>> seen;
  std::set<std::string> urls;
  std::function<void(const nlohmann::ordered_json&)> walk = [&](const nlohmann::ordered_json& v) {
    if (v.is_object() && v.contains("url") && urls.insert(v["url"].get<std::string>()).second)
      seen.emplace_back(v["file"].get<std::string>() + ":" + std::to_string(v["line"].get<int64_t>()), v["url"]);
    if (v.is_structured())
      for (const auto& item : v) walk(item);
  };
  walk(j);
  std::string out = markdown ? "\n### Links (" + base + ")\n\n" : "\nlinks  " + base + "\n";
  for (const auto& [where, url] : seen) out += markdown ? "- [`" + where + "`](" + url + ")\n" : "  " + url + "\n";
  return out;
}

// Traces query `qi` and renders it; a query that is not found still gives
// a JSON document (with not_found) so --all's lines stay one per op. The
// installed torch is waited for only to render: its Python runs beside the
// trace.
Answer TraceAndRender(const Index& index, VersionCheck& version, Checkout& settled, const std::string& query,
                      const TraceOptions& options, Format fmt, const RenderOptions& render, bool first, bool all,
                      bool pretty, const std::string& links) {
  Answer a;
  Trace trace;
  a.status = TraceQuery(index, query, options, &trace);
  version.Settle(&settled);
  const Checkout& checkout = settled;
  if (trace.query.empty()) trace.query = query;
  if (trace.source_root.empty()) trace.source_root = checkout.root;
  if (trace.source_version.empty()) trace.source_version = checkout.version;
  trace.installed_torch = checkout.installed_torch;
  trace.source_warning = checkout.version_warning;
  const Status& s = a.status;
  if (!s.ok()) {
    if (s.code() != ExitCode::kNotFound) {
      a.err = "optrace: " + s.message() + "\n";
      return a;
    }
    if (!all) a.err = NotFoundMessage(s, trace);
    if (fmt != Format::kJson) return a;
    if (trace.not_found.empty()) trace.not_found.push_back({"query", s.message()});
  }
  if (!links.empty() && fmt == Format::kJson) {
    a.out = LinkedJson(trace, links, pretty ? 1 : -1);
    a.out += '\n';
    return a;
  }
  switch (fmt) {
    case Format::kJson:
      a.out = RenderJson(trace, pretty ? 1 : -1);
      a.out += '\n';  // appended in place: a copy of a megabyte of JSON costs page faults
      break;
    case Format::kMarkdown:
      a.out = (first ? "" : "\n---\n\n") + RenderMarkdown(trace, render.detail == RenderOptions::Detail::kBrief);
      break;
    case Format::kDot:
      a.out = RenderDot(trace);
      break;
    case Format::kText:
      a.out = (first ? "" : "\n") + RenderText(trace, render);
      break;
  }
  if (!links.empty() && (fmt == Format::kText || fmt == Format::kMarkdown))
    a.out += LinksSection(trace, links, fmt == Format::kMarkdown);
  return a;
}

}  // namespace

int CmdTrace(int argc, char** argv) {
  CLI::App app{"Trace PyTorch operations from the Python API down to the code that runs", "optrace trace"};
  TraceFlags f;
  AddTraceFlags(app, &f);
  int rc = 0;
  // CLI11 reads an argument "[...]" as a list literal, so the documented
  // operator query '[]' arrived as no query at all: such arguments are
  // shielded through the parse (cmd_common.h).
  ShieldedArgs shielded(argc, argv);
  if (!ParseOrReport(app, shielded.argc(), shielded.argv(), &rc)) return rc;
  for (std::string* value : {&f.source, &f.client_torch, &f.client_warning}) Unshield(value);
  for (std::string& q : f.queries) Unshield(&q);
  if (f.queries.empty() == !f.all) {
    std::cerr << "optrace: trace needs " << (f.all ? "no QUERY with --all" : "a QUERY (or --all)")
              << "; see optrace trace --help\n";
    return static_cast<int>(ExitCode::kUsage);
  }
  for (const std::string& q : f.queries)
    if (Status s = CheckQuery(q); !s.ok()) return Report(s);
  Format fmt = f.json || f.format == "json"                 ? Format::kJson
               : f.format == "md" || f.format == "markdown" ? Format::kMarkdown
               : f.format == "dot"                          ? Format::kDot
                                                            : Format::kText;

  std::string assume_error;
  if (!ValidateAssume(f.assume, &assume_error)) {
    std::cerr << "optrace: " << assume_error << "\n";
    return static_cast<int>(ExitCode::kUsage);
  }

  Checkout checkout;
  const bool from_client = !f.client_torch.empty();
  if (!OpenCheckoutOrReport(f.source, &checkout, &rc, false)) return rc;
  // Asked while the index loads, unless a daemon will answer; settled
  // before anything needs the answer.
  const bool daemon_listening = DaemonEnabled() && DaemonMayBeListening(checkout.root);
  VersionCheck version(!from_client, !daemon_listening);
  if (from_client) {
    checkout.installed_torch = f.client_torch == "none" ? std::nullopt : std::optional<std::string>(f.client_torch);
    checkout.version_warning = f.client_warning;
  }
  RenderOptions render;
  render.detail = f.detail == "full" ? RenderOptions::Detail::kFull : RenderOptions::Detail::kBrief;
  render.color = UseColor(f.color);
  render.width = f.width > 0 ? f.width : TerminalWidth();

  // A resident daemon answers from memory (--all is a bulk job: in process).
  const Index* resident = ResidentIndex(checkout.root);
  const bool use_daemon = !resident && !f.all && DaemonEnabled();
  // No socket, no daemon to tell the answer to: it is not waited for yet.
  if (use_daemon && daemon_listening) {
    version.Settle(&checkout);
    int forwarded = 0;
    if (ForwardToDaemon(checkout.root, DaemonArgs(f, checkout, render), &forwarded)) return forwarded;
  }
  if (!resident) {
    LoadOptions load;
    load.progress = ::isatty(STDERR_FILENO);
    // Never destroyed: an index mapped from the store would be walked page by
    // page to free it (~250 ms); the process exits right after.
    auto* loaded_index = new Index;
    Status loaded = LoadIndex(checkout, load, loaded_index);
    if (!loaded.ok()) return Report(loaded);
    resident = loaded_index;
  }
  const Index& index = *resident;

  TraceOptions options;
  ParseDevice(f.device, &options.device);  // CLI::IsMember above allowed only names it knows
  options.backward = !f.no_backward;
  options.depth = f.depth;
  options.assume = f.assume;
  // Snippets are for people reading text or markdown; JSON never carries them.
  options.snippets = !f.all && (fmt == Format::kText || fmt == Format::kMarkdown);
  auto start = std::chrono::steady_clock::now();
  std::vector<std::string> queries = f.all ? AllOpQueries(index) : f.queries;
  const bool one_json_per_line = fmt == Format::kJson && (f.all || queries.size() > 1);

  std::string links = f.links ? PermalinkBase(checkout.root, checkout.version) : "";
  if (f.links && links.empty())
    std::cerr << "optrace: no links: neither git metadata nor version.txt (" << checkout.version
              << ") names the checkout's exact version\n";
  int worst = 0;
  size_t not_found = 0;
  // Queries are independent and the index is read-only: a bulk run uses
  // every core, keeping the output in query order.
  unsigned threads = queries.size() <= 8 ? 1u : f.jobs > 0 ? static_cast<unsigned>(f.jobs) : UsableCores();
  AnswerInOrder(
      queries.size(), threads,
      [&](size_t qi) {
        return TraceAndRender(index, version, checkout, queries[qi], options, fmt, render, qi == 0, f.all,
                              f.pretty && !one_json_per_line, links);
      },
      [&](const Answer& a) {
        std::cout << a.out;
        std::cerr << a.err;
        if (!a.status.ok()) worst = std::max(worst, a.status.exit_code());
        not_found += a.status.code() == ExitCode::kNotFound;
      });
  std::cout.flush();
  if (f.all) {
    double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::cerr << "optrace: traced " << queries.size() << " ops in " << std::fixed << std::setprecision(1) << seconds
              << " s (" << not_found << " not found, " << threads << " threads)\n";
  }
  // The next trace of this checkout is answered from memory.
  if (use_daemon) StartDaemon(checkout.root);
  return worst;
}

}  // namespace optrace
