//===- PtxasReport.cpp - What ptxas -v says about each kernel -------------===//
//
// Part of attnc. SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

#include "compiler/Target/CUDA/PtxasReport.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/Regex.h"

attnc::PtxasReport attnc::parsePtxasReport(llvm::StringRef log) {
  PtxasReport report;
  llvm::Regex entry("Compiling entry function '([^']+)'");
  llvm::Regex properties("Function properties for ([^ ]+)");
  llvm::Regex frame("([0-9]+) bytes stack frame, ([0-9]+) bytes spill stores, "
                    "([0-9]+) bytes spill loads");
  llvm::Regex registers("Used ([0-9]+) registers");
  llvm::Regex serialization("\\(C751[0-9]\\).* in the function '([^']+)'");
  std::string current;
  llvm::SmallVector<llvm::StringRef> lines;
  log.split(lines, '\n');
  for (llvm::StringRef line : lines) {
    llvm::SmallVector<llvm::StringRef> m;
    auto number = [&](unsigned i) {
      int64_t v = 0;
      m[i].getAsInteger(10, v);
      return v;
    };
    if (serialization.match(line, &m)) {
      ++report[m[1].str()]["wgmma_serialization_warnings"];
    } else if (line.contains("(C751") && !current.empty()) {
      ++report[current]["wgmma_serialization_warnings"];
    } else if (entry.match(line, &m) || properties.match(line, &m)) {
      current = m[1].str();
      report[current];
    } else if (!current.empty() && frame.match(line, &m)) {
      report[current]["stack_bytes"] = number(1);
      report[current]["spill_store_bytes"] = number(2);
      report[current]["spill_load_bytes"] = number(3);
    } else if (!current.empty() && registers.match(line, &m)) {
      report[current]["registers"] = number(1);
    }
  }
  return report;
}
