// SharedVector: copies share one array until one is edited, and an edit
// never shows in another copy (a remembered expansion's steps stay as made
// while a trace annotates its own).
#include "base/shared_vector.h"

#include <gtest/gtest.h>

#include <string>
#include <thread>
#include <vector>

namespace optrace {
namespace {

TEST(SharedVector, CopiesShareUntilOneIsEdited) {
  SharedVector<std::string> made = {"gemm", "gemv"};
  SharedVector<std::string> replayed = made;
  EXPECT_TRUE(replayed.SharesWith(made));

  replayed.Edit()[0] = "gemm_batched";
  EXPECT_FALSE(replayed.SharesWith(made));
  EXPECT_EQ(made[0], "gemm");
  EXPECT_EQ(replayed[0], "gemm_batched");
  EXPECT_EQ(replayed[1], "gemv");
}

TEST(SharedVector, ReadingANonConstCopyKeepsItShared) {
  SharedVector<std::string> made = {"a", "b", "c"};
  SharedVector<std::string> copy = made;
  std::string joined;
  for (const std::string& s : copy) joined += s;  // begin()/end() are const only
  joined += copy[1] + copy.front() + copy.back();
  EXPECT_EQ(joined, "abcbac");
  EXPECT_EQ(copy.size(), 3u);
  EXPECT_TRUE(copy.SharesWith(made));
}

TEST(SharedVector, TheSoleOwnerEditsInPlace) {
  SharedVector<int> v;
  EXPECT_TRUE(v.empty());
  v.push_back(1);
  const int* before = &v[0];
  v.Edit()[0] = 2;
  EXPECT_EQ(&v[0], before);
  {
    SharedVector<int> copy = v;  // shared, then released
  }
  v.Edit()[0] = 3;
  EXPECT_EQ(&v[0], before);
  EXPECT_EQ(v[0], 3);
}

TEST(SharedVector, AssignmentAndPushBackGiveTheCopyItsOwnArray) {
  SharedVector<int> made = {1, 2};
  SharedVector<int> a = made, b = made;
  a = {7};
  b.push_back(3);
  EXPECT_EQ(made.get(), (std::vector<int>{1, 2}));
  EXPECT_EQ(a.get(), (std::vector<int>{7}));
  EXPECT_EQ(b.get(), (std::vector<int>{1, 2, 3}));
  a.clear();
  EXPECT_TRUE(a.empty());
  EXPECT_EQ(made.size(), 2u);
}

// Traces on two threads copy one memo's steps and each edits its own copy.
TEST(SharedVector, ThreadsEditingTheirCopiesLeaveTheSharedOneAsMade) {
  const SharedVector<int> memo = {0, 0, 0};
  auto work = [&](int mark) {
    for (int i = 0; i < 2000; ++i) {
      SharedVector<int> mine = memo;
      mine.Edit()[1] = mark;
      ASSERT_EQ(mine[1], mark);
    }
  };
  std::thread one(work, 1), two(work, 2);
  one.join();
  two.join();
  EXPECT_EQ(memo.get(), (std::vector<int>{0, 0, 0}));
}

}  // namespace
}  // namespace optrace
