//===- Checkpoint.h - Training checkpoints ----------------------*- C++ -*-===//
//
// Part of attnc. SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// A checkpoint is one safetensors file, dir/step-00000123.safetensors,
// holding whatever tensors the trainer passes (master weights, AdamW
// moments) and, in its __metadata__, the entry "attnc.train": a JSON text
// with the loop's state,
//
//   {"version": 1, "step": 123, "samples": 62976,
//    "rng": {"seed": "1337", "counter": "8812"},
//    "loss_scale": {"scale": 32768.0, "growth_tracker": 17},
//    "config": {"lr": "0.0006", ...}}
//
// (64-bit RNG words as decimal strings, so that any JSON reader keeps
// every bit; the f32 scale as the shortest decimal that reads back as the
// same number), and "format": "pt", so that safetensors.torch.load_file
// and Hugging Face loaders take the file as PyTorch's.
//
// dir/latest is a one-line text file naming the newest checkpoint. Both are
// replaced by writing a temporary file, flushing it, renaming it over the
// old name and flushing the directory, the checkpoint first: a crash at any
// moment leaves `latest` naming a complete checkpoint.
//
//===----------------------------------------------------------------------===//

#ifndef ATTNC_TRAIN_CHECKPOINT_H
#define ATTNC_TRAIN_CHECKPOINT_H

#include "attnc/Status.h"
#include "attnc/package/SafeTensors.h"
#include "attnc/train/LossScaler.h"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace attnc::train {

/// The state of a counter-based random number generator (the data
/// shuffle, dropout): its seed and how far it has gone.
struct RngState {
  uint64_t seed = 0;
  uint64_t counter = 0;

  bool operator==(const RngState &other) const {
    return seed == other.seed && counter == other.counter;
  }
};

/// Everything besides the tensors that a resumed run needs to continue as
/// if it had not stopped.
struct TrainState {
  int64_t step = 0;    // optimizer steps done, the next step's 0-based index
  int64_t samples = 0; // samples consumed: the position in the data
  RngState rng;
  LossScaleState lossScale;
  /// Free-form settings of the run (for a resume to compare against).
  std::map<std::string, std::string> config;

  bool operator==(const TrainState &other) const {
    return step == other.step && samples == other.samples && rng == other.rng &&
           lossScale == other.lossScale && config == other.config;
  }
};

/// The metadata key that holds the state, and the version of its JSON.
inline constexpr char kTrainStateKey[] = "attnc.train";
inline constexpr int64_t kTrainStateVersion = 1;

/// "step-00000123.safetensors" (at least 8 digits).
std::string checkpointFileName(int64_t step);

/// The state as the JSON text of "attnc.train", and back. Decoding
/// errors name the field ("attnc.train: \"rng.seed\" is not ...").
/// Encoding errors for a negative step or sample count, or a loss scale
/// that is not positive and finite.
StatusOr<std::string> encodeTrainState(const TrainState &state);
StatusOr<TrainState> decodeTrainState(const std::string &text);

/// Writes the checkpoint of `state.step` into `dir` (created if missing),
/// then points dir/latest at it, then deletes the older checkpoints of
/// the directory but the newest `keepLast` in all (0 keeps them all), and
/// the temporary files a crashed save left. Checkpoints of later steps
/// (an abandoned run's, after resuming from an earlier one) are left
/// alone. One process at a time may save into a directory.
Status saveCheckpoint(const std::string &dir, const TrainState &state,
                      const std::vector<safetensors::Tensor> &tensors,
                      int keepLast);

struct LoadedCheckpoint {
  std::string path;
  TrainState state;
  std::vector<safetensors::Tensor> tensors; // in the order they were saved
  /// Non-empty when the checkpoint was found without `latest`: says which
  /// files were passed over and why, for the trainer to print.
  std::string warning;
};

/// Loads the checkpoint at `path`, checking its state entry.
StatusOr<LoadedCheckpoint> loadCheckpoint(const std::string &path);

/// Loads the checkpoint dir/latest names; its step must be the one its
/// name says. A `latest` naming a missing or corrupt file is an error, not
/// a reason to guess. Without `latest` (a crash before the first one was
/// written, or a copy of the step files alone), the newest step file that
/// loads is taken, with a warning.
StatusOr<LoadedCheckpoint> loadLatestCheckpoint(const std::string &dir);

} // namespace attnc::train

#endif // ATTNC_TRAIN_CHECKPOINT_H
