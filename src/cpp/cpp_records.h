// The records of the C++/CUDA index, one struct per kind of fact (a
// definition, a dispatch stub, a registration, a launch, a call, a macro,
// ...), each with file and line: what cpp_scan produces per file
// (CppFileRecords) and what an index holds (CppTables), and RecordList, the
// view of one kind of record through an index and its layer.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

namespace optrace {

// Forms a definition can take.
enum class DefForm : uint8_t {
  kFunction,            // an ordinary function definition
  kImplFunc,            // TORCH_IMPL_FUNC(name)
  kMetaFunc,            // TORCH_META_FUNC(name) / TORCH_META_FUNC2(name, overload)
  kPrecomputeMetaFunc,  // TORCH_PRECOMPUTE_META_FUNC(2)
  kGlobalKernel,        // __global__ function
};
const char* DefFormName(DefForm form);  // "function", "TORCH_IMPL_FUNC", ...

struct CppFunction {
  std::string name;       // unqualified: "softmax_cuda_out", "operator()"
  std::string qualified;  // with enclosing namespaces/classes: "at::native::softmax_cuda_out"
  std::string overload;   // TORCH_META_FUNC2's second argument, else ""
  std::string params;     // parameter list text without parentheses, whitespace-collapsed
  std::string return_type;
  bool is_template = false;
  DefForm form = DefForm::kFunction;
  uint32_t file = 0;                      // index into CppIndex::files()
  uint32_t line = 0;                      // line holding the name (or the macro)
  uint32_t body_begin = 0, body_end = 0;  // lines of '{' and '}'
  // A body may sit on one line (`Tensor square(const Tensor& self) { return at::pow(self, 2); }`):
  // then its '{' and '}' share the line.
  bool HasBody() const { return body_begin > 0 && body_end >= body_begin; }
  uint32_t BodyLines() const { return HasBody() ? body_end - body_begin + 1 : 0; }
  // Defined by a use of a macro of its file (ONE_HIDDEN_RNN(gru, ...)): named
  // at the use, its body in the #define above, which every use shares.
  bool WrittenByMacroUse() const { return HasBody() && line > body_end; }
  bool operator==(const CppFunction&) const = default;
};

enum class StubDeclKind : uint8_t { kDeclare, kDefine };
struct StubDecl {
  StubDeclKind kind;
  std::string stub;  // "lstm_cudnn_stub"
  std::string type;  // DECLARE_DISPATCH's first argument, "" for DEFINE
  uint32_t file = 0, line = 0;
  // The namespaces around it past at::native, as a REGISTER_DISPATCH outside
  // them qualifies the stub: "cpublas::" for CPUBlas.h's copy_stub, "" for
  // Copy.h's. Two stubs of one name are told apart by it.
  std::string scope;
  bool operator==(const StubDecl&) const = default;
};

struct StubRegistration {
  std::string macro;   // "REGISTER_DISPATCH", "REGISTER_CUDA_DISPATCH", ...
  std::string stub;    // as written: "lstm_cudnn_stub", "cpublas::gemm_stub"; RegistrationsOf finds it under the
                       // declared name (the last component), StubRegistrationsOf under the written one
  std::string target;  // registered function, '&' and namespaces as written stripped of '&': "lstm_cudnn"
  std::string device;  // "CPU", "CUDA", "HIP", "MPS", "XPU", "MTIA", "PrivateUse1", "none" (REGISTER_NO_CPU_DISPATCH),
                       // "unknown" (plain REGISTER_DISPATCH in a file no build compiles it in)
  uint32_t file = 0, line = 0;
  // Added by cpp_scan: the CPU capability for CPU registrations ("DEFAULT", "AVX2", "AVX512", "ALL" for
  // REGISTER_ALL_CPU_DISPATCH / REGISTER_NO_CPU_DISPATCH, "CPU_CAPABILITY"), "" for plain REGISTER_DISPATCH
  // (every capability) and non-CPU devices; and the target as written minus '&' ("at::native::lstm_cudnn").
  std::string arch;
  std::string target_written;
  bool operator==(const StubRegistration&) const = default;
};

enum class LaunchKind : uint8_t {
  kTripleChevron,   // kernel<<<grid, block>>>(...)
  kTensorIterator,  // gpu_kernel, gpu_kernel_with_scalars, opmath_*_gpu_kernel_with_scalars,
                    // gpu_kernel_multiple_outputs
  kReduce,          // gpu_reduce_kernel
  kJiterator,       // jitted_gpu_kernel / opmath_jitted_gpu_kernel_with_scalars
  kLaunchHelper,    // launch_* helpers that take a lambda/functor
};
const char* LaunchKindName(LaunchKind kind);  // "<<<>>>", "gpu_kernel", "gpu_reduce_kernel", "jiterator", "launch"

struct CppLaunch {
  LaunchKind kind;
  // Set by CppIndexWriter::Finish when it filled `kernel` from a constant the scan
  // of this file did not see (defined in another file); RecordsOf undoes it.
  bool kernel_from_index = false;
  std::string launcher;               // "gpu_kernel", "gpu_reduce_kernel", "jitted_gpu_kernel"; for <<<>>>: ""
  std::string kernel;                 // <<<>>>: the launched kernel's name ("softmax_warp_forward");
                                      // jiterator: the kernel string ("abs_kernel"); else ""
  std::vector<std::string> functors;  // type names constructed in the arguments or template
                                      // arguments: "MulFunctor", "sum_functor", "MeanOps", "func_wrapper"
  int32_t function = -1;              // enclosing CppFunction index, -1 when in a macro body
  std::string macro;                  // enclosing #define name when written inside one
  uint32_t file = 0, line = 0;
  // Added: jiterator's first template argument as written ("abs_name"); `kernel` is its string value
  // when the constant is found (same file at scan time, else a unique one in the index at Finish).
  std::string kernel_name_ref;
  bool operator==(const CppLaunch&) const = default;
};

enum class CallKind : uint8_t {
  kPlain,      // x(...), x<T>(...)
  kQualified,  // at::x(...), at::native::x(...), at::_ops::x::call(...), cub::x(...)
  kMember,     // obj.x(...), obj->x(...)
  kFunctor,    // Type<...>{}(...) / Type(...)(...)
};
struct CppCall {
  std::string callee;     // last component: "x"  (for at::_ops::x::call: "x")
  std::string qualifier;  // everything before it as written: "at::", "at::native::", "at::_ops::", "self." ...
  CallKind kind = CallKind::kPlain;
  bool is_ops_call = false;  // at::_ops::x::call / ::redispatch
  // Its first argument is a host execution policy (`thrust::host`,
  // `thrust::seq`), or it is written in the arguments of such a call
  // (`thrust::greater<int64_t>()`): Thrust run on the CPU, no device library.
  bool host_policy = false;
  int32_t function = -1;  // enclosing CppFunction index, -1 when in a macro body
  std::string macro;      // enclosing #define when written inside one
  uint32_t file = 0, line = 0;
  bool operator==(const CppCall&) const = default;
};

struct CppMacro {
  std::string name;
  uint32_t file = 0, line = 0;  // line of #define
  uint32_t end_line = 0;        // last line of the (continued) body
  bool function_like = false;   // added: #define NAME(...)
  bool operator==(const CppMacro&) const = default;
};

// A use of a function-like macro defined in the index, e.g. a LAUNCH_SOFTMAX_WARP_FORWARD(...)
// call inside a function body: lets the tracer follow function -> macro -> launch.
// Three places: a function body (function >= 0), a #define body (within_macro set), or
// outside every function body -- file scope -- for macros #defined in the same file
// (function == -1, within_macro ""): CREATE_UNARY_TORCH_IMPL_FUNC(sigmoid_out, sigmoid_stub).
struct CppMacroUse {
  std::string macro;
  int32_t function = -1;
  uint32_t file = 0, line = 0;
  std::string within_macro;  // added: the #define whose body holds the use (function == -1), else ""
  std::string first_arg;     // file-scope uses only: the first argument as written ("sigmoid_out")
  bool operator==(const CppMacroUse&) const = default;
};

// A dispatch stub named without being called: passed as an argument
// (impl_func_cum_ops(self, dim, result, cumsum_stub)), its address taken
// (&max_pool2d_stub), or an argument of a file-scope macro use. An identifier
// token ending in "_stub" not followed by '(' (comments and strings are not
// tokens); CppIndex keeps only names of declared stubs.
struct CppStubRef {
  std::string stub;
  uint32_t file = 0, line = 0;
  bool operator==(const CppStubRef&) const = default;
};

// TORCH_LIBRARY / TORCH_LIBRARY_IMPL / TORCH_LIBRARY_FRAGMENT registrations.
struct LibraryRegistration {
  std::string block;     // "TORCH_LIBRARY_IMPL"
  std::string ns;        // "aten"
  std::string key;       // dispatch key of the block: "CUDA", "CompositeImplicitAutograd"; "" for TORCH_LIBRARY
  std::string op;        // "add.Tensor" (the string as written, without a "aten::" prefix)
  std::string function;  // the C++ function registered (TORCH_FN(f) -> "f"), "" for m.def
  bool is_def = false;
  uint32_t file = 0, line = 0;
  std::string schema;         // added: m.def's whole schema string (op is its name part)
  std::string function_text;  // added: the registered expression as written ("TORCH_FN(at::native::f)")
  bool operator==(const LibraryRegistration&) const = default;
};

// AT_DISPATCH_* macro uses: the dtypes an implementation supports.
struct DtypeDispatch {
  std::string macro;                // "AT_DISPATCH_FLOATING_TYPES_AND2"
  std::vector<std::string> dtypes;  // expanded: {"float", "double", "Half", "BFloat16"}
  std::string name;                 // the string-literal name argument, e.g. "softmax_cuda"
  int32_t function = -1;
  uint32_t file = 0, line = 0;
  std::string macro_body;  // added: the #define holding the use (function == -1), else ""
  bool operator==(const DtypeDispatch&) const = default;
};

// A member of an enum definition (`enum class EmbeddingBagMode { SUM = 0,
// MEAN = 1, MAX = 2 };`, `enum Reduction { None, Mean, Sum, END };`): its
// enum's own name (no enclosing namespace or class), its name and its
// integer value -- a literal `= N` (decimal, hex, octal, negative) or, with
// none, the previous member's plus one (the first 0). A value written as
// anything else (`= kMax + 1`, `= 1 << 3`, `= OTHER`) is unknown, and so
// is every member after it that writes no literal.
struct CppEnumMember {
  std::string enum_name;  // "EmbeddingBagMode"; "" for an unnamed enum
  std::string member;     // "MAX"
  int64_t value = 0;      // meaningful only when `known`
  bool known = false;
  bool scoped = false;  // of an `enum class`: never named bare
  uint32_t line = 0;    // the member's line
  bool operator==(const CppEnumMember&) const = default;
};

// A file that was not indexed, and why.
struct CppSkipped {
  std::string path;
  std::string reason;
};

// Scan output for one file; merged into CppIndex. Indices in records are
// file-local (file = 0, function = index into `functions`) until merged.
struct CppFileRecords {
  std::vector<CppFunction> functions;
  std::vector<StubDecl> stub_decls;
  std::vector<StubRegistration> registrations;
  std::vector<CppLaunch> launches;
  std::vector<CppCall> calls;
  std::vector<CppMacro> macros;
  std::vector<CppMacroUse> macro_uses;
  std::vector<LibraryRegistration> library_registrations;
  std::vector<DtypeDispatch> dtype_dispatches;
  std::vector<CppStubRef> stub_refs;  // in line order, anywhere in the file
  // constexpr char name[] = "string"; (jiterator kernel names)
  std::vector<std::pair<std::string, std::string>> string_constants;
  std::vector<CppEnumMember> enum_members;  // every enum's, in line order (cpp/enum_members.h)
  bool operator==(const CppFileRecords&) const = default;
};

// How many records of each kind (for sizing an index before merging files).
struct CppRecordCounts {
  size_t files = 0, functions = 0, stub_decls = 0, registrations = 0, launches = 0, calls = 0, macros = 0,
         macro_uses = 0, library_registrations = 0, dtype_dispatches = 0, stub_refs = 0;
  void Add(const CppFileRecords& records);            // one more file
  void Add(const CppRecordCounts& counts, int sign);  // sign +1 or -1
  bool operator==(const CppRecordCounts&) const = default;
};

// The records of one kind as an index's readers see them: the index's own
// vector, or -- for an index with a layer over it (CppIndex::SetLayer) --
// the base's records minus those of the files the layer replaces, plus the
// layer's. Ids: the base's records keep theirs, the layer's follow them
// (base size + i), so an id never changes meaning while the layer is on.
// Iteration visits the live records in file order, as in an index built in
// one go; size() counts them. Loop over ids with begin()/end() and id(),
// never with 0..size().
template <typename T>
class RecordList {
 public:
  RecordList(const std::vector<T>& base, const std::vector<T>* layer, const std::vector<uint8_t>* replaced,
             size_t hidden)
      : base_(&base), layer_(layer), replaced_(replaced), hidden_(hidden) {}

