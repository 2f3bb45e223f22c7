// Where C++/CUDA code runs on the device. Code inside a __global__ or
// __device__ function, or inside a lambda marked for the device
// (`[] GPU_LAMBDA (scalar_t a) { ... }`, `[=] __device__ (...)`), is
// compiled for the GPU: it cannot call the dispatcher, so no aten op is
// ever called there, whatever its operators and calls look like (`dy * cdf`
// on two scalars, `max(a, b)`). The tracer asks these questions of a
// function's body before it reads operators or calls as ops.
#pragma once

#include <cstddef>
#include <string_view>
#include <utility>
#include <vector>

namespace optrace {

// The byte ranges [begin, end] of `code` (a function body, or any run of
// C++) that are device code: from the '{' opening each device lambda or
// device function defined in it to its matching '}'. Nested ranges are
// not reported twice.
std::vector<std::pair<size_t, size_t>> DeviceCodeRanges(std::string_view code);

// Whether a function's declaration -- the text from the end of whatever
// precedes it to its name, `head` -- marks it as device code (__device__,
// __global__, C10_DEVICE, C10_HOST_DEVICE): only the tokens after the last
// `;`, `}` or `{` of `head` count, so a previous definition's markers do not.
bool DeclaresDeviceCode(std::string_view head);

// Whether every whole-word mention of `name` on line `line` of `code` (0 =
// its first line) lies in one of `ranges`; false when there is none.
bool MentionsOnlyIn(std::string_view code, int line, std::string_view name,
                    const std::vector<std::pair<size_t, size_t>>& ranges);

// Whether `offset` lies in one of `ranges`.
bool InRanges(const std::vector<std::pair<size_t, size_t>>& ranges, size_t offset);

}  // namespace optrace
