// Status: the result of an operation that can fail, with the process exit code
// that failure maps to. Modelled on LevelDB's Status: cheap when ok, carries a
// message otherwise. Exit codes are part of optrace's contract (trace-schema.md).
#pragma once

#include <string>
#include <utility>

namespace optrace {

enum class ExitCode : int {
  kOk = 0,
  kNotFound = 1,  // the query names nothing optrace knows
  kUsage = 2,     // bad command line
  kSource = 3,    // no checkout, unreadable/malformed tree or index
  kOutput = 4,    // the answer could not be written (full disk, closed stdout)
};

class Status {
 public:
  Status() = default;
  static Status Ok() { return Status(); }
  static Status NotFound(std::string msg) { return Status(ExitCode::kNotFound, std::move(msg)); }
  static Status Usage(std::string msg) { return Status(ExitCode::kUsage, std::move(msg)); }
  static Status SourceError(std::string msg) { return Status(ExitCode::kSource, std::move(msg)); }

  bool ok() const { return code_ == ExitCode::kOk; }
  ExitCode code() const { return code_; }
  int exit_code() const { return static_cast<int>(code_); }
  const std::string& message() const { return message_; }

 private:
  Status(ExitCode code, std::string msg) : code_(code), message_(std::move(msg)) {}
  ExitCode code_ = ExitCode::kOk;
  std::string message_;
};

}  // namespace optrace