  class iterator {
   public:
    using value_type = T;
    using reference = const T&;
    using difference_type = std::ptrdiff_t;
    using iterator_category = std::forward_iterator_tag;
    iterator() = default;
    const T& operator*() const { return on_layer_ ? (*layer_)[t_] : (*base_)[b_]; }
    const T* operator->() const { return &**this; }
    uint32_t id() const { return static_cast<uint32_t>(on_layer_ ? base_->size() + t_ : b_); }
    iterator& operator++() {
      (on_layer_ ? t_ : b_)++;
      Settle();
      return *this;
    }
    iterator operator++(int) {
      iterator old = *this;
      ++*this;
      return old;
    }
    bool operator==(const iterator& o) const { return b_ == o.b_ && t_ == o.t_; }

   private:
    friend class RecordList;
    iterator(const RecordList& list, size_t b, size_t t)
        : base_(list.base_), layer_(list.layer_), replaced_(list.replaced_), b_(b), t_(t) {
      Settle();
    }
    // Skips replaced base records and picks the side whose file comes first.
    void Settle() {
      if (replaced_)
        while (b_ < base_->size() && (*replaced_)[(*base_)[b_].file]) ++b_;
      on_layer_ = layer_ && t_ < layer_->size() && (b_ == base_->size() || (*layer_)[t_].file < (*base_)[b_].file);
    }
    const std::vector<T>* base_ = nullptr;
    const std::vector<T>* layer_ = nullptr;
    const std::vector<uint8_t>* replaced_ = nullptr;
    size_t b_ = 0, t_ = 0;
    bool on_layer_ = false;
  };

