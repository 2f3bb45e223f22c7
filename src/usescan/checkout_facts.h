// CheckoutFacts: the checkout's answers about the names a user's file uses
// (nn.Module classes, Tensor methods, metadata accessors, the aten op behind
// a Python function, a layer's scalar attributes), remembered per name.
#pragma once

#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "index/index.h"
#include "py/py_values.h"

namespace optrace {

class CheckoutFacts {
 public:
  explicit CheckoutFacts(const Index& ix) : ix_(ix) {}
  CheckoutFacts(const CheckoutFacts&) = delete;  // facts_ holds this
  CheckoutFacts& operator=(const CheckoutFacts&) = delete;

  const Index& index() const { return ix_; }
  // What a value scope asks of tensors (py/py_values.h).
  const TensorFacts* tensor_facts() const { return &facts_; }
  // The query `optrace trace` takes for nn class `full` written `as_written`.
  static std::string NnQuery(const std::string& full, const std::string& as_written);
  // Tensor attributes that hold no tensor (a shape, a dtype, a flag).
  static bool ScalarAttribute(std::string_view attr);
  // Does checkout class `sym` derive from the class named `target`?
  bool CheckoutInherits(const PySymbol& sym, std::string_view target, int depth = 0) const;
  // A checkout nn.Module class named by `dotted`, or kNone.
  PySymbol NnClass(const std::string& dotted) const;
  // Is `name` a method of Tensor in the checkout (YAML method variant or a
  // def in torch/_tensor.py)?
  bool IsTensorMethod(const std::string& name);
  // The aten op a checkout Python function reaches first: its own name when
  // the YAML has it, else the first call of its body that names a YAML op
  // through torch._C._nn / torch / _VF / torch._C._VariableFunctions.
  std::string AtenBehind(const PySymbol& sym, const std::string& name) const;
  // Tensor methods that only read metadata: every YAML overload returns
  // ints (size, stride). No kernel runs; never an op of the scan.
  bool IsMetadata(const std::string& name);
  // Whether `name` called on a tensor returns no tensor: every YAML overload
  // returns none (size, item, is_floating_point), or it is one of the
  // metadata accessors bound by hand in python_variable_methods.cpp.
  bool ReturnsNoTensor(std::string_view name) const;
  // nn.Module's own API (self.register_buffer, self.parameters): no op.
  bool ModuleApi(const std::string& name) const;
  // The scalar attributes of a checkout layer class (torch.nn.modules.linear.Linear:
  // in_features, out_features), read from its source and its bases': class-level
  // annotations (`in_features: int`) and `self.X = p` in __init__ where p is a
  // parameter annotated int/float/bool/str or with a literal default.
  const std::vector<std::string>& LayerScalarAttrs(const std::string& dotted);

 private:
  void ClassScalarAttrs(const PyModule& m, const PyClass& c, const std::vector<std::string_view>& lines,
                        std::vector<std::string>* attrs) const;

  const Index& ix_;
  std::unordered_map<std::string, std::vector<std::string>> layer_attrs_;  // LayerScalarAttrs, per class
  std::unordered_map<std::string, bool> tensor_method_;
  std::unordered_map<std::string, bool> metadata_;
  TensorFacts facts_{[this](std::string_view m) { return ReturnsNoTensor(m); }, &ScalarAttribute, {}, {}};
};

}  // namespace optrace
