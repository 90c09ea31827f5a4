//===- Checkpoint.cpp - Training checkpoints ------------------------------===//
//
// Part of attnc. SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

#include "attnc/train/Checkpoint.h"
#include "lib/support/Extents.h"
#include "lib/train/FileSystem.h"
#include "lib/train/Utf8.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdio>
#include <set>

using namespace attnc;
using namespace attnc::train;
using json = nlohmann::json;

namespace {

constexpr char kLatestName[] = "latest";
constexpr char kStepPrefix[] = "step-";
constexpr char kStepSuffix[] = ".safetensors";

bool startsWith(std::string_view text, std::string_view prefix) {
  return text.substr(0, prefix.size()) == prefix;
}

bool endsWith(std::string_view text, std::string_view suffix) {
  return text.size() >= suffix.size() &&
         text.substr(text.size() - suffix.size()) == suffix;
}

/// The step of a checkpoint file name, "step-<digits>.safetensors".
std::optional<int64_t> parseCheckpointName(std::string_view name) {
  if (!startsWith(name, kStepPrefix) || !endsWith(name, kStepSuffix))
    return std::nullopt;
  std::string_view digits = name.substr(
      sizeof(kStepPrefix) - 1,
      name.size() - (sizeof(kStepPrefix) - 1) - (sizeof(kStepSuffix) - 1));
  if (digits.empty() || digits.size() > 18)
    return std::nullopt;
  int64_t step = 0;
  for (char digit : digits) {
    if (digit < '0' || digit > '9')
      return std::nullopt;
    step = step * 10 + (digit - '0');
  }
  return step;
}

/// A temporary file that a save killed before its rename left behind.
bool isStaleTemporary(std::string_view name) {
  if (startsWith(name, std::string(kLatestName) + ".tmp."))
    return true;
  size_t tmp = name.find(std::string(kStepSuffix) + ".tmp.");
  return tmp != std::string_view::npos &&
         parseCheckpointName(name.substr(0, tmp + sizeof(kStepSuffix) - 1));
}

/// The checkpoints of `dir`, by step.
StatusOr<std::vector<std::pair<int64_t, std::string>>>
listCheckpoints(const std::string &dir) {
  auto names = listDirectory(dir);
  if (!names)
    return names.status();
  std::vector<std::pair<int64_t, std::string>> checkpoints;
  for (std::string &name : *names)
    if (std::optional<int64_t> step = parseCheckpointName(name))
      checkpoints.push_back({*step, std::move(name)});
  std::sort(checkpoints.begin(), checkpoints.end());
  return checkpoints;
}

/// The safetensors header of `tensors` and `metadata`, padded to 8 bytes,
/// with its 8-byte length in front: what safetensors::serialize writes
/// before the data, built here so that the data need not be copied.
StatusOr<std::string>
fileHeader(const std::vector<safetensors::Tensor> &tensors,
           const std::map<std::string, std::string> &metadata) {
  json header = json::object();
  std::set<std::string> names;
  uint64_t offset = 0;
  for (const safetensors::Tensor &tensor : tensors) {
    auto fail = [&](const std::string &what) {
      return Status::error("tensor \"" + tensor.name + "\": " + what);
    };
    std::optional<std::string_view> dtype =
        safetensors::dtypeName(tensor.dtype);
    std::optional<int64_t> bytes =
        denseBytes(tensor.shape, pkg::dtypeSize(tensor.dtype));
    if (!isValidUtf8(tensor.name) || tensor.name == "__metadata__")
      return fail("not a name safetensors allows");
    if (!names.insert(tensor.name).second)
      return fail("a second tensor of that name");
    if (!dtype)
      return fail("its dtype " + std::string(pkg::dtypeName(tensor.dtype)) +
                  " has no safetensors name");
    if (!bytes || static_cast<uint64_t>(*bytes) != tensor.data.size())
      return fail(std::to_string(tensor.data.size()) +
                  " bytes of data do not match its shape");
    header[tensor.name] = {{"dtype", std::string(*dtype)},
                           {"shape", tensor.shape},
                           {"data_offsets", {offset, offset + *bytes}}};
    offset += *bytes;
  }
  header["__metadata__"] = metadata;
  std::string text = header.dump();
  text.append((8 - text.size() % 8) % 8, ' ');
  std::string out(8, '\0');
  for (int i = 0; i < 8; ++i)
    out[i] = static_cast<char>(uint64_t(text.size()) >> (8 * i));
  return out + text;
}

/// Deletes the checkpoints before `step` but the newest keepLast - 1, and
/// stale temporary files.
Status prune(const std::string &dir, int64_t step, int keepLast) {
  auto names = listDirectory(dir);
  if (!names)
    return names.status();
  std::vector<std::pair<int64_t, std::string>> older;
  for (const std::string &name : *names) {
    if (isStaleTemporary(name)) {
      if (Status status = removeFile(dir, name); !status)
        return status;
    } else if (std::optional<int64_t> other = parseCheckpointName(name)) {
      if (*other < step)
        older.push_back({*other, name});
    }
  }
  if (keepLast == 0 || older.size() < static_cast<size_t>(keepLast))
    return Status::ok();
  std::sort(older.begin(), older.end());
  size_t doomed = older.size() - static_cast<size_t>(keepLast - 1);
  for (size_t i = 0; i < doomed; ++i)
    if (Status status = removeFile(dir, older[i].second); !status)
      return status;
  return Status::ok();
}

/// Loads dir/name, whose state must be of the step its name says.
StatusOr<LoadedCheckpoint> loadStepFile(const std::string &dir,
                                        const std::string &name, int64_t step) {
  auto loaded = loadCheckpoint(joinPath(dir, name));
  if (loaded && loaded->state.step != step)
    return Status::error(loaded->path + ": holds step " +
                         std::to_string(loaded->state.step) +
                         ", its name says " + std::to_string(step));
  return loaded;
}

/// The newest step file of `dir` that loads, for a directory without
/// `latest`; the warning says what was passed over.
StatusOr<LoadedCheckpoint> loadNewestStepFile(const std::string &dir) {
  auto checkpoints = listCheckpoints(dir);
  if (!checkpoints)
    return checkpoints.status();
  if (checkpoints->empty())
    return Status::error(dir + ": no checkpoint (neither \"" +
                         std::string(kLatestName) + "\" nor a " + kStepPrefix +
                         "<step>" + kStepSuffix + " file)");
  std::string skipped;
  for (auto it = checkpoints->rbegin(); it != checkpoints->rend(); ++it) {
    auto loaded = loadStepFile(dir, it->second, it->first);
    if (!loaded) {
      skipped += "; skipped " + loaded.status().message();
      continue;
    }
    loaded->warning = dir + " has no \"" + kLatestName + "\"; took " +
                      it->second + ", its newest checkpoint that loads" +
                      skipped;
    return loaded;
  }
  return Status::error(dir + " has no \"" + kLatestName +
                       "\" and none of its checkpoints loads" + skipped);
}

/// The checkpoint name that dir/latest holds.
StatusOr<std::string> readLatest(const std::string &dir) {
  std::string path = joinPath(dir, kLatestName);
  auto bytes = pkg::readRegularFile(path);
  if (!bytes)
    return bytes.status().withContext(path);
  std::string name(bytes->begin(), bytes->end());
  size_t begin = name.find_first_not_of(" \t\r\n");
  size_t end = name.find_last_not_of(" \t\r\n");
  name = begin == std::string::npos ? "" : name.substr(begin, end - begin + 1);
  if (!parseCheckpointName(name))
    return Status::error(path + ": \"" + name.substr(0, 80) +
                         "\" is not a checkpoint name (" + kStepPrefix +
                         "<step>" + kStepSuffix + ")");
  return name;
}

} // namespace

