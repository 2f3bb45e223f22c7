// Entry points of the subcommands; each is defined in src/cmd_<name>.cc and
// listed in the table in main.cc.
#pragma once

namespace optrace {

int CmdTrace(int argc, char** argv);
int CmdScan(int argc, char** argv);
int CmdOp(int argc, char** argv);
int CmdOps(int argc, char** argv);
int CmdFind(int argc, char** argv);
int CmdPy(int argc, char** argv);
int CmdMcp(int argc, char** argv);
int CmdInfo(int argc, char** argv);
int CmdIndex(int argc, char** argv);
int CmdFetch(int argc, char** argv);
int CmdDaemon(int argc, char** argv);
int CmdVerify(int argc, char** argv);
int CmdTests(int argc, char** argv);
int CmdProfile(int argc, char** argv);

}  // namespace optrace
