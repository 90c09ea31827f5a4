// RUN: attn-opt %s -split-input-file -attn-derive-backward='remat=selective remat-budget=4096 symbols=B=2' -verify-diagnostics

// A budget sizes the values it may save: a dim with no extent among
// `symbols` is an error at the value.
func.func @unsized(%x: tensor<?x8xf32>, %w: tensor<8x8xf32>) -> tensor<?x8xf32>
    attributes {attn.backward} {
  // expected-error @below {{the remat budget needs this value's size: give symbol 'd0_0' an extent (symbols=d0_0=EXTENT)}}
  %h = attn.matmul %x, %w : tensor<?x8xf32>, tensor<8x8xf32> -> tensor<?x8xf32>
  %t = attn.elementwise %h : tensor<?x8xf32> -> tensor<?x8xf32> {
  ^bb0(%a: f32):
    %r = math.tanh %a : f32
    attn.yield %r : f32
  }
  return %t : tensor<?x8xf32>
}
