// Query names drawn from the index; see query_names.h.
#include "index/query_names.h"

#include <algorithm>
#include <cctype>
#include <set>

#include "base/text.h"

namespace optrace {

namespace {

// Spellings a query may start with, the namespace each stands for, longest first.
struct Namespace {
  const char* prefix;
  const char* shown;  // how suggestions in it are written
};
constexpr Namespace kNamespaces[] = {
    {"torch.nn.functional.", "F."},
    {"torch.ops.aten.", "aten::"},
    {"torch.Tensor.", "Tensor."},
    {"torch.nn.", "nn."},
    {"nn.functional.", "F."},
    {"aten::", "aten::"},
    {"Tensor.", "Tensor."},
    {"aten.", "aten::"},
    {"torch.", "torch."},
    {"nn.", "nn."},
    {"F.", "F."},
};

// The query without its namespace, and that namespace as suggestions write it ("" for none).
std::pair<std::string, std::string> Split(std::string_view query) {
  for (const Namespace& n : kNamespaces)
    if (StartsWith(query, n.prefix)) return {std::string(query.substr(std::string_view(n.prefix).size())), n.shown};
  return {std::string(query), ""};
}

bool IsPublic(const std::string& name) { return !name.empty() && name[0] != '_'; }

// nn.<Module> and F.<function>: the Python names users write.
void AddPythonNames(const PyIndex& py, std::vector<NearName>* modules, std::vector<NearName>* functional) {
  for (const PyModule& m : py.modules()) {
    if (m.name == "torch.nn.functional") {
      for (const PyFunction& f : m.functions)
        if (!f.is_method && IsPublic(f.name)) functional->push_back({"F." + f.name, f.name});
      for (const PyAlias& a : m.aliases)
        if (IsPublic(a.name)) functional->push_back({"F." + a.name, a.name});
    }
    if (StartsWith(m.name, "torch.nn.modules.")) {
      for (const PyClass& c : m.classes)
        if (IsPublic(c.name)) modules->push_back({"nn." + c.name, c.name});
    }
  }
}

}  // namespace

std::vector<std::string> SuggestQueries(const Index& index, std::string_view query, size_t limit) {
  auto [stem, space] = Split(TrimView(query));
  std::vector<NearName> modules, functional, aten;
  AddPythonNames(index.py, &modules, &functional);
  std::set<std::string> python_spellings;
  for (const auto* list : {&modules, &functional})
    for (const NearName& n : *list) python_spellings.insert(Lower(n.compared));
  std::set<std::string> bases;
  for (const NativeFunction& f : index.yaml.functions()) bases.insert(f.schema.name);
  bool asks_python = space.empty() || space == "nn." || space == "F.";
  for (const std::string& base : bases)
    if (!asks_python || !python_spellings.count(Lower(base))) aten.push_back({"aten::" + base, base});
  // The query's own namespace first: among equally good matches it wins.
  std::vector<const std::vector<NearName>*> order = {&modules, &functional, &aten};
  if (space == "F.") std::swap(order[0], order[1]);
  if (space == "aten::" || space == "torch." || space == "Tensor.") order = {&aten, &functional, &modules};
  std::vector<NearName> candidates;
  for (const auto* list : order) candidates.insert(candidates.end(), list->begin(), list->end());
  std::vector<std::string> near = DidYouMean(stem, candidates, limit + 1);
  std::string asked(TrimView(query));
  near.erase(std::remove(near.begin(), near.end(), asked), near.end());
  if (near.size() > limit) near.resize(limit);
  return near;
}

std::vector<std::string> BareNameMeanings(const Index& index, std::string_view query) {
  std::string name(TrimView(query));
  bool bare = !name.empty() && std::all_of(name.begin(), name.end(), IsIdentChar);
  if (!bare || index.yaml.Overloads(name).empty()) return {};
  std::vector<std::string> python;
  auto defined_in_python = [&](const std::string& dotted) {
    PySymbol s = index.py.Resolve(dotted);
    return s.kind == PySymbol::kFunction || s.kind == PySymbol::kClass;
  };
  if (defined_in_python("torch." + name)) python.push_back("torch." + name);
  if (defined_in_python("torch._tensor.Tensor." + name)) python.push_back("Tensor." + name);
  if (python.empty()) return {};
  python.insert(python.begin(), "aten::" + name);
  return python;
}

}  // namespace optrace
