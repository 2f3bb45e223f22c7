// The C++/CUDA index: plain records of what ATen's source defines, registers,
// launches and calls, each with file and line, built by cpp_scan (lexer +
// structural pass) over aten/src/ATen and the autograd helper files. The
// tracer only asks questions through CppIndex's lookups; it never reads text.
#pragma once

#include <cstdint>
#include <algorithm>
#include <cstddef>
#include <iosfwd>
#include <iterator>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "base/disk.h"

namespace optrace {

// Forms a definition can take.
enum class DefForm : uint8_t {
  kFunction,                 // an ordinary function definition
  kImplFunc,                 // TORCH_IMPL_FUNC(name)
  kMetaFunc,                 // TORCH_META_FUNC(name) / TORCH_META_FUNC2(name, overload)
  kPrecomputeMetaFunc,       // TORCH_PRECOMPUTE_META_FUNC(2)
  kGlobalKernel,             // __global__ function
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
  uint32_t file = 0;      // index into CppIndex::files()
  uint32_t line = 0;      // line holding the name (or the macro)
  uint32_t body_begin = 0, body_end = 0;  // lines of '{' and '}'
  // A body may sit on one line (`Tensor square(const Tensor& self) { return at::pow(self, 2); }`):
  // then its '{' and '}' share the line.
  bool HasBody() const { return body_begin > 0 && body_end >= body_begin; }
  uint32_t BodyLines() const { return HasBody() ? body_end - body_begin + 1 : 0; }
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
  kTripleChevron,  // kernel<<<grid, block>>>(...)
  kTensorIterator, // gpu_kernel, gpu_kernel_with_scalars, opmath_*_gpu_kernel_with_scalars, gpu_kernel_multiple_outputs
  kReduce,         // gpu_reduce_kernel
  kJiterator,      // jitted_gpu_kernel / opmath_jitted_gpu_kernel_with_scalars
  kLaunchHelper,   // launch_* helpers that take a lambda/functor
};
const char* LaunchKindName(LaunchKind kind);  // "<<<>>>", "gpu_kernel", "gpu_reduce_kernel", "jiterator", "launch"

struct CppLaunch {
  LaunchKind kind;
  // Set by CppIndex::Finish when it filled `kernel` from a constant the scan
  // of this file did not see (defined in another file); RecordsOf undoes it.
  bool kernel_from_index = false;
  std::string launcher;   // "gpu_kernel", "gpu_reduce_kernel", "jitted_gpu_kernel"; for <<<>>>: ""
  std::string kernel;     // <<<>>>: the launched kernel's name ("softmax_warp_forward");
                          // jiterator: the kernel string ("abs_kernel"); else ""
  std::vector<std::string> functors;  // type names constructed in the arguments or template
                                      // arguments: "MulFunctor", "sum_functor", "MeanOps", "func_wrapper"
  int32_t function = -1;  // enclosing CppFunction index, -1 when in a macro body
  std::string macro;      // enclosing #define name when written inside one
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
  int32_t function = -1;     // enclosing CppFunction index, -1 when in a macro body
  std::string macro;         // enclosing #define when written inside one
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
  bool operator==(const CppFileRecords&) const = default;
};

// How many records of each kind (for sizing an index before merging files).
struct CppRecordCounts {
  size_t files = 0, functions = 0, stub_decls = 0, registrations = 0, launches = 0, calls = 0, macros = 0,
         macro_uses = 0, library_registrations = 0, dtype_dispatches = 0, stub_refs = 0;
  void Add(const CppFileRecords& records);  // one more file
  void Add(const CppRecordCounts& counts, int sign);  // sign +1 or -1
  bool operator==(const CppRecordCounts&) const = default;
};

// Scans one C++/CUDA source text. `path` is used for the device of plain
// REGISTER_DISPATCH (cuda/ -> CUDA, cpu/ -> CPU, ...). Never throws or crashes
// on any input.
CppFileRecords ScanCppFile(std::string_view path, std::string_view text);

// Whether a checkout path is in the C++ index's scope.
bool InCppScope(std::string_view path);

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

  const T& operator[](size_t id) const {
    return id < base_->size() ? (*base_)[id] : (*layer_)[id - base_->size()];
  }
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

class CppIndex;
// One line per record kind: files, functions, stubs, registrations, kernels,
// launches, calls, macros, library registrations, dtype dispatches, skipped
// (for `optrace info --index`).
void PrintCppIndexCounts(const CppIndex& index, std::ostream& out);

class CppIndex {
 public:
  // Scans every in-scope file of `disk` (in parallel with `threads` workers; 0 = all cores).
  static CppIndex Build(const Disk& disk, unsigned threads = 0);
  // Merges per-file records (in file order) into an index: the file gets the
  // next file id (skipped files get none). Used by Build and by the store.
  // The rvalue form moves the records' strings, the other copies them.
  void AddFile(std::string path, CppFileRecords&& records);
  void AddFile(std::string path, const CppFileRecords& records);
  void AddSkipped(std::string path, std::string reason) { skipped_.push_back({std::move(path), std::move(reason)}); }
  // Sizes the record vectors for `total` records, so that AddFile never
  // regrows them: regrowing copies, and in a store arena it leaves the old
  // buffers in the image as dead bytes.
  void Reserve(const CppRecordCounts& total);
  // Builds the lookup tables; call once after the last AddFile. It sets aside
  // macro uses and stub references that name no indexed macro / declared stub
  // (the lists below omit them) and fills jiterator kernels from other files'
  // constants, all reversibly: see RecordsOf.
  void Finish();

