// Python's builtins, and names that only look like them.
#include "py/py_builtins.h"

#include <gtest/gtest.h>

namespace optrace {
namespace {

TEST(PythonBuiltins, FunctionsTypesAndExceptionsAreBuiltinsAModulesNamesAreNot) {
  for (const char* name : {"len", "isinstance", "super", "zip", "ValueError", "RuntimeWarning", "StopIteration"})
    EXPECT_TRUE(IsPythonBuiltin(name)) << name;
  for (const char* name : {"layer", "mod", "ref", "lens", "Linear", "F", "torch"})
    EXPECT_FALSE(IsPythonBuiltin(name)) << name;
}

}  // namespace
}  // namespace optrace
