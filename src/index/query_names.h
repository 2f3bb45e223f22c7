// The names a query may take, for the two answers a query that does not name
// one thing gets: "did you mean" (nothing matched) and "which one" (a bare
// name such as `norm` that is an aten op and also a different Python
// function). Both are computed from the index alone, so the tracer, the
// `find`/`op`/`py` answers of the CLI and the MCP tools all offer the same
// names, ranked by the one DidYouMean (base/text.h).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "index/index.h"

namespace optrace {

// Queries near `query` that do name something, best first: nn.<Module>,
// F.<function> and aten::<op> spellings, compared without their namespace
// and ignoring case ("conv" -> nn.Conv1d, F.conv1d ... aten::convolution;
// "nn.lstm" -> nn.LSTM; "F.sdpa" -> F.scaled_dot_product_attention). An aten
// op is left out where a Python name of the same spelling is offered: that
// is what users write, and its trace reaches the op.
std::vector<std::string> SuggestQueries(const Index& index, std::string_view query, size_t limit = 10);

// For a bare name (no namespace, no overload): every query it could mean when
// those run different code -- the aten op `aten::<name>` and a Python
// definition `torch.<name>` or `Tensor.<name>` in front of it (torch.norm is
// torch/functional.py, not aten::norm). Empty when the name means one thing.
std::vector<std::string> BareNameMeanings(const Index& index, std::string_view query);

}  // namespace optrace