  // The records of file `id` exactly as ScanCppFile produced them (file-local
  // ids, every record Finish set aside, nothing Finish filled in), so that the
  // store can rebuild an index after a partial update without keeping a raw
  // copy of every file's records. Empty for an unknown id.
  CppFileRecords RecordsOf(uint32_t id) const;
  // The records of every file as scanned: the sum of RecordsOf's sizes.
  CppRecordCounts Counts() const;

  // Layers. After an edit to a few files, the store does not rebuild the
  // whole index: it builds a small layer holding those files' new records
  // (under their ids here) and puts it over the index it has (SetLayer).
  // Every accessor and lookup then answers exactly as an index built from
  // the edited tree would, provided each replaced file's cross-file facts
  // did not change (SameCrossFileFacts: they decide what Finish sets aside
  // and fills in in *other* files) and no file was added or removed.
  //
  // Building one, into an empty index: BeginLayer, AddLayerFile for each
  // replaced file in increasing id order, FinishLayer.
  void BeginLayer(const CppIndex& base);
  void AddLayerFile(uint32_t id, std::string path, const CppFileRecords& records);
  void FinishLayer(const CppIndex& base);
  // Puts `layer` (built over an index with this one's records; it must
  // outlive this index) over this index. False, changing nothing, when it was
  // built over an index of another shape.
  bool SetLayer(const CppIndex* layer);
  // Whether the layer replaces file `id`'s records.
  bool Replaced(uint32_t id) const { return layer_ && layer_->Replaces(id); }
  // In a layer: whether it replaces file `id` of its base.
  bool Replaces(uint32_t id) const { return id < replaces_.size() && replaces_[id]; }
  // Whether two scans of one file agree on everything Finish looks at across
  // files: the function-like macros defined, the stubs declared, the string
  // constants.
  static bool SameCrossFileFacts(const CppFileRecords& a, const CppFileRecords& b);

  const std::vector<std::string>& files() const { return files_; }
  const std::string& file(uint32_t id) const { return files_[id]; }
  RecordList<CppFunction> functions() const { return List(&CppIndex::functions_, hidden_.functions); }
  RecordList<StubDecl> stub_decls() const { return List(&CppIndex::stub_decls_, hidden_.stub_decls); }
  RecordList<StubRegistration> registrations() const {
    return List(&CppIndex::registrations_, hidden_.registrations);
  }
  RecordList<CppLaunch> launches() const { return List(&CppIndex::launches_, hidden_.launches); }
  RecordList<CppCall> calls() const { return List(&CppIndex::calls_, hidden_.calls); }
  RecordList<CppMacro> macros() const { return List(&CppIndex::macros_, hidden_.macros); }
  RecordList<CppMacroUse> macro_uses() const { return List(&CppIndex::macro_uses_, hidden_.macro_uses); }
  RecordList<LibraryRegistration> library_registrations() const {
    return List(&CppIndex::library_registrations_, hidden_.library_registrations);
  }
  RecordList<DtypeDispatch> dtype_dispatches() const {
    return List(&CppIndex::dtype_dispatches_, hidden_.dtype_dispatches);
  }
  RecordList<CppStubRef> stub_refs() const { return List(&CppIndex::stub_refs_, hidden_.stub_refs); }
  const std::vector<CppSkipped>& skipped() const { return skipped_; }

