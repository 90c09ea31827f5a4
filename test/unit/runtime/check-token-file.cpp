//===- check-token-file.cpp - Load the first window of a token file -------===//
//
// Part of attnc. SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// check-token-file PATH N: opens a token file (the one scripts/make-tokens.py
// wrote, in the tests), loads its first window of N tokens on the host,
// checks that the labels are the ids shifted by one and prints the window as
// text (a byte-level file's tokens are its bytes).
//
//===----------------------------------------------------------------------===//

#include "attnc/runtime/TokenData.h"

#include <cstdio>
#include <cstdlib>
#include <string>

using namespace attnc;

static int fail(const std::string &message) {
  std::fprintf(stderr, "check-token-file: error: %s\n", message.c_str());
  return 1;
}

int main(int argc, char **argv) {
  if (argc != 3)
    return fail("usage: check-token-file PATH SEQUENCE");
  auto file = rt::TokenFile::open(argv[1]);
  if (!file)
    return fail(file.status().message());
  auto runtime = rt::Runtime::open("host");
  if (!runtime)
    return fail(runtime.status().message());
  rt::LoaderOptions options;
  options.sequence = std::atoll(argv[2]);
  auto loader = rt::TokenLoader::create(*runtime, *file, options);
  if (!loader)
    return fail(loader.status().message());
  auto batch = (*loader)->next();
  if (!batch)
    return fail(batch.status().message());

  const auto *ids = static_cast<const int32_t *>(batch->ids.data);
  const auto *labels = static_cast<const int32_t *>(batch->labels.data);
  std::string text;
  for (int64_t i = 0; i < options.sequence; ++i) {
    if (i + 1 < options.sequence && labels[i] != ids[i + 1])
      return fail("label " + std::to_string(i) + " is not id " +
                  std::to_string(i + 1));
    text += static_cast<char>(ids[i]);
  }
  std::printf("tokens %lld, vocabulary %lld, %d bytes per token, %lld "
              "windows\nfirst window: '%s'\n",
              static_cast<long long>(file->tokens()),
              static_cast<long long>(file->vocabSize()), file->bytesPerToken(),
              static_cast<long long>((*loader)->windows()), text.c_str());
  return 0;
}
