// Which definitions of a FunctionsManual helper a formula's call reaches.
#include "trace/manual_helpers.h"

#include <gtest/gtest.h>

#include "testing/memory_index.h"

namespace optrace {
namespace {

// torch/csrc/autograd/FunctionsManual.cpp
constexpr char kManual[] = R"x(namespace torch::autograd::generated::details {
Tensor shrink_backward(const Tensor& grad, const Tensor& input, const Tensor& result) { return grad; }
Tensor shrink_backward(Tensor grad, const Tensor& input, Tensor result, int64_t dim, bool keepdim) { return grad; }
Tensor pad_backward(const Tensor& grad, int64_t n = 1) { return grad; }
}
)x";

TEST(HelperOverloadsTaking, TheParameterCountPicksTheDefinitions) {
  Index index;
  ASSERT_NO_FATAL_FAILURE(
      BuildMemoryIndex(MemoryTree({{"version.txt", "2.6.0a0\n"},
                                   {"aten/src/ATen/native/native_functions.yaml", "- func: f(Tensor self) -> Tensor\n"},
                                   {"torch/csrc/autograd/FunctionsManual.cpp", kManual}}),
                       &index));
  const std::string file = "torch/csrc/autograd/FunctionsManual.cpp";
  auto lines = [&](const std::vector<uint32_t>& ids) {
    std::vector<uint32_t> out;
    for (uint32_t id : ids) out.push_back(index.cpp.functions()[id].line);
    return out;
  };
  using Args = std::vector<std::string>;
  EXPECT_EQ(lines(HelperOverloadsTaking(index.cpp, file, "shrink_backward", Args{"grad", "self", "result"})),
            (std::vector<uint32_t>{2}));
  EXPECT_EQ(
      lines(HelperOverloadsTaking(index.cpp, file, "shrink_backward", Args{"grad", "self", "result", "dim", "k"})),
      (std::vector<uint32_t>{3}));
  // Not read: every definition; none admitting the count: every one too.
  EXPECT_EQ(HelperOverloadsTaking(index.cpp, file, "shrink_backward", std::nullopt).size(), 2u);
  EXPECT_EQ(HelperOverloadsTaking(index.cpp, file, "shrink_backward", Args{"grad"}).size(), 2u);
  // A default makes the parameter optional.
  EXPECT_EQ(lines(HelperOverloadsTaking(index.cpp, file, "pad_backward", Args{"grad"})), (std::vector<uint32_t>{4}));
}

}  // namespace
}  // namespace optrace
