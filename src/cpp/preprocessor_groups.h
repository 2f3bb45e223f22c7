// The #if groups of one file: its directive lines read once, then for any
// line the conditions of the groups around it (`#if AT_CUDNN_ENABLED()`,
// `#ifdef USE_ROCM`, an `#else`'s negation of the branches above it). An
// include guard (`#ifndef X` followed by `#define X`) is no condition.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "cpp/code_condition.h"

namespace optrace {

// The directives that open, continue or close a conditional group, and
// #define (an include guard's); the rest are kOther.
enum class Directive : uint8_t { kIf, kIfdef, kIfndef, kElif, kElse, kEndif, kDefine, kOther };

// A preprocessor directive line (#if, #else, #define, #include ...).
struct PreprocessorLine {
  int line = 0;
  Directive directive = Directive::kOther;
  std::string word;  // if, ifdef, ifndef, elif, else, endif, define, include ...
  std::string arg;   // whitespace collapsed, comments dropped
};

// The directive lines of `text`, backslash continuations joined.
std::vector<PreprocessorLine> ReadPreprocessorLines(std::string_view text);

// The conditions of the #if groups open at `line`, outermost first.
std::vector<CodeCondition> PreprocessorConditionsAt(const std::vector<PreprocessorLine>& lines, int line);

// The same, read from the file's text (for a registration or a definition
// asked about once): "#if AT_CUDNN_ENABLED()", "#ifdef USE_ROCM" ...
std::vector<CodeCondition> CppPreprocessorConditions(std::string_view text, int line);

}  // namespace optrace
