// `optrace mcp`: optrace as an MCP server over stdio, for coding agents
// (`claude mcp add optrace -- optrace mcp`, doc/mcp.md). stdout carries
// protocol messages only: the protocol gets its own copy of the stdout file
// descriptor and fd 1 is pointed at stderr, so a stray print anywhere in the
// process lands in the log instead of corrupting the stream.
#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <thread>

#include "base/cores.h"
#include "base/subprocess.h"
#include "cli/cmd_common.h"
#include "cli/commands.h"
#include "mcp/mcp_server.h"
#include "tools/mcp_tools.h"

namespace optrace {

int CmdMcp(int argc, char** argv) {
  CLI::App app{"Serve optrace's tools over MCP (stdio, JSON-RPC 2.0), for coding agents", "optrace mcp"};
  std::string source;
  unsigned jobs = std::clamp(UsableCores(), 1u, 4u);
  bool allow_code = false;
  AddSourceFlag(app, &source);
  app.add_flag("--allow-code", allow_code,
               "let the verify tool run the `code` a client sends (arbitrary Python, as this user; doc/trust.md)");
  app.add_option("--jobs", jobs, "tool calls answered at once (1: strictly in order)")->check(CLI::Range(1, 64));
  int rc = 0;
  if (!ParseOrReport(app, argc, argv, &rc)) return rc;

  int protocol_fd = ::dup(STDOUT_FILENO);
  if (protocol_fd < 0 || ::dup2(STDERR_FILENO, STDOUT_FILENO) < 0) {
    std::perror("optrace mcp: dup");
    return static_cast<int>(ExitCode::kSource);
  }
  std::signal(SIGPIPE, SIG_IGN);  // a client that hangs up must not kill us mid-write

  OptraceTools tools(source, allow_code);
  tools.StartLoading();
  McpServerInfo info;
  info.instructions = McpInstructions();  // tools/mcp_tools.h: every tool, and when
  // The client hung up: a verify still running (or still queued) has nobody
  // to answer; its Python is killed now rather than waited for (up to its
  // 600 s deadline), and none starts.
  info.on_input_end = StopChildren;
  McpServer server(&tools, info);
  std::cerr << "optrace mcp: serving on stdio (protocol " << kMcpModernVersion << ", " << McpSessionVersions().front()
            << ", " << McpSessionVersions().back() << ")\n";
  server.Serve(STDIN_FILENO, protocol_fd, jobs);
  // EOF: every request read has been answered. Leave without waiting for an
  // index build still running on the loader thread.
  std::fflush(nullptr);
  std::_Exit(0);
}

}  // namespace optrace
