// The dtype vocabulary of ATen's AT_DISPATCH macros: which C++ scalar types
// a dispatch over a ScalarType spelling, a type family (FLOATING_TYPES,
// ALL_TYPES_AND_COMPLEX, ...) or a V2 type list instantiates. ScanCppFile
// records them per dispatch so the trace can say which instantiation of a
// templated kernel a dtype runs.
#include "cpp/dispatch_dtypes.h"

#include <utility>

namespace optrace {

// Maps AT_DISPATCH's ScalarType spellings to the scalar_t they instantiate.
std::string DtypeName(std::string_view s) {
  size_t colon = s.rfind("::");
  if (colon != std::string_view::npos) s = s.substr(colon + 2);
  if (s.size() > 1 && s[0] == 'k' && s[1] >= 'A' && s[1] <= 'Z') s = s.substr(1);
  static const std::pair<std::string_view, std::string_view> kMap[] = {{"Double", "double"},
                                                                       {"Float", "float"},
                                                                       {"Half", "Half"},
                                                                       {"BFloat16", "BFloat16"},
                                                                       {"Byte", "uint8_t"},
                                                                       {"Char", "int8_t"},
                                                                       {"Short", "int16_t"},
                                                                       {"Int", "int"},
                                                                       {"Long", "int64_t"},
                                                                       {"Bool", "bool"},
                                                                       {"ComplexFloat", "c10::complex<float>"},
                                                                       {"ComplexDouble", "c10::complex<double>"},
                                                                       {"ComplexHalf", "c10::complex<Half>"},
                                                                       {"UInt16", "uint16_t"},
                                                                       {"UInt32", "uint32_t"},
                                                                       {"UInt64", "uint64_t"},
                                                                       {"QInt8", "qint8"},
                                                                       {"QUInt8", "quint8"},
                                                                       {"QInt32", "qint32"},
                                                                       {"QUInt4x2", "quint4x2"},
                                                                       {"QUInt2x4", "quint2x4"},
                                                                       {"Float8_e5m2", "Float8_e5m2"},
                                                                       {"Float8_e4m3fn", "Float8_e4m3fn"},
                                                                       {"Float8_e5m2fnuz", "Float8_e5m2fnuz"},
                                                                       {"Float8_e4m3fnuz", "Float8_e4m3fnuz"},
                                                                       {"Bits1x8", "Bits1x8"},
                                                                       {"Bits2x4", "Bits2x4"},
                                                                       {"Bits4x2", "Bits4x2"},
                                                                       {"Bits8", "Bits8"},
                                                                       {"Bits16", "Bits16"}};
  for (const auto& [from, to] : kMap)
    if (s == from) return std::string(to);
  return "";
}

// The dtypes of an AT_DISPATCH family ("FLOATING_TYPES", "ALL_TYPES_AND_COMPLEX", ...).
bool FamilyDtypes(std::string_view family, std::vector<std::string>* out) {
  static const std::vector<std::string> kFloating = {"double", "float"};
  static const std::vector<std::string> kComplex = {"c10::complex<double>", "c10::complex<float>"};
  static const std::vector<std::string> kIntegral = {"uint8_t", "int8_t", "int", "int64_t", "int16_t"};
  auto add = [&](const std::vector<std::string>& v) { out->insert(out->end(), v.begin(), v.end()); };
  if (family == "FLOATING_TYPES") {
    add(kFloating);
  } else if (family == "FLOATING_TYPES_AND_HALF") {
    add(kFloating);
    out->push_back("Half");
  } else if (family == "REDUCED_FLOATING_TYPES") {
    add({"Half", "BFloat16"});
  } else if (family == "COMPLEX_TYPES") {
    add(kComplex);
  } else if (family == "FLOATING_AND_COMPLEX_TYPES") {
    add(kFloating);
    add(kComplex);
  } else if (family == "INTEGRAL_TYPES") {
    add(kIntegral);
  } else if (family == "ALL_TYPES") {
    add(kIntegral);
    add(kFloating);
  } else if (family == "ALL_TYPES_AND_COMPLEX") {
    add(kIntegral);
    add(kFloating);
    add(kComplex);
  } else if (family == "QINT_TYPES") {
    add({"qint8", "quint8", "qint32"});
  } else if (family == "QINT_BYTE_TYPES") {
    add({"qint8", "quint8"});
  } else if (family == "QINT_AND_SUB_BYTE_TYPES") {
    add({"qint8", "quint8", "qint32", "quint4x2", "quint2x4"});
  } else if (family == "BIT_TYPES") {
    add({"Bits1x8", "Bits2x4", "Bits4x2", "Bits8", "Bits16"});
  } else if (family == "INDEX_TYPES") {
    add({"int", "int64_t"});
  } else {
    return false;
  }
  return true;
}

// Dispatch_v2 type-list macros (AT_EXPAND(AT_ALL_TYPES) and friends).
bool V2TypeList(std::string_view name, std::vector<std::string>* out) {
  static const std::pair<std::string_view, std::string_view> kMap[] = {
      {"AT_FLOATING_TYPES", "FLOATING_TYPES"},
      {"AT_COMPLEX_TYPES", "COMPLEX_TYPES"},
      {"AT_INTEGRAL_TYPES", "INTEGRAL_TYPES"},
      {"AT_ALL_TYPES", "ALL_TYPES"},
      {"AT_ALL_TYPES_AND_COMPLEX", "ALL_TYPES_AND_COMPLEX"},
      {"AT_QINT_TYPES", "QINT_TYPES"}};
  for (const auto& [from, to] : kMap)
    if (name == from) return FamilyDtypes(to, out);
  if (name == "AT_INTEGRAL_TYPES_V2") {
    FamilyDtypes("INTEGRAL_TYPES", out);
    out->insert(out->end(), {"uint16_t", "uint32_t", "uint64_t"});
    return true;
  }
  if (name == "AT_BAREBONES_UNSIGNED_TYPES") {
    out->insert(out->end(), {"uint16_t", "uint32_t", "uint64_t"});
    return true;
  }
  if (name == "AT_FLOAT8_TYPES") {
    out->insert(out->end(), {"Float8_e5m2", "Float8_e5m2fnuz", "Float8_e4m3fn", "Float8_e4m3fnuz"});
    return true;
  }
  return false;
}

}  // namespace optrace
