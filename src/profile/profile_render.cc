// The profile report as text, markdown and JSON (optrace.profile/1,
// doc/profile.md). No lookups: everything shown is in the ProfileReport.
#include <cstdio>

#include <fmt/format.h>

#include "profile/profile.h"

namespace optrace {

namespace {

std::string Loc(const Location& l) { return l.valid() ? l.file + ":" + std::to_string(l.line) : ""; }

// "vectorized_elementwise_kernel → sigmoid_kernel_cuda" / "nvjet_sm90_… [cuBLAS]" / the name cut to fit.
std::string Short(const ProfileRow& row) {
  const KernelSource& s = row.source;
  if (s.valid() && !s.payload.empty()) return s.kernel + " → " + s.payload;
  std::string n = s.valid() ? s.kernel : row.name;
  if (n.size() > 90) n = n.substr(0, 87) + "...";
  if (!s.library.empty()) n += " [" + s.library + "]";
  return n;
}

std::string Shapes(const ProfileRow& row) {
  std::string out;
  for (size_t i = 0; i < row.shapes.size(); ++i) {
    if (row.shapes[i].empty()) continue;
    if (!out.empty()) out += ", ";
    out += "[";
    for (size_t j = 0; j < row.shapes[i].size(); ++j) out += (j ? "," : "") + std::to_string(row.shapes[i][j]);
    out += "]";
    if (i < row.types.size()) {
      std::string d = ProfilerDtypeName(row.types[i]);
      if (!d.empty()) out += " " + d;
    }
  }
  return out;
}

std::string Bytes(double b) {
  if (b >= 1e9) return fmt::format("{:.2f} GB", b / 1e9);
  if (b >= 1e6) return fmt::format("{:.2f} MB", b / 1e6);
  return fmt::format("{:.1f} KB", b / 1e3);
}

std::string Achieved(const ProfileRow& row, const ProfileReport& r) {
  if (row.bytes <= 0) return "";
  std::string s = fmt::format("{}: {}, {:.3g} GFLOP → {:.2f} TB/s", row.cost.family, Bytes(row.bytes), row.flops / 1e9,
                              row.achieved_tbs);
  if (r.peak) s += fmt::format(" = {:.1f}% of HBM peak", 100 * row.bandwidth_share);
  if (row.compute_share > 0)
    s += fmt::format("; {:.1f} TFLOPS = {:.1f}% of {} peak", row.achieved_tflops, 100 * row.compute_share,
                     row.cost.dtype);
  return s;
}

std::string Where(const ProfileRow& row) {
  const KernelSource& s = row.source;
  if (!s.valid()) return row.unresolved.empty() ? "not resolved (no checkout)" : row.unresolved;
  if (!s.library.empty()) return "not in this tree: " + s.library + " (" + s.library_reason + ")";
  std::string out = Loc(s.definition);
  if (!s.payload.empty()) {
    out += (out.empty() ? "" : "; ") + std::string(Name(s.payload_kind)) + " " + s.payload;
    if (!s.arithmetic.empty()) out += " at " + Loc(s.arithmetic.front());
    else if (s.payload_definition.valid()) out += " at " + Loc(s.payload_definition);
  }
  return out;
}

}  // namespace

std::string RenderProfileText(const ProfileReport& r) {
  std::string out = "optrace profile " + r.file + "\n";
  if (r.gpu) {
    out += "  device    " + (r.device.empty() ? std::string("(not recorded)") : r.device);
    if (r.peak) {
      out += fmt::format("  peak {:.3g} TB/s, {:.0f} TFLOPS BF16 dense ({})", r.peak->hbm_tbs, r.peak->bf16_tflops,
                         r.peak->source);
    }
    out += "\n";
    out += fmt::format("  GPU time  {:.1f} us in {} kernels (and copies); top {}\n", r.total_us, r.distinct,
                       r.rows.size());
  } else {
    out += fmt::format("  CPU op self time {:.1f} us in {} ops; top {}\n", r.total_us, r.distinct, r.rows.size());
  }
  for (const std::string& n : r.notes) out += "  note      " + n + "\n";
  out += fmt::format("\n{:>3}  {:>6}  {:>10}  {:>6}  {:>9}  {}\n", "#", "share", "total us", "calls", "mean us",
                     r.gpu ? "kernel" : "op");
  for (size_t i = 0; i < r.rows.size(); ++i) {
    const ProfileRow& row = r.rows[i];
    out += fmt::format("{:>3}  {:>5.1f}%  {:>10.1f}  {:>6}  {:>9.2f}  {}\n", i + 1, 100 * row.share, row.total_us,
                       row.calls, row.mean_us, r.gpu ? Short(row) : row.name);
    if (r.gpu) {
      out += "       source    " + Where(row) + "\n";
      if (!row.op.empty()) {
        out += "       launched  " + row.op + (row.outer_op != row.op ? " in " + row.outer_op : "") +
               (row.python.empty() ? "" : "; python " + row.python) + "\n";
      }
    }
    std::string sh = Shapes(row);
    if (!sh.empty()) out += "       shapes    " + sh + "\n";
    std::string a = Achieved(row, r);
    if (!a.empty()) out += "       achieved  " + a + "\n";
  }
  return out;
}

std::string RenderProfileMarkdown(const ProfileReport& r) {
  std::string out = "## optrace profile `" + r.file + "`\n\n";
  if (r.gpu) {
    out += fmt::format("Device **{}**, GPU time {:.1f} µs in {} kernels; top {} by time.\n\n",
                       r.device.empty() ? "not recorded" : r.device, r.total_us, r.distinct, r.rows.size());
    out += "| # | share | total µs | calls | mean µs | kernel | source | launched by | achieved |\n";
    out += "|---|---|---|---|---|---|---|---|---|\n";
  } else {
    out += fmt::format("CPU op self time {:.1f} µs in {} ops; top {}.\n\n", r.total_us, r.distinct, r.rows.size());
    out += "| # | share | self µs | calls | mean µs | op | shapes |\n|---|---|---|---|---|---|---|\n";
  }
  for (size_t i = 0; i < r.rows.size(); ++i) {
    const ProfileRow& row = r.rows[i];
    if (r.gpu) {
      out += fmt::format("| {} | {:.1f}% | {:.1f} | {} | {:.2f} | `{}` | {} | {} | {} |\n", i + 1, 100 * row.share,
                         row.total_us, row.calls, row.mean_us, Short(row), Where(row), row.op, Achieved(row, r));
    } else {
      out += fmt::format("| {} | {:.1f}% | {:.1f} | {} | {:.2f} | `{}` | {} |\n", i + 1, 100 * row.share, row.total_us,
                         row.calls, row.mean_us, row.name, Shapes(row));
    }
  }
  for (const std::string& n : r.notes) out += "\n> " + n + "\n";
  return out;
}

nlohmann::ordered_json ProfileJson(const ProfileReport& r) {
  using J = nlohmann::ordered_json;
  J j;
  j["schema"] = "optrace.profile/1";
  j["file"] = r.file;
  j["device"] = r.device;
  if (r.peak) {
    j["peak"] = {{"name", r.peak->name},
                 {"hbm_tbs", r.peak->hbm_tbs},
                 {"bf16_tflops", r.peak->bf16_tflops},
                 {"tf32_tflops", r.peak->tf32_tflops},
                 {"fp32_tflops", r.peak->fp32_tflops},
                 {"source", r.peak->source}};
  } else {
    j["peak"] = nullptr;
  }
  j["gpu"] = r.gpu;
  j["total_us"] = r.total_us;
  j["distinct"] = r.distinct;
  j["rows"] = J::array();
  for (const ProfileRow& row : r.rows) {
    J x = {{"name", row.name},         {"kind", row.kind},       {"calls", row.calls},
           {"total_us", row.total_us}, {"mean_us", row.mean_us}, {"share", row.share}};
    if (!row.op.empty()) x["launched_by"] = {{"op", row.op}, {"outer_op", row.outer_op}, {"calls", row.op_calls}};
    if (!row.python.empty()) x["python"] = row.python;
    if (!row.shapes.empty()) {
      x["input_shapes"] = row.shapes;
      x["input_types"] = row.types;
    }
    if (r.gpu) {
      const KernelSource& s = row.source;
      J src;
      src["resolved"] = s.valid();
      if (s.valid()) {
        src["kernel"] = s.kernel;
        if (s.definition.valid()) src["definition"] = {{"file", s.definition.file}, {"line", s.definition.line}};
        if (!s.payload.empty()) {
          src["payload"] = s.payload;
          src["payload_kind"] = std::string(Name(s.payload_kind));
        }
        src["arithmetic"] = J::array();
        for (const Location& l : s.arithmetic) src["arithmetic"].push_back({{"file", l.file}, {"line", l.line}});
        if (!s.dtype.empty()) src["dtype"] = s.dtype;
        if (!s.library.empty()) {
          src["library"] = s.library;
          src["library_reason"] = s.library_reason;
        }
      } else {
        src["why"] = row.unresolved;
      }
      x["source"] = src;
    }
    if (row.bytes > 0) {
      x["estimate"] = {
          {"family", row.cost.family}, {"dtype", row.cost.dtype},          {"bytes", row.bytes},
          {"flops", row.flops},        {"achieved_tbs", row.achieved_tbs}, {"achieved_tflops", row.achieved_tflops},
          {"model", row.cost.note}};
      if (r.peak) {
        x["estimate"]["bandwidth_share"] = row.bandwidth_share;
        x["estimate"]["compute_share"] = row.compute_share > 0 ? J(row.compute_share) : J(nullptr);
      }
    }
    j["rows"].push_back(std::move(x));
  }
  j["notes"] = r.notes;
  return j;
}

}  // namespace optrace
