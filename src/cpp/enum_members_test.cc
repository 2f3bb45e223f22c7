// Enum members and their values: what the scan reads of a definition, and
// what the table over an index answers for a name (hermetic: MemoryDisk
// trees), then the two enums of the real 2.6.0 tree a loss's and
// embedding_bag's conditions compare with.
#include "cpp/enum_members.h"

#include <gtest/gtest.h>

#include "cpp/cpp_index.h"
#include "cpp/cpp_index_writer.h"
#include "testing/test_util.h"

namespace optrace {
namespace {

// "Enum::member=value" (or "=?" when unknown) for each member, in order.
std::vector<std::string> Spelled(const std::vector<CppEnumMember>& members) {
  std::vector<std::string> out;
  for (const CppEnumMember& m : members)
    out.push_back(m.enum_name + "::" + m.member + "=" + (m.known ? std::to_string(m.value) : "?"));
  return out;
}

std::vector<CppEnumMember> Scanned(const std::string& text) {
  return ScanCppFile("aten/src/ATen/native/Modes.h", text).enum_members;
}

TEST(EnumMembers, ExplicitImplicitNegativeAndHexValues) {
  const auto members = Scanned(
      "namespace at::native {\n"
      "enum class BagMode {\n"
      "  SUM = 0,\n"
      "  MEAN = 1,\n"
      "  MAX = 2,\n"
      "};\n"
      "enum Reduce { None, Mean, Sum, END };\n"
      "enum struct Wide : int64_t { Low = -3, Next, High = 0x10, After, Bits = 0b101, Sep = 1'000u };\n"
      "enum Mode m = Mode::kOne;  // no definition\n"
      "enum class Fwd : int;      // no definition\n"
      "}\n");
  EXPECT_EQ(Spelled(members), (std::vector<std::string>{
                                  "BagMode::SUM=0", "BagMode::MEAN=1", "BagMode::MAX=2", "Reduce::None=0",
                                  "Reduce::Mean=1", "Reduce::Sum=2", "Reduce::END=3", "Wide::Low=-3", "Wide::Next=-2",
                                  "Wide::High=16", "Wide::After=17", "Wide::Bits=5", "Wide::Sep=1000"}));
  ASSERT_EQ(members.size(), 13u);
  EXPECT_TRUE(members[0].scoped);
  EXPECT_FALSE(members[3].scoped);
  EXPECT_EQ(members[2].line, 5u);  // MAX
  EXPECT_EQ(members[5].line, 7u);  // Sum
}

TEST(EnumMembers, AnUnreadableValueMakesItAndLaterImplicitMembersUnknown) {
  const auto members = Scanned(
      "enum Flags {\n"
      "  A = 1,\n"
      "  B = A << 1,\n"
      "  C,\n"
      "  D = 7,\n"
      "  E,\n"
      "  F = kMax + 1,\n"
      "  G = 'x',\n"
      "  MAKE_MEMBER(H),\n"
      "  I,\n"
      "#ifdef EXTRA\n"
      "  J = 20,\n"  // explicit: known whether or not the build keeps it
      "#endif\n"
      "  K,\n"  // J's + 1 or I's + 1
      "  L = 3.5,\n"
      "};\n"
      "enum Guarded {\n"
      "  P,\n"
      "#if defined(X)\n"
      "  Q,\n"
      "#endif\n"
      "  R,\n"
      "};\n");
  EXPECT_EQ(Spelled(members),
            (std::vector<std::string>{"Flags::A=1", "Flags::B=?", "Flags::C=?", "Flags::D=7", "Flags::E=8",
                                      "Flags::F=?", "Flags::G=?", "Flags::MAKE_MEMBER=?", "Flags::I=?", "Flags::J=20",
                                      "Flags::K=?", "Flags::L=?", "Guarded::P=0", "Guarded::Q=?", "Guarded::R=?"}));
}

TEST(EnumMembers, IntegerLiterals) {
  EXPECT_EQ(IntegerLiteral("0"), 0);
  EXPECT_EQ(IntegerLiteral("42"), 42);
  EXPECT_EQ(IntegerLiteral("0x1F"), 31);
  EXPECT_EQ(IntegerLiteral("010"), 8);
  EXPECT_EQ(IntegerLiteral("0b11"), 3);
  EXPECT_EQ(IntegerLiteral("4LL"), 4);
  EXPECT_EQ(IntegerLiteral("1'024"), 1024);
  EXPECT_EQ(IntegerLiteral("1.0"), std::nullopt);
  EXPECT_EQ(IntegerLiteral("1e3"), std::nullopt);
  EXPECT_EQ(IntegerLiteral("09"), std::nullopt);
  EXPECT_EQ(IntegerLiteral("99999999999999999999"), std::nullopt);
  EXPECT_EQ(IntegerLiteral("kMax"), std::nullopt);
}

// Two headers of a tree: enums nested in namespaces and a class, a namesake
// that agrees, one that disagrees.
MemoryDisk EnumTree() {
  MemoryDisk disk;
  disk.Add("aten/src/ATen/native/Bag.h",
           "namespace at::native {\n"
           "enum class BagMode { SUM = 0, MEAN = 1, MAX = 2 };\n"
           "struct Holder { enum Kind { kOne = 1, kTwo }; };\n"
           "enum Clash { Same = 5, Differs = 1 };\n"
           "}\n");
  disk.Add("aten/src/ATen/core/Reduce.h",
           "namespace at { namespace Reduce {\n"
           "enum Reduce { None, Mean, Sum, END };\n"
           "} }\n"
           "namespace other { enum Clash { Same = 5, Differs = 2 }; enum class Scoped { Mean = 7 }; }\n");
  return disk;
}

TEST(EnumValues, ANameIsDecidedWhereEveryNamesakeSaysOneValue) {
  const CppIndex index = CppIndex::Build(EnumTree(), 1);
  const EnumValues values(index);
  EXPECT_EQ(values.Value("BagMode::MAX"), 2);
  EXPECT_EQ(values.Value("at::native::BagMode::SUM"), 0);
  EXPECT_EQ(values.Value("Reduce::Mean"), 1);
  EXPECT_EQ(values.Value("at::Reduce::END"), 3);
  EXPECT_EQ(values.Value("Holder::Kind::kTwo"), 2);
  EXPECT_EQ(values.Value("Kind::kOne"), 1);
  // Bare, or behind namespaces alone: a member of an unscoped enum.
  EXPECT_EQ(values.Value("kTwo"), 2);
  EXPECT_EQ(values.Value("Sum"), 2);
  EXPECT_EQ(values.Value("at::Sum"), 2);
  EXPECT_EQ(values.Value("MAX"), std::nullopt);  // BagMode's is scoped
  // Mean: Reduce's 1, or Scoped's 7 -- a bare name may be meant as either.
  EXPECT_EQ(values.Value("Mean"), std::nullopt);
  EXPECT_EQ(values.Value("Scoped::Mean"), 7);
  // Namesakes: Clash::Same is 5 in both, Clash::Differs 1 or 2 -- never guessed.
  EXPECT_EQ(values.Value("Clash::Same"), 5);
  EXPECT_EQ(values.Value("Clash::Differs"), std::nullopt);
  EXPECT_EQ(values.Value("Differs"), std::nullopt);
  // No such member; a class's member (no enum's); no enum at all.
  EXPECT_EQ(values.Value("BagMode::MIN"), std::nullopt);
  EXPECT_EQ(values.Value("Holder::kOne"), std::nullopt);
  EXPECT_EQ(values.Value("kFloat"), std::nullopt);
  EXPECT_EQ(values.Value(""), std::nullopt);
}

TEST(EnumValues, ALayeredFileIsReadFromTheLayer) {
  const CppIndex base = CppIndex::Build(EnumTree(), 1);
  uint32_t id = 0;
  while (id < base.files().size() && base.file(id) != "aten/src/ATen/native/Bag.h") ++id;
  ASSERT_LT(id, base.files().size());
  CppIndex layer;
  CppIndexWriter writer(&layer);
  writer.BeginLayer(base);
  writer.AddLayerFile(id, base.file(id),
                      ScanCppFile(base.file(id), "enum class BagMode { SUM = 0, MEAN = 1, MAX = 3 };\n"));
  writer.FinishLayer(base);
  CppIndex layered = base;
  ASSERT_TRUE(layered.SetLayer(&layer));
  EXPECT_EQ(EnumValues(layered).Value("BagMode::MAX"), 3);
  EXPECT_EQ(EnumValues(layered).Value("Holder::Kind::kTwo"), std::nullopt);  // no longer defined
  EXPECT_EQ(EnumValues(base).Value("BagMode::MAX"), 2);
}

TEST(EnumValuesReal260, EmbeddingBagModeAndReduction) {
  // EmbeddingBag.h:11-15 `enum class EmbeddingBagMode { SUM = 0, MEAN = 1, MAX = 2, };`
  // core/Reduction.h:8-13 `enum Reduction { None, Mean, Sum, END };` (implicit 0..3).
  REQUIRE_CORPUS("2.6.0");
  RealDisk disk(CorpusTree("2.6.0"));
  const CppIndex index = CppIndex::Build(disk);
  const EnumValues values(index);
  EXPECT_EQ(values.Value("EmbeddingBagMode::SUM"), 0);
  EXPECT_EQ(values.Value("EmbeddingBagMode::MEAN"), 1);
  EXPECT_EQ(values.Value("EmbeddingBagMode::MAX"), 2);
  EXPECT_EQ(values.Value("at::Reduction::None"), 0);
  EXPECT_EQ(values.Value("Reduction::Mean"), 1);
  EXPECT_EQ(values.Value("Reduction::Sum"), 2);
  uint32_t header = 0;
  while (header < index.files().size() && index.file(header) != "aten/src/ATen/native/EmbeddingBag.h") ++header;
  ASSERT_LT(header, index.files().size());
  bool max_at_14 = false;
  for (const CppEnumMember& m : index.EnumMembersOf(header))
    max_at_14 = max_at_14 || (m.enum_name == "EmbeddingBagMode" && m.member == "MAX" && m.line == 14);
  EXPECT_TRUE(max_at_14);
}

}  // namespace
}  // namespace optrace
