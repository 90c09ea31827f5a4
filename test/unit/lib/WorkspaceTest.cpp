//===- WorkspaceTest.cpp - Where a call's buffers live --------------------===//
//
// Part of attnc. SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

#include "attnc/package/Workspace.h"

#include <gtest/gtest.h>

using namespace attnc;

namespace {

/// Buffers a..d of f32 [1] (the layout takes sizes separately) in slots
/// `slots`, and four steps naming (a b), (a b), (c d), (c d).
pkg::Function fourBuffers(std::vector<int64_t> slots) {
  pkg::Function fn;
  fn.name = "f";
  const char *names[] = {"a", "b", "c", "d"};
  for (int b = 0; b < 4; ++b)
    fn.buffers.push_back(pkg::Buffer{
        pkg::TensorSig{names[b], pkg::DType::F32, {pkg::Dim::fixed(1)}},
        slots[b]});
  fn.steps = {{"k", {"a", "b"}},
              {"k", {"a", "b"}},
              {"k", {"c", "d"}},
              {"k", {"c", "d"}}};
  return fn;
}

TEST(LibWorkspace, LifetimesSpanTheStepsThatNameABuffer) {
  pkg::Function fn = fourBuffers({0, 1, 0, 1});
  fn.buffers.push_back(
      pkg::Buffer{pkg::TensorSig{"unused", pkg::DType::F32, {}}, 2});
  auto live = pkg::bufferLifetimes(fn);
  ASSERT_EQ(live.size(), 5u);
  EXPECT_EQ(live[0], std::make_pair(size_t(0), size_t(1)));
  EXPECT_EQ(live[3], std::make_pair(size_t(2), size_t(3)));
  EXPECT_GT(live[4].first, live[4].second) << "no step names it";
}

TEST(LibWorkspace, AViewsStepsExtendItsBuffersLifetime) {
  // Step 3 names only a view of rows of a: a lives until then, and a
  // step naming a view and its buffer counts once.
  pkg::Function fn = fourBuffers({0, 1, 2, 3});
  fn.views.push_back(pkg::View{
      pkg::TensorSig{"a_rows", pkg::DType::F32, {pkg::Dim::fixed(1)}}, "a", 0});
  fn.steps[2].args.push_back("a_rows");
  fn.steps[2].args.push_back("a");
  fn.steps[3].args = {"a_rows"};
  auto live = pkg::bufferLifetimes(fn);
  ASSERT_EQ(live.size(), 4u) << "a view is no buffer of its own";
  EXPECT_EQ(live[0], std::make_pair(size_t(0), size_t(3)));
  EXPECT_EQ(live[3], std::make_pair(size_t(2), size_t(2)));
}

TEST(LibWorkspace, AConcurrentStepLivesAtTheTimeOfTheStepBefore) {
  // Step 2 runs beside step 1: c and d are live with a and b, so none of
  // the four may share bytes, and b, named by step 1 only, still counts.
  pkg::Function fn = fourBuffers({0, 1, 2, 3});
  fn.steps[1].args = {"b"};
  fn.steps[2].concurrent = true;
  auto live = pkg::bufferLifetimes(fn);
  EXPECT_EQ(live[0], std::make_pair(size_t(0), size_t(0)));
  EXPECT_EQ(live[1], std::make_pair(size_t(0), size_t(1)));
  EXPECT_EQ(live[2], std::make_pair(size_t(1), size_t(3)));
  auto layout = pkg::layoutWorkspace(fn, {256, 256, 256, 256}, live);
  ASSERT_TRUE(layout);
  EXPECT_EQ(layout->bytes, 768u) << "b, c and d are live at step 1";
}

TEST(LibWorkspace, PacksByLifetimeWhereSlotsWasteBytes) {
  // The compiler's slots pair a large and a small buffer twice (a with c,
  // b with d): two slots of 1024 bytes. By lifetime, the two large ones
  // share offset 0 and the small ones sit after them.
  pkg::Function fn = fourBuffers({0, 1, 1, 0});
  auto layout = pkg::layoutWorkspace(fn, {256, 1024, 256, 1024},
                                     pkg::bufferLifetimes(fn));
  ASSERT_TRUE(layout) << layout.status().message();
  EXPECT_EQ(layout->bytes, 1280u);
  EXPECT_EQ(layout->offsets, (std::vector<size_t>{1024, 0, 1024, 0}));
}

TEST(LibWorkspace, KeepsSlotsWhereTheyAreSmaller) {
  // Slots that pair equal sizes are already tight: the slot layout wins
  // ties, and buffers of one slot share its offset.
  pkg::Function fn = fourBuffers({0, 1, 0, 1});
  auto layout =
      pkg::layoutWorkspace(fn, {1000, 24, 1000, 24}, pkg::bufferLifetimes(fn));
  ASSERT_TRUE(layout);
  EXPECT_EQ(layout->bytes, 1024u + 24u);
  EXPECT_EQ(layout->offsets, (std::vector<size_t>{0, 1024, 0, 1024}));
}

TEST(LibWorkspace, RefusesSizesThatOverflow) {
  pkg::Function fn = fourBuffers({0, 1, 2, 3});
  auto layout = pkg::layoutWorkspace(fn, {SIZE_MAX / 2, SIZE_MAX / 2, 8, 8},
                                     pkg::bufferLifetimes(fn));
  ASSERT_FALSE(layout);
  EXPECT_EQ(layout.status().message(),
            "the buffers of function 'f' are too large to address");
  EXPECT_FALSE(pkg::layoutWorkspace(fn, {8, 8}, pkg::bufferLifetimes(fn)));
}

} // namespace