std::string train::checkpointFileName(int64_t step) {
  char name[64];
  std::snprintf(name, sizeof(name), "%s%08lld%s", kStepPrefix,
                static_cast<long long>(step), kStepSuffix);
  return name;
}

Status train::saveCheckpoint(const std::string &dir, const TrainState &state,
                             const std::vector<safetensors::Tensor> &tensors,
                             int keepLast) {
  if (dir.empty())
    return Status::error("checkpoint: no directory given");
  if (keepLast < 0)
    return Status::error("checkpoint: cannot keep the last " +
                         std::to_string(keepLast) + " checkpoints");
  auto entry = encodeTrainState(state);
  if (!entry)
    return entry.status();
  std::string name = checkpointFileName(state.step);
  auto header =
      fileHeader(tensors, {{"format", "pt"}, {kTrainStateKey, *entry}});
  if (!header)
    return header.status().withContext(joinPath(dir, name));
  if (Status status = makeDirectories(dir); !status)
    return status;
  std::vector<pkg::ByteSpan> spans = {
      {reinterpret_cast<const uint8_t *>(header->data()), header->size()}};
  for (const safetensors::Tensor &tensor : tensors)
    spans.push_back({tensor.data.data(), tensor.data.size()});
  if (Status status = pkg::writeFileAtomically(spans, joinPath(dir, name));
      !status)
    return status;
  std::string latest = name + "\n";
  if (Status status = pkg::writeFileAtomically(
          std::vector<uint8_t>(latest.begin(), latest.end()),
          joinPath(dir, kLatestName));
      !status)
    return status;
  return prune(dir, state.step, keepLast);
}

StatusOr<LoadedCheckpoint> train::loadCheckpoint(const std::string &path) {
  auto file = safetensors::readFile(path);
  if (!file)
    return file.status();
  auto entry = file->metadata.find(kTrainStateKey);
  if (entry == file->metadata.end())
    return Status::error(path + ": no \"" + std::string(kTrainStateKey) +
                         "\" entry in its metadata: not a training "
                         "checkpoint");
  auto state = decodeTrainState(entry->second);
  if (!state)
    return state.status().withContext(path);
  return LoadedCheckpoint{path, std::move(*state), std::move(file->tensors),
                          ""};
}

StatusOr<LoadedCheckpoint> train::loadLatestCheckpoint(const std::string &dir) {
  if (!isDirectory(dir))
    return Status::error(
        "checkpoint directory " + dir +
        (pathExists(dir) ? " is not a directory" : " does not exist"));
  if (!pathExists(joinPath(dir, kLatestName)))
    return loadNewestStepFile(dir);
  auto name = readLatest(dir);
  if (!name)
    return name.status();
  std::string path = joinPath(dir, *name);
  if (!pathExists(path))
    return Status::error(joinPath(dir, kLatestName) + " names " + *name +
                         ", which does not exist");
  return loadStepFile(dir, *name, *parseCheckpointName(*name));
}
