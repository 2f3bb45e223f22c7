// One index per real tree for a whole test binary, built from the tree
// (no store): building one takes about a second, and several test files of
// a binary need the same one.
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <string>

#include <gtest/gtest.h>

#include "base/checkout.h"
#include "index/index.h"
#include "testing/test_util.h"

namespace optrace {

inline const Index& TreeIndex(const std::string& version) {
  static std::mutex mu;
  static std::map<std::string, std::unique_ptr<Index>> indexes;
  std::lock_guard<std::mutex> lock(mu);
  auto& slot = indexes[version];
  if (!slot) {
    Checkout checkout;
    Status s = FindCheckout(CorpusTree(version), &checkout);
    EXPECT_TRUE(s.ok()) << s.message();
    slot = std::make_unique<Index>();
    LoadOptions options;
    options.use_store = false;
    s = LoadIndex(checkout, options, slot.get());
    EXPECT_TRUE(s.ok()) << s.message();
  }
  return *slot;
}

}  // namespace optrace