  const T& operator[](size_t id) const { return id < base_->size() ? (*base_)[id] : (*layer_)[id - base_->size()]; }
  size_t size() const { return base_->size() - hidden_ + (layer_ ? layer_->size() : 0); }
  // One past the largest id.
  size_t id_end() const { return base_->size() + (layer_ ? layer_->size() : 0); }
  // The same records in the same order (ids may differ).
  friend bool operator==(const RecordList& a, const RecordList& b) {
    return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin());
  }
  iterator begin() const { return iterator(*this, 0, 0); }
  iterator end() const { return iterator(*this, base_->size(), layer_ ? layer_->size() : 0); }

 private:
  const std::vector<T>* base_;
  const std::vector<T>* layer_;
  const std::vector<uint8_t>* replaced_;  // per base file id: 1 when the layer holds its records
  size_t hidden_;                         // base records of replaced files
};

// The records of one index (or one layer) grouped by file in file order,
// and the lookup tables over them: plain data, written by CppIndexWriter
// (cpp_index_writer.h), read through CppRecordView and CppIndex.
struct CppTables {
  using NameTable = std::unordered_multimap<std::string, uint32_t>;
  using IdTable = std::unordered_multimap<uint32_t, uint32_t>;

  std::vector<std::string> files;
  std::vector<CppFunction> functions;
  std::vector<StubDecl> stub_decls;
  std::vector<StubRegistration> registrations;
  std::vector<CppLaunch> launches;
  std::vector<CppCall> calls;
  std::vector<CppMacro> macros;
  std::vector<CppMacroUse> macro_uses;  // after Finish: only uses of indexed function-like macros
  std::vector<LibraryRegistration> library_registrations;
  std::vector<DtypeDispatch> dtype_dispatches;
  std::vector<CppStubRef> stub_refs;  // sorted by (file, line); after Finish: only declared stubs
  // What Finish set aside, each with its index in its file's scanned list.
  // Every record vector is grouped by file in file order (AddFile appends),
  // which RecordsOf relies on to find a file's records by binary search.
  std::vector<std::pair<uint32_t, CppMacroUse>> set_aside_macro_uses;
  std::vector<std::pair<uint32_t, CppStubRef>> set_aside_stub_refs;
  std::vector<CppSkipped> skipped;
  std::vector<std::vector<std::pair<std::string, std::string>>> string_constants;  // per file
  std::vector<std::vector<CppEnumMember>> enum_members;                            // per file
  // lookup tables (built by Finish)
  NameTable functions_by_name, stub_decls_by_name, registrations_by_stub, launches_by_kernel, launches_by_macro,
      calls_by_callee, calls_by_macro, macros_by_name, macro_uses_by_macro, library_regs_by_function;
  IdTable launches_by_function, calls_by_function, macro_uses_by_function, dtype_by_function;
  std::vector<std::vector<uint32_t>> functions_by_file;  // sorted by body_begin
  // A layer's: per base file id, 1 for the files it holds (files and
  // string_constants and enum_members are sized like the base's; records carry base file
  // ids), and the base's function count (its functions' ids start there).
  std::vector<uint8_t> replaces;
  uint32_t function_base = 0;
};

// A string constant (jiterator: `constexpr char abs_name[] = "abs_kernel";`
// -> "abs_kernel"): file `file`'s own first, else the one value the index
// holds (null when none, or several differ); each file a layer over `base`
// replaces is read from the layer.
const std::string* FindStringConstant(const CppTables& base, const CppTables* layer, uint32_t file,
                                      std::string_view name);

}  // namespace optrace
