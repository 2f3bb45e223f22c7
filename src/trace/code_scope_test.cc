// Build membership by folder: which backend's build alone compiles a file.
#include "trace/code_scope.h"

#include <gtest/gtest.h>

namespace optrace {
namespace {

TEST(BackendFolder, AWholeFolderNameOfTheTableInTheTablesOrder) {
  EXPECT_EQ(BackendFolder("aten/src/ATen/native/vulkan/ops/Clamp.cpp"), "/vulkan/");
  EXPECT_EQ(BackendFolder("aten/src/ATen/native/mkldnn/xpu/Conv.cpp"), "/mkldnn/xpu/");
  EXPECT_EQ(BackendFolder("aten/src/ATen/native/xpu/Blas.cpp"), "/xpu/");
  EXPECT_EQ(BackendFolder("aten/src/ATen/native/miopen/RNN_miopen.cpp"), "/miopen/");
  // Two folders of the table: the table's order decides, not the path's.
  EXPECT_EQ(BackendFolder("x/metal/y/vulkan/z.cpp"), "/vulkan/");
  // A name that only begins like one, or a file every build compiles.
  EXPECT_EQ(BackendFolder("aten/src/ATen/native/hipify/x.cpp"), "");
  EXPECT_EQ(BackendFolder("aten/src/ATen/native/mkldnn/Conv.cpp"), "");
  EXPECT_EQ(BackendFolder("aten/src/ATen/native/cuda/Blas.cpp"), "");
  EXPECT_EQ(BackendFolder("vulkan/at_the_start.cpp"), "");  // paths are tree-relative: no leading folder slash
}

TEST(SameBuild, CodeOfABackendFolderIsInThatBackendsBuildOnly) {
  EXPECT_TRUE(SameBuild("aten/src/ATen/native/Blas.cpp", "aten/src/ATen/native/vulkan/ops/Mm.cpp"));
  EXPECT_TRUE(SameBuild("aten/src/ATen/native/vulkan/ops/Common.cpp", "aten/src/ATen/native/vulkan/ops/Mm.cpp"));
  EXPECT_FALSE(SameBuild("aten/src/ATen/native/vulkan/ops/Common.cpp", "aten/src/ATen/native/cuda/Blas.cpp"));
  EXPECT_FALSE(SameBuild("aten/src/ATen/native/mps/Ops.mm", "aten/src/ATen/native/metal/Ops.mm"));
}

}  // namespace
}  // namespace optrace
