// RUN: attn-opt %s -verify-diagnostics -attn-expand-linear-loss='vocab-chunk=0'

// A chunk holds at least one class.
// expected-error @below {{vocab-chunk must be at least 1, got 0}}
func.func @no_classes(%h: tensor<?x32xf32>, %e: tensor<8x32xf32>, %y: tensor<?xi32>) -> tensor<?xf32> {
  %l, %s = attn.linear_cross_entropy %h, %e, %y {ignore_index = 5 : i64} : tensor<?x32xf32>, tensor<8x32xf32>, tensor<?xi32> -> tensor<?xf32>, tensor<?xf32>
  return %l : tensor<?xf32>
}
