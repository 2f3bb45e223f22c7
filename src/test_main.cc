// Test entry point shared by every stage's test binary. Tests on the real
// trees find them under ${OPTRACE_CORPUS:-$HOME/.cache/optrace-corpus}
// (scripts/corpus.sh provides them); see test_util.h.
#include <gtest/gtest.h>

int main(int argc, char** argv) {
  testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
