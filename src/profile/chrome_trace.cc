// The SAX reader of a Chrome-trace export (chrome_trace.h says why SAX).
//
// Containers are tracked by depth: the events are the objects of the array
// at key "traceEvents" of the top object (or of the top array, legacy); an
// event's own fields sit one level below it, its "args" fields two, an
// input's dims three and four. Everything else is skipped as it streams by.
#include "profile/chrome_trace.h"

#include <zlib.h>

#include <cmath>

#include <nlohmann/json.hpp>

namespace optrace {

namespace {

using json = nlohmann::json;

class Reader : public nlohmann::json_sax<json> {
 public:
  explicit Reader(ChromeTrace* out) : out_(out) {}

  bool null() override { return true; }
  bool boolean(bool) override { return true; }
  bool number_integer(number_integer_t v) override { return Number(static_cast<double>(v)); }
  bool number_unsigned(number_unsigned_t v) override { return Number(static_cast<double>(v)); }
  bool number_float(number_float_t v, const string_t&) override { return Number(v); }
  bool binary(binary_t&) override { return true; }
  bool parse_error(std::size_t pos, const std::string&, const nlohmann::detail::exception& e) override {
    error_ = std::string(e.what()) + " (byte " + std::to_string(pos) + ")";
    return false;
  }

  bool string(string_t& v) override {
    const size_t d = keys_.size();
    if (ev_ > 0 && d == ev_) {
      const std::string& k = keys_[d - 1];
      if (k == "name") cur_.name = std::move(v);
      else if (k == "cat") cur_.cat = std::move(v);
      else if (k == "ph") ph_ = v;
      else if (k == "pid") cur_.pid = std::move(v);
      else if (k == "tid") cur_.tid = std::move(v);
    } else if (ev_ > 0 && d == ev_ + 2 && InArgs("Input type")) {
      cur_.types.push_back(std::move(v));
    } else if (ev_ > 0 && d == ev_ + 2 && InArgs("Concrete Inputs")) {
      cur_.concrete.push_back(std::move(v));
    } else if (d == 3 && devices_ && keys_[2] == "name" && out_->device_name.empty()) {
      out_->device_name = v;
    }
    return true;
  }

  bool key(string_t& k) override {
    keys_.back() = k;
    return true;
  }

  bool start_object(std::size_t) override {
    keys_.emplace_back();
    arrays_.push_back(false);
    const size_t d = keys_.size();
    if (events_ > 0 && d == events_ + 1) {
      ev_ = d;
      cur_ = TraceEvent();
      ph_.clear();
    }
    return true;
  }

  bool end_object() override {
    if (ev_ > 0 && keys_.size() == ev_) {
      Keep();
      ev_ = 0;
    }
    keys_.pop_back();
    arrays_.pop_back();
    return true;
  }

  bool start_array(std::size_t) override {
    keys_.emplace_back();
    arrays_.push_back(true);
    const size_t d = keys_.size();
    if (d == 1) {
      events_ = 1;  // the legacy profiler's bare array of events
      out_->legacy = true;
    } else if (d == 2 && keys_[0] == "traceEvents") {
      events_ = 2;
    } else if (d == 2 && keys_[0] == "deviceProperties") {
      devices_ = true;
    } else if (ev_ > 0 && d == ev_ + 3 && InArgs("Input Dims")) {
      cur_.dims.emplace_back();
    } else if (ev_ > 0 && d == ev_ + 2 && InArgs("Input Dims")) {
      // the list of inputs
    }
    return true;
  }

  bool end_array() override {
    if (keys_.size() == 2 && devices_) devices_ = false;
    keys_.pop_back();
    arrays_.pop_back();
    return true;
  }

  const std::string& error() const { return error_; }

 private:
  // The value sits in the "args" object of the event, under `key` (at any depth below it).
  bool InArgs(const char* key) const { return keys_.size() > ev_ + 1 && keys_[ev_ - 1] == "args" && keys_[ev_] == key; }

  bool Number(double v) {
    const size_t d = keys_.size();
    if (ev_ == 0) return true;
    if (d == ev_) {
      const std::string& k = keys_[d - 1];
      if (k == "ts") cur_.ts = v;
      else if (k == "dur") cur_.dur = v;
      else if (k == "pid") cur_.pid = std::to_string(static_cast<long long>(v));
      else if (k == "tid") cur_.tid = std::to_string(static_cast<long long>(v));
    } else if (d == ev_ + 1 && keys_[ev_ - 1] == "args") {
      const std::string& k = keys_[d - 1];
      if (k == "External id") cur_.external_id = static_cast<int64_t>(v);
      else if (k == "correlation") cur_.correlation = static_cast<int64_t>(v);
    } else if (d == ev_ + 3 && InArgs("Input Dims") && !cur_.dims.empty()) {
      cur_.dims.back().push_back(static_cast<int64_t>(v));
    }
    return true;
  }

  void Keep() {
    if (ph_ != "X") return;
    if (out_->legacy && cur_.cat.empty()) cur_.cat = "cpu_op";  // legacy events are all operators
    const std::string& c = cur_.cat;
    if (c == "kernel" || c == "gpu_memcpy" || c == "gpu_memset" || c == "cpu_op" || c == "cuda_runtime" ||
        c == "python_function" || c == "Kernel" || c == "Operator") {
      if (c == "Kernel") cur_.cat = "kernel";  // older Kineto spellings
      if (c == "Operator") cur_.cat = "cpu_op";
      out_->events.push_back(std::move(cur_));
    }
  }

  ChromeTrace* out_;
  std::vector<std::string> keys_;  // keys_[d-1]: the current key of the container at depth d
  std::vector<bool> arrays_;
  size_t events_ = 0;  // depth of the events array
  size_t ev_ = 0;      // depth of the event object being read, 0 outside one
  bool devices_ = false;
  TraceEvent cur_;
  std::string ph_;
  std::string error_;
};

}  // namespace

Status ParseChromeTrace(const std::string& text, ChromeTrace* out) {
  *out = ChromeTrace();
  Reader r(out);
  bool ok = json::sax_parse(text, &r, json::input_format_t::json, /*strict=*/false);
  if (!ok) return Status::Usage("not a Chrome-trace JSON export: " + (r.error().empty() ? "unreadable" : r.error()));
  if (out->events.empty() && !out->legacy) {
    return Status::Usage("no profiler events (traceEvents) in this JSON: not a torch.profiler export");
  }
  return Status::Ok();
}

Status ReadChromeTrace(const std::string& path, ChromeTrace* out) {
  // gzread reads a gzip file and, transparently, a plain one.
  gzFile f = gzopen(path.c_str(), "rb");
  if (!f) return Status::Usage("cannot open " + path);
  gzbuffer(f, 1 << 20);
  std::string text;
  char buf[1 << 16];
  for (;;) {
    int n = gzread(f, buf, sizeof buf);
    if (n < 0) {
      int code = 0;
      std::string msg = gzerror(f, &code);
      gzclose(f);
      return Status::Usage("cannot read " + path + ": " + msg);
    }
    if (n == 0) break;
    text.append(buf, static_cast<size_t>(n));
  }
  gzclose(f);
  Status s = ParseChromeTrace(text, out);
  if (!s.ok()) return Status::Usage(path + ": " + s.message());
  return s;
}

}  // namespace optrace