  // Lookups return indices into the vectors above, in file/line order.
  std::vector<uint32_t> FunctionsNamed(std::string_view name) const;    // by unqualified name (any form)
  std::vector<uint32_t> StubDeclsNamed(std::string_view stub) const;
  // The registrations whose stub is written exactly `written` ("cpublas::copy_stub"):
  // RegistrationsOf of its last component, filtered.
  std::vector<uint32_t> RegistrationsWritten(std::string_view written) const;
  std::vector<uint32_t> RegistrationsOf(std::string_view stub) const;
  std::vector<uint32_t> LaunchesIn(uint32_t function) const;
  std::vector<uint32_t> LaunchesInMacro(std::string_view macro) const;
  std::vector<uint32_t> LaunchesOfKernel(std::string_view kernel) const;  // <<<>>> of that __global__
  std::vector<uint32_t> CallsIn(uint32_t function) const;
  std::vector<uint32_t> CallsInMacro(std::string_view macro) const;
  std::vector<uint32_t> CallersOf(std::string_view name) const;  // calls whose callee is `name`
  std::vector<uint32_t> MacrosNamed(std::string_view name) const;
  std::vector<uint32_t> MacroUsesIn(uint32_t function) const;
  std::vector<uint32_t> MacroUsesOf(std::string_view macro) const;  // every use naming `macro`
  // References to declared stubs written on lines [first_line, last_line] of `file`, in line order.
  std::vector<uint32_t> StubReferencesIn(uint32_t file, uint32_t first_line, uint32_t last_line) const;
  std::vector<uint32_t> DtypeDispatchesIn(uint32_t function) const;
  std::vector<uint32_t> LibraryRegistrationsOf(std::string_view function) const;
  // jiterator: `constexpr char abs_name[] = "abs_kernel";` -> "abs_kernel" (file-local first).
  const std::string* StringConstant(uint32_t file, std::string_view name) const;
  // The function whose body holds (file, line), or -1.
  int32_t FunctionAt(uint32_t file, uint32_t line) const;

 private:
  template <typename Records>
  void Append(uint32_t file, std::string path, Records& records);
  template <typename T>
  RecordList<T> List(std::vector<T> CppIndex::*records, size_t hidden) const {
    if (!layer_) return RecordList<T>(this->*records, nullptr, nullptr, 0);
    return RecordList<T>(this->*records, &(layer_->*records), &layer_->replaces_, hidden);
  }
  // Lookup `find` answered by this index and its layer: the replaced files'
  // records dropped from this index's answer, the layer's added (ids moved
  // past this index's), all in file order.
  using NameTable = std::unordered_multimap<std::string, uint32_t>;
  template <typename T>
  std::vector<uint32_t> ByName(std::vector<T> CppIndex::*records, NameTable CppIndex::*table,
                               std::string_view key) const;
  template <typename T, typename Find>
  std::vector<uint32_t> Across(std::vector<T> CppIndex::*records, Find find) const;
  // A lookup by function id: a function of the layer is answered by the layer.
  template <typename T>
  std::vector<uint32_t> ByFunction(std::vector<T> CppIndex::*records,
                                   std::unordered_multimap<uint32_t, uint32_t> CppIndex::*table,
                                   uint32_t function) const;
  static const std::string* FindStringConstant(const CppIndex& base, const CppIndex* layer, uint32_t file,
                                               std::string_view name);
  // Finish; a layer is finished knowing its base (`base`, else null).
  void FinishOver(const CppIndex* base);

  std::vector<std::string> files_;
  std::vector<CppFunction> functions_;
  std::vector<StubDecl> stub_decls_;
  std::vector<StubRegistration> registrations_;
  std::vector<CppLaunch> launches_;
  std::vector<CppCall> calls_;
  std::vector<CppMacro> macros_;
  std::vector<CppMacroUse> macro_uses_;  // after Finish: only uses of indexed function-like macros
  std::vector<LibraryRegistration> library_registrations_;
  std::vector<DtypeDispatch> dtype_dispatches_;
  std::vector<CppStubRef> stub_refs_;  // sorted by (file, line); after Finish: only declared stubs
  // What Finish set aside, each with its index in its file's scanned list.
  // Every record vector is grouped by file in file order (AddFile appends),
  // which RecordsOf relies on to find a file's records by binary search.
  std::vector<std::pair<uint32_t, CppMacroUse>> set_aside_macro_uses_;
  std::vector<std::pair<uint32_t, CppStubRef>> set_aside_stub_refs_;
  std::vector<CppSkipped> skipped_;
  std::vector<std::vector<std::pair<std::string, std::string>>> string_constants_;  // per file
  // lookup tables (built by Finish)
  std::unordered_multimap<std::string, uint32_t> functions_by_name_, stub_decls_by_name_, registrations_by_stub_,
      launches_by_kernel_, launches_by_macro_, calls_by_callee_, calls_by_macro_, macros_by_name_,
      macro_uses_by_macro_, library_regs_by_function_;
  std::unordered_multimap<uint32_t, uint32_t> launches_by_function_, calls_by_function_, macro_uses_by_function_,
      dtype_by_function_;
  std::vector<std::vector<uint32_t>> functions_by_file_;  // sorted by body_begin
  // The base's side of a layer: the layer, and how many of the base's
  // (kept) records of each kind belong to the files it replaces.
  const CppIndex* layer_ = nullptr;
  CppRecordCounts hidden_;
  size_t hidden_set_aside_macro_uses_ = 0, hidden_set_aside_stub_refs_ = 0;
  // The layer's side: per base file id, 1 for the files it holds (files_ and
  // string_constants_ are sized like the base's; records carry base file
  // ids), and the base's function count (its functions' ids start there).
  std::vector<uint8_t> replaces_;
  uint32_t function_base_ = 0;
};

}  // namespace optrace
