// Test entry point shared by every stage's test binary. Tests on the real
// trees find them under ${OPTRACE_CORPUS:-$HOME/.cache/optrace-corpus}
// (scripts/corpus.sh provides them); see test_util.h.
#include <gtest/gtest.h>

#include <cstdlib>

int main(int argc, char** argv) {
  // optrace processes started by tests trace in process unless a test asks
  // for the daemon (cmd_daemon_test.cc); none is left running afterwards.
  ::setenv("OPTRACE_DAEMON", "0", 0);
  testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
