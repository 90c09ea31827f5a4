// Training a residual sublayer: causal attention whose output is added back
// to its input x, then a GELU (tanh form) of that sum added to it again,
// all in bf16 and marked `attn.backward`. The element-wise code is upstream
// arith/math on tensors; attnc fuses each chain into one kernel
// (`attn.elementwise`) and derives the gradient through it, summing the
// gradients of x (attention's query and the first residual) and of h (the
// GELU's input and the second residual). By the default remat policy the
// forward also returns attention's out and lse (saved_out, saved_lse) so the
// backward does not run the attention again; `attnc --explain` lists them.
//
// EXAMPLE-RUN: --fn residual_gelu --shape B=1 --shape Nq=256 --shape Nk=256
// EXAMPLE-RUN: --fn residual_gelu_bwd --shape B=1 --shape Nq=256 --shape Nk=256
!x = tensor<?x8x?x64xbf16>
func.func @residual_gelu(%x: !x, %k: !x, %v: !x) -> !x attributes {attn.backward} {
  %o, %lse = attn.attention %x, %k, %v {causal}
      : !x, !x, !x -> !x, tensor<?x8x?xf32>
  %h = arith.addf %x, %o : !x
  // gelu(h) = 0.5 h (1 + tanh(sqrt(2 / pi) (h + 0.044715 h^3)))
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %b = tensor.dim %x, %c0 : !x
  %n = tensor.dim %x, %c2 : !x
  %half_s = arith.constant 0.5 : bf16
  %one_s = arith.constant 1.0 : bf16
  %cube_s = arith.constant 0.044715 : bf16
  %scale_s = arith.constant 0.7978845608 : bf16
  %half = tensor.splat %half_s[%b, %n] : !x
  %one = tensor.splat %one_s[%b, %n] : !x
  %cube = tensor.splat %cube_s[%b, %n] : !x
  %scale = tensor.splat %scale_s[%b, %n] : !x
  %h2 = arith.mulf %h, %h : !x
  %h3 = arith.mulf %h2, %h : !x
  %ch3 = arith.mulf %cube, %h3 : !x
  %inner = arith.addf %h, %ch3 : !x
  %arg = arith.mulf %scale, %inner : !x
  %t = math.tanh %arg : !x
  %onet = arith.addf %one, %t : !x
  %hh = arith.mulf %half, %h : !x
  %gelu = arith.mulf %hh, %onet : !x
  %y = arith.addf %h, %gelu : !x
  return %y : !x
}
