// A stand-in for libFuzzer's main, so every fuzz target also runs in a plain
// gcc build (and in its CTest suite) where clang's -fsanitize=fuzzer is not
// available. It takes the same command line libFuzzer does, as far as the
// suite uses it (-max_total_time=S, -runs=N, -seed=N, -max_len=N, corpus
// directories or files), replays every corpus file, then feeds mutations of
// them (byte flips, inserts, deletes, repeats, splices of two inputs, ASCII
// tokens that matter to parsers) until the time or run budget is spent. It
// has no coverage feedback: it is a bounded smoke test that keeps the
// targets honest between real libFuzzer runs (cmake -DOPTRACE_FUZZ=ON).
// A crash leaves the input that caused it in ./fuzz-crash-<pid>.
#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);
extern "C" __attribute__((weak)) int LLVMFuzzerInitialize(int* argc, char*** argv);

namespace {

// The input being run, for the crash handler (which may only use
// async-signal-safe calls: open/write/_exit).
const uint8_t* g_input = nullptr;
size_t g_input_size = 0;
char g_crash_path[64];

void OnCrash(int sig) {
  int fd = ::open(g_crash_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd >= 0) {
    if (g_input_size) [[maybe_unused]]
      ssize_t w = ::write(fd, g_input, g_input_size);
    ::close(fd);
  }
  const char msg[] = "fuzz driver: crashed; the input is in ";
  [[maybe_unused]] ssize_t w1 = ::write(2, msg, sizeof(msg) - 1);
  [[maybe_unused]] ssize_t w2 = ::write(2, g_crash_path, std::strlen(g_crash_path));
  [[maybe_unused]] ssize_t w3 = ::write(2, "\n", 1);
  ::signal(sig, SIG_DFL);
  ::raise(sig);
}

void Run(const std::string& input) {
  g_input = reinterpret_cast<const uint8_t*>(input.data());
  g_input_size = input.size();
  LLVMFuzzerTestOneInput(g_input, g_input_size);
}

// Bytes that open or close structure in the formats the targets read.
const char* const kTokens[] = {"\n", "- ", ": ", "[",  "]",   "{",    "}",    "\"",    "'",           ",",
                               "\\", "#",  "\t", "  ", "\\u", "null", "true", "1e999", "-func: ",     "->",
                               "(",  ")",  "::", "*",  "&",   "\xff", "\xc3", "\x00",  "\"jsonrpc\"", "\"id\""};

std::string Mutate(const std::vector<std::string>& corpus, std::mt19937_64& rng, size_t max_len) {
  auto pick = [&](size_t n) { return n ? static_cast<size_t>(rng() % n) : 0; };
  std::string s = corpus.empty() ? std::string() : corpus[pick(corpus.size())];
  size_t steps = 1 + pick(8);
  for (size_t k = 0; k < steps; ++k) {
    size_t at = pick(s.size() + 1);
    switch (pick(7)) {
      case 0:  // flip a bit
        if (!s.empty()) s[pick(s.size())] ^= static_cast<char>(1u << pick(8));
        break;
      case 1:  // a random byte
        s.insert(at, 1, static_cast<char>(rng()));
        break;
      case 2:  // delete a run
        if (!s.empty()) s.erase(pick(s.size()), 1 + pick(16));
        break;
      case 3: {  // a token
        const char* t = kTokens[pick(sizeof(kTokens) / sizeof(kTokens[0]))];
        s.insert(at, t, std::max<size_t>(1, std::strlen(t)));
        break;
      }
      case 4:  // repeat a run (nesting, long lines)
        if (!s.empty()) {
          size_t from = pick(s.size()), len = 1 + pick(std::min<size_t>(8, s.size() - from));
          std::string run = s.substr(from, len);
          for (size_t r = 1 + pick(64); r > 0 && s.size() < max_len; --r) s.insert(at, run);
        }
        break;
      case 5:  // splice another input
        if (!corpus.empty()) {
          const std::string& other = corpus[pick(corpus.size())];
          size_t from = pick(other.size() + 1);
          s = s.substr(0, at) + other.substr(from);
        }
        break;
      default:  // truncate
        s.resize(at);
        break;
    }
  }
  if (s.size() > max_len) s.resize(max_len);
  return s;
}

void AddCorpus(const std::string& path, size_t max_len, std::vector<std::string>* corpus) {
  namespace fs = std::filesystem;
  std::error_code ec;
  auto add = [&](const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    std::string s = ss.str();
    if (s.size() > max_len) s.resize(max_len);
    corpus->push_back(std::move(s));
  };
  if (fs::is_directory(path, ec)) {
    std::vector<fs::path> files;
    for (const auto& e : fs::directory_iterator(path, ec))
      if (e.is_regular_file(ec)) files.push_back(e.path());
    std::sort(files.begin(), files.end());
    for (const auto& f : files) add(f);
  } else if (fs::is_regular_file(path, ec)) {
    add(path);
  }
}

}  // namespace

int main(int argc, char** argv) {
  double max_time = 0;
  long long runs = -1;
  unsigned long long seed = 1;
  size_t max_len = 4096;
  std::vector<std::string> paths;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto value = [&](const char* flag) { return a.substr(std::strlen(flag)); };
    if (a.rfind("-max_total_time=", 0) == 0) max_time = std::stod(value("-max_total_time="));
    else if (a.rfind("-runs=", 0) == 0) runs = std::stoll(value("-runs="));
    else if (a.rfind("-seed=", 0) == 0) seed = std::stoull(value("-seed="));
    else if (a.rfind("-max_len=", 0) == 0) max_len = std::stoul(value("-max_len="));
    else if (a[0] == '-') std::cerr << "fuzz driver: ignoring " << a << "\n";
    else paths.push_back(a);
  }
  if (LLVMFuzzerInitialize) LLVMFuzzerInitialize(&argc, &argv);
  std::snprintf(g_crash_path, sizeof(g_crash_path), "fuzz-crash-%d", static_cast<int>(::getpid()));
  for (int sig : {SIGSEGV, SIGABRT, SIGBUS, SIGFPE, SIGILL}) ::signal(sig, OnCrash);

  std::vector<std::string> corpus;
  for (const std::string& p : paths) AddCorpus(p, max_len, &corpus);
  for (const std::string& input : corpus) Run(input);
  Run("");

  std::mt19937_64 rng(seed);
  const auto start = std::chrono::steady_clock::now();
  long long done = 0;
  for (; runs < 0 || done < runs; ++done) {
    if (runs < 0 && std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() >= max_time) break;
    Run(Mutate(corpus, rng, max_len));
  }
  std::cerr << "fuzz driver: " << corpus.size() << " corpus inputs, " << done << " mutations, no crash\n";
  return 0;
}
