// A GPU kernel's name as a profiler prints it (torch.profiler / Kineto,
// Nsight Systems, Nsight Compute), read back into what it says about the
// source: the __global__ function, the functor or lambda a launch template
// was instantiated with, the lambda chain down to the arithmetic, a
// jiterator kernel's string, and the vendor library a closed kernel comes
// from.
//
// Pure string work, no index: the names are demangled C++ (`void
// at::native::vectorized_elementwise_kernel<4, at::native::sigmoid_kernel_cuda(
// at::TensorIteratorBase&)::{lambda()#2}::operator()() const::{lambda()#2}::
// operator()() const::{lambda(float)#1}, std::array<char*, 2ul> >(int, ...)`),
// often cut at a few hundred characters, or still mangled (`_Z...`, which is
// demangled first with libstdc++'s abi::__cxa_demangle). The reader never
// fails: a cut name leaves its brackets open and says so. Which of the
// candidates it lists is the code that runs is decided against the index
// (trace/kernel_query.cc), so nothing here guesses.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace optrace {

// One `{lambda(params)#n}` of a demangled name: the n-th lambda with that
// parameter list in its scope (the Itanium ABI's discriminator plus one).
struct LambdaStep {
  std::string params;  // as printed: "float", "float, float", ""
  int arity = 0;       // parameters counted at depth 0 of `params`
  int number = 1;      // n of #n
  bool operator==(const LambdaStep&) const = default;
};

// Where a launch template's arithmetic may live, in the order the name
// offers them (outer template argument first, wrappers looked through).
struct PayloadCandidate {
  std::string name;               // "sigmoid_kernel_cuda", "MulFunctor", "sum_functor"
  std::string scope;              // its qualifier as printed: "at::native::", "at::native::binary_internal::"
  bool lambda = false;            // the name holds a lambda (a function, or a functor's operator())
  std::vector<LambdaStep> chain;  // the {lambda} chain below it, outermost first
  std::string params;             // the enclosing function's parameter list as printed, when a lambda
  bool call_operator = false;     // the lambda is in `name`'s operator(): name is a functor class
  bool operator==(const PayloadCandidate&) const = default;
};

struct KernelName {
  std::string demangled;  // the name as read (demangled when it came mangled)
  bool was_mangled = false;
  bool truncated = false;                  // a bracket is left open: the profiler cut the name
  std::string kernel;                      // the __global__ function: "vectorized_elementwise_kernel"
  std::string scope;                       // its qualifier: "at::native::", "at::native::(anonymous namespace)::"
  std::vector<PayloadCandidate> payloads;  // from the kernel's template arguments
  // A jiterator kernel (`<name>_vectorized4_kernel`, `<name>_kernel`): the
  // kernel string it was compiled from, "abs_kernel".
  std::string jiterator_vectorized;      // name cut before "_vectorized<N>_kernel"
  std::string jiterator_plain;           // name cut before "_kernel"
  std::vector<std::string> identifiers;  // every identifier of the name, in order
};

// Demangles an Itanium-mangled name (`_Z...`); anything else comes back as is.
std::string DemangleKernelName(std::string_view name, bool* was_mangled = nullptr);

// Reads a kernel name as a profiler prints it. Never fails.
KernelName ParseKernelName(std::string_view name);

// True when `query` can only be a kernel name as a profiler prints it, not
// an op, Python or C++ name as written in source: it is mangled, or has a
// template, a parameter list, a lambda or a space.
bool LooksLikeProfilerKernelName(std::string_view query);

// The vendor library a kernel that is not in the tree comes from, read from
// its name alone ("cuBLAS", "cuBLASLt", "cuDNN", "cuFFT", "cuSOLVER", "CUB",
// "Thrust", "cuRAND", "NCCL"), with the reason; "" when the name does not
// say. The rules are in kernel_name.cc, each with the naming convention it
// reads. *by_routine_name (optional): the answer rests on a BLAS / LAPACK /
// FFT / convolution routine name in the kernel's name alone, not on the
// library's own namespace, prefix, suffix or types.
std::string KernelLibrary(const KernelName& k, std::string* reason, bool* by_routine_name = nullptr);

}  // namespace optrace
