// `optrace verify QUERY --time` (cmd_verify_time.cc says what and how).
#pragma once

#include <string>
#include <vector>

namespace optrace {

struct VerifyTimeFlags {
  std::string source, query, device = "cpu", dtype;
  std::vector<std::string> shapes;  // "8,1024,4096", one per input
  int repeat = 20;
  size_t top = 20;
  int timeout_s = 600;
};

int RunVerifyTime(const VerifyTimeFlags& flags);

}  // namespace optrace
