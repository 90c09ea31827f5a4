//===- Token.h - fp64 reference of embeddings and losses ---------*- C++
//-*-===//
//
// Part of attnc. SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// attn.embedding, attn.cross_entropy, attn.token_mean and their gradients
// on dense
// row-major data in double, ids and labels held as doubles of integer value
// (pkg::LossSpec and the op kinds of pkg::OpSpec define them).
//
//===----------------------------------------------------------------------===//

#ifndef ATTNC_LIB_REFERENCE_TOKEN_H
#define ATTNC_LIB_REFERENCE_TOKEN_H

#include <cstdint>

namespace attnc::ref {

/// A table [rows, width] and `tokens` ids.
struct TableShape {
  int64_t rows = 0, width = 0, tokens = 0;
};

/// out [tokens, width] = the table rows of ids [tokens]; NaN rows for ids
/// outside [0, rows).
void embedding(const TableShape &shape, const double *table, const double *ids,
               double *out);

/// order [tokens]: the tokens sorted by id, stably, then one -1 for each
/// token whose id is outside [0, rows); bounds [rows + 1]: the tokens of id
/// v are order[bounds[v]] to order[bounds[v + 1] - 1].
void tokenOrder(const TableShape &shape, const double *ids, double *order,
                double *bounds);

/// dtable [rows, width]: row v the sum of the dout rows [tokens, width] of
/// order[bounds[v]] to order[bounds[v + 1] - 1] (tokenOrder's), in that
/// order. As the kernel does, bounds are clamped to [0, tokens] and a place
/// outside [0, tokens) reads the last token, so nothing is read out of
/// bounds.
void embeddingGrad(const TableShape &shape, const double *order,
                   const double *bounds, const double *dout, double *dtable);

/// Rows of logits over `classes`, with their labels' ignore_index; for a
/// vocabulary chunk's logits, the chunk's first class.
struct LossShape {
  int64_t rows = 0, classes = 0, ignoreIndex = -100, vocabOffset = 0;
};

/// losses [rows] and lse [rows] of logits [rows, classes] and labels
/// [rows]: 0 for an ignored label, NaN for one outside [0, classes).
void crossEntropy(const LossShape &shape, const double *logits,
                  const double *labels, double *losses, double *lse);

/// A vocabulary chunk's part of each row of logits [rows, classes] (the
/// classes from shape.vocabOffset): lse [rows] over the chunk and target
/// [rows], the label's logit when the chunk holds the label, else 0.
void crossEntropyPartial(const LossShape &shape, const double *logits,
                         const double *labels, double *lse, double *target);

/// losses [rows] and lse [rows] from the parts [parts, rows] of chunks
/// covering `shape.classes` classes: lse = log sum_p exp(lse_p), losses =
/// lse - sum_p target_p; 0 for an ignored label, NaN for one outside [0,
/// classes).
void crossEntropyCombine(const LossShape &shape, int64_t parts,
                         const double *lseParts, const double *targets,
                         const double *labels, double *losses, double *lse);

/// dlogits [rows, classes] = (softmax - onehot(label - vocabOffset)) *
/// dlosses, 0 on an ignored row; lse is the whole rows'.
void crossEntropyGrad(const LossShape &shape, const double *logits,
                      const double *labels, const double *lse,
                      const double *dlosses, double *dlogits);

/// The mean of values [tokens] over the tokens whose label is not
/// `ignoreIndex` (NaN when none is).
double tokenMean(int64_t tokens, int64_t ignoreIndex, const double *values,
                 const double *labels);

/// dvalues [tokens] = dmean / count on counted tokens, 0 on the others.
void tokenMeanGrad(int64_t tokens, int64_t ignoreIndex, const double *labels,
                   double dmean, double *dvalues);

} // namespace attnc::ref

#endif // ATTNC_LIB_REFERENCE_TOKEN_H
