// RUN: attn-opt %s -split-input-file --pass-pipeline='builtin.module(attn-form-programs)' | FileCheck %s

// An attention feeding a cast. The program takes the inputs, then the
// outputs, as memrefs of any strides, each named after its role and with
// its symbolic shape; the attention output, read only by the cast, lives in
// an intermediate buffer sized from the query's dims and freed after the
// cast, its last reader. Each op becomes a kernel of @attnc_kernels in
// destination-passing form, launched by its nested symbol.

// CHECK-LABEL: func.func @attention_cast(
// CHECK-SAME:    %[[Q:[a-z0-9]+]]: memref<?x8x?x64xbf16, strided<[?, ?, ?, ?], offset: ?>> {attnrt.name = "q", attnrt.shape = ["B", 8, "Nq", 64]},
// CHECK-SAME:    %[[K:[a-z0-9]+]]: memref<?x2x?x64xbf16, strided<[?, ?, ?, ?], offset: ?>> {attnrt.name = "k", attnrt.shape = ["B", 2, "Nk", 64]},
// CHECK-SAME:    %[[V:[a-z0-9]+]]: memref<?x2x?x32xbf16, strided<[?, ?, ?, ?], offset: ?>> {attnrt.name = "v", attnrt.shape = ["B", 2, "Nk", 32]},
// CHECK-SAME:    %[[OUT:[a-z0-9]+]]: memref<?x8x?x32xf32, strided<[?, ?, ?, ?], offset: ?>> {attnrt.name = "out", attnrt.shape = ["B", 8, "Nq", 32]},
// CHECK-SAME:    %[[LSE:[a-z0-9]+]]: memref<?x8x?xf32, strided<[?, ?, ?], offset: ?>> {attnrt.name = "lse", attnrt.shape = ["B", 8, "Nq"]})
// CHECK-SAME:    attributes {attnrt.num_inputs = 3 : i64} {
// CHECK-DAG:     %[[C0:.*]] = arith.constant 0 : index
// CHECK-DAG:     %[[C2:.*]] = arith.constant 2 : index
// CHECK-DAG:     %[[B:.*]] = memref.dim %[[Q]], %[[C0]]
// CHECK-DAG:     %[[NQ:.*]] = memref.dim %[[Q]], %[[C2]]
// CHECK:         %[[T0:.*]] = attnrt.alloc(%[[B]], %[[NQ]]) {name = "t0", shape = ["B", 8, "Nq", 32]} : memref<?x8x?x32xbf16>
// CHECK-NEXT:    attnrt.launch @attnc_kernels::@attention_cast_attention0 (%[[Q]], %[[K]], %[[V]], %[[T0]], %[[LSE]])
// CHECK-NEXT:    attnrt.launch @attnc_kernels::@attention_cast_cast1 (%[[T0]], %[[OUT]])
// CHECK-NEXT:    attnrt.dealloc %[[T0]]
// CHECK-NEXT:    return

// CHECK-LABEL: module @attnc_kernels {
// CHECK:         func.func @attention_cast_attention0(
// CHECK-SAME:      %[[KQ:[a-z0-9]+]]: memref<?x8x?x64xbf16, strided<[?, ?, ?, ?], offset: ?>>,
// CHECK-SAME:      %[[KK:[a-z0-9]+]]: memref<?x2x?x64xbf16, strided<[?, ?, ?, ?], offset: ?>>,
// CHECK-SAME:      %[[KV:[a-z0-9]+]]: memref<?x2x?x32xbf16, strided<[?, ?, ?, ?], offset: ?>>,
// CHECK-SAME:      %[[KOUT:[a-z0-9]+]]: memref<?x8x?x32xbf16, strided<[?, ?, ?, ?], offset: ?>>,
// CHECK-SAME:      %[[KLSE:[a-z0-9]+]]: memref<?x8x?xf32, strided<[?, ?, ?], offset: ?>>)
// CHECK-SAME:      attributes {attnrt.kernel} {
// CHECK-NEXT:      %[[TQ:.*]] = bufferization.to_tensor %[[KQ]] : {{.*}} to tensor<?x8x?x64xbf16>
// CHECK-NEXT:      %[[TK:.*]] = bufferization.to_tensor %[[KK]] : {{.*}} to tensor<?x2x?x64xbf16>
// CHECK-NEXT:      %[[TV:.*]] = bufferization.to_tensor %[[KV]] : {{.*}} to tensor<?x2x?x32xbf16>
// CHECK-NEXT:      %[[O:.*]], %[[L:.*]] = attn.attention %[[TQ]], %[[TK]], %[[TV]] {causal}
// CHECK-NEXT:      bufferization.materialize_in_destination %[[O]] in writable %[[KOUT]]
// CHECK-NEXT:      bufferization.materialize_in_destination %[[L]] in writable %[[KLSE]]
// CHECK-NEXT:      return
// CHECK:         func.func @attention_cast_cast1(
// CHECK-SAME:      %[[IN:[a-z0-9]+]]: memref<?x8x?x32xbf16, strided<[?, ?, ?, ?], offset: ?>>,
// CHECK-SAME:      %[[COUT:[a-z0-9]+]]: memref<?x8x?x32xf32, strided<[?, ?, ?, ?], offset: ?>>)
// CHECK-SAME:      attributes {attnrt.kernel} {
// CHECK-NEXT:      %[[TIN:.*]] = bufferization.to_tensor %[[IN]]
// CHECK-NEXT:      %[[C:.*]] = attn.cast %[[TIN]] {scale = 2.000000e+00 : f32} : tensor<?x8x?x32xbf16> to tensor<?x8x?x32xf32>
// CHECK-NEXT:      bufferization.materialize_in_destination %[[C]] in writable %[[COUT]]
// CHECK-NEXT:      return
func.func @attention_cast(%q: tensor<?x8x?x64xbf16>, %k: tensor<?x2x?x64xbf16>, %v: tensor<?x2x?x32xbf16>)
    -> (tensor<?x8x?x32xf32>, tensor<?x8x?xf32>) {
  %o, %l = attn.attention %q, %k, %v {causal}
      : tensor<?x8x?x64xbf16>, tensor<?x2x?x64xbf16>, tensor<?x2x?x32xbf16>
      -> tensor<?x8x?x32xbf16>, tensor<?x8x?xf32>
  %c = attn.cast %o {scale = 2.0 : f32} : tensor<?x8x?x32xbf16> to tensor<?x8x?x32xf32>
  return %c, %l : tensor<?x8x?x32xf32>, tensor<?x8x?xf32>
}

// -----

// Self-attention: query and key lengths are one dim, "N". A result nothing
// keeps (lse) is neither an output nor a kernel argument, and the kernel
// writes only the kept one. The mask region is outlined with its op.

// CHECK-LABEL: func.func @self(
// CHECK-SAME:    %[[X:[a-z0-9]+]]: memref<1x2x?x16xf32, strided<[?, ?, ?, ?], offset: ?>> {attnrt.name = "q", attnrt.shape = [1, 2, "N", 16]},
// CHECK-SAME:    %[[OUT:[a-z0-9]+]]: memref<1x2x?x16xf32, strided<[?, ?, ?, ?], offset: ?>> {attnrt.name = "out", attnrt.shape = [1, 2, "N", 16]})
// CHECK-SAME:    attributes {attnrt.num_inputs = 1 : i64} {
// CHECK-NEXT:    attnrt.launch @attnc_kernels::@self_attention0 (%[[X]], %[[X]], %[[X]], %[[OUT]]) :
// CHECK-NEXT:    return
// CHECK-LABEL: module @attnc_kernels {
// CHECK:         func.func @self_attention0(
// CHECK-SAME:      memref<1x2x?x16xf32, strided<[?, ?, ?, ?], offset: ?>>, %{{[a-z0-9]+}}: memref<1x2x?x16xf32, strided<[?, ?, ?, ?], offset: ?>>,
// CHECK-SAME:      %{{[a-z0-9]+}}: memref<1x2x?x16xf32, strided<[?, ?, ?, ?], offset: ?>>, %[[KOUT:[a-z0-9]+]]: memref<1x2x?x16xf32, strided<[?, ?, ?, ?], offset: ?>>)
// CHECK:           %[[O:.*]], %{{.*}} = attn.attention {{.*}} {window_left = 4 : i64} {{.*}} mask {
// CHECK:             arith.cmpi sge
// CHECK:             attn.yield
// CHECK:           }
// CHECK-NEXT:      bufferization.materialize_in_destination %[[O]] in writable %[[KOUT]]
// CHECK-NEXT:      return
func.func @self(%x: tensor<1x2x?x16xf32>) -> tensor<1x2x?x16xf32> {
  %o, %l = attn.attention %x, %x, %x {window_left = 4 : i64}
      : tensor<1x2x?x16xf32>, tensor<1x2x?x16xf32>, tensor<1x2x?x16xf32>
      -> tensor<1x2x?x16xf32>, tensor<1x2x?xf32>
    mask {
    ^bb0(%b: index, %h: index, %qi: index, %ki: index):
      %ok = arith.cmpi sge, %qi, %ki : index
      attn.yield %ok : i1
    }
  return %o : tensor<1x2x?x16xf32>
}

// -----

// Symbols: dims the ops relate share one; a class with a static member is
// that extent everywhere (the query's batch is the key's 2); a dim no op
// names is d<value>_<dim> after its first value; two classes with one role
// count up ("Nk", "Nk1"). An input no op reads is "arg<i>", and one whose
// role is taken ("k" of the second attention) too.

// CHECK-LABEL: func.func @symbols(
// CHECK-SAME:    {attnrt.name = "q", attnrt.shape = [2, 4, "Nq", 16]},
// CHECK-SAME:    {attnrt.name = "k", attnrt.shape = [2, 4, "Nk", 16]},
// CHECK-SAME:    {attnrt.name = "arg2", attnrt.shape = [2, 4, "Nk1", 16]},
// CHECK-SAME:    {attnrt.name = "arg3", attnrt.shape = ["d3_0", 3]},
// CHECK-SAME:    {attnrt.name = "lse", attnrt.shape = [2, 4, "Nq"]},
// CHECK-SAME:    {attnrt.name = "result1", attnrt.shape = [2, 4, "Nq"]})
// CHECK-SAME:    attributes {attnrt.num_inputs = 4 : i64} {
func.func @symbols(%q: tensor<?x4x?x16xf32>, %k1: tensor<2x4x?x16xf32>, %k2: tensor<2x4x?x16xf32>,
                   %unused: tensor<?x3xf32>) -> (tensor<?x4x?xf32>, tensor<?x4x?xf32>) {
  %o1, %l1 = attn.attention %q, %k1, %k1
      : tensor<?x4x?x16xf32>, tensor<2x4x?x16xf32>, tensor<2x4x?x16xf32>
      -> tensor<?x4x?x16xf32>, tensor<?x4x?xf32>
  %o2, %l2 = attn.attention %q, %k2, %k2
      : tensor<?x4x?x16xf32>, tensor<2x4x?x16xf32>, tensor<2x4x?x16xf32>
      -> tensor<?x4x?x16xf32>, tensor<?x4x?xf32>
  return %l1, %l2 : tensor<?x4x?xf32>, tensor<?x4x?xf32>
}

// -----

// Intermediate buffers: each is allocated just before the op that writes
// it, with its dynamic sizes read from an argument of the same symbols, and
// freed right after its last reader; dims no op names keep d<i>_<j>.

// CHECK-LABEL: func.func @chain(
// CHECK-SAME:    %[[X:[a-z0-9]+]]: memref<?x?xf32, strided<[?, ?], offset: ?>> {attnrt.name = "in", attnrt.shape = ["d0_0", "d0_1"]},
// CHECK-SAME:    %[[OUT:[a-z0-9]+]]: memref<?x?xf32, strided<[?, ?], offset: ?>> {attnrt.name = "out", attnrt.shape = ["d0_0", "d0_1"]})
// CHECK:         %[[D0:.*]] = memref.dim %[[X]], %{{.*}}
// CHECK:         %[[D1:.*]] = memref.dim %[[X]], %{{.*}}
// CHECK:         %[[T0:.*]] = attnrt.alloc(%[[D0]], %[[D1]]) {name = "t0", shape = ["d0_0", "d0_1"]} : memref<?x?xbf16>
// CHECK-NEXT:    attnrt.launch @attnc_kernels::@chain_cast0 (%[[X]], %[[T0]])
// CHECK:         %[[T1:.*]] = attnrt.alloc(%{{.*}}, %{{.*}}) {name = "t1", shape = ["d0_0", "d0_1"]} : memref<?x?xf16>
// CHECK-NEXT:    attnrt.launch @attnc_kernels::@chain_cast1 (%[[T0]], %[[T1]])
// CHECK-NEXT:    attnrt.dealloc %[[T0]]
// CHECK-NEXT:    attnrt.launch @attnc_kernels::@chain_cast2 (%[[T1]], %[[OUT]])
// CHECK-NEXT:    attnrt.dealloc %[[T1]]
// CHECK-NEXT:    return
func.func @chain(%x: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %a = attn.cast %x : tensor<?x?xf32> to tensor<?x?xbf16>
  %b = attn.cast %a : tensor<?x?xbf16> to tensor<?x?xf16>
  %c = attn.cast %b : tensor<?x?xf16> to tensor<?x?xf32>
  return %c : tensor<?x?xf32>
}

// -----

// A buffer read by two ops is freed after the second; a static buffer has
// no dynamic sizes.

// CHECK-LABEL: func.func @two_readers(
// CHECK-SAME:    %[[X:[a-z0-9]+]]: memref<8x16xf32, strided<[?, ?], offset: ?>>
// CHECK-SAME:    %[[OUT1:[a-z0-9]+]]: memref<8x16xf16, strided<[?, ?], offset: ?>> {attnrt.name = "out", attnrt.shape = [8, 16]},
// CHECK-SAME:    %[[OUT2:[a-z0-9]+]]: memref<8x16xf32, strided<[?, ?], offset: ?>> {attnrt.name = "result1", attnrt.shape = [8, 16]})
// CHECK-NEXT:    %[[T0:.*]] = attnrt.alloc() {name = "t0", shape = [8, 16]} : memref<8x16xbf16>
// CHECK-NEXT:    attnrt.launch @attnc_kernels::@two_readers_cast0 (%[[X]], %[[T0]])
// CHECK-NEXT:    attnrt.launch @attnc_kernels::@two_readers_cast1 (%[[T0]], %[[OUT1]])
// CHECK-NEXT:    attnrt.launch @attnc_kernels::@two_readers_cast2 (%[[T0]], %[[OUT2]])
// CHECK-NEXT:    attnrt.dealloc %[[T0]]
// CHECK-NEXT:    return
func.func @two_readers(%x: tensor<8x16xf32>) -> (tensor<8x16xf16>, tensor<8x16xf32>) {
  %a = attn.cast %x : tensor<8x16xf32> to tensor<8x16xbf16>
  %b = attn.cast %a : tensor<8x16xbf16> to tensor<8x16xf16>
  %c = attn.cast %a : tensor<8x16xbf16> to tensor<8x16xf32>
  return %b, %c : tensor<8x16xf16>, tensor<8x16xf32>
}

// -----

// An argument returned as it is and a value returned twice are copied by
// kernels of their own (identity casts), after the ops; the second copy
// reads the output the op wrote.

// CHECK-LABEL: func.func @copies(
// CHECK-SAME:    %[[X:[a-z0-9]+]]: memref<?x4x?x16xf32, strided<[?, ?, ?, ?], offset: ?>> {attnrt.name = "q", attnrt.shape = ["B", 4, "N", 16]},
// CHECK-SAME:    %[[OUT:[a-z0-9]+]]: memref<?x4x?x16xf32, strided<[?, ?, ?, ?], offset: ?>> {attnrt.name = "out", attnrt.shape = ["B", 4, "N", 16]},
// CHECK-SAME:    %[[R1:[a-z0-9]+]]: memref<?x4x?x16xf32, strided<[?, ?, ?, ?], offset: ?>> {attnrt.name = "result1", attnrt.shape = ["B", 4, "N", 16]},
// CHECK-SAME:    %[[R2:[a-z0-9]+]]: memref<?x4x?x16xf32, strided<[?, ?, ?, ?], offset: ?>> {attnrt.name = "result2", attnrt.shape = ["B", 4, "N", 16]})
// CHECK-SAME:    attributes {attnrt.num_inputs = 1 : i64} {
// CHECK-NEXT:    attnrt.launch @attnc_kernels::@copies_attention0 (%[[X]], %[[X]], %[[X]], %[[OUT]])
// CHECK-NEXT:    attnrt.launch @attnc_kernels::@copies_cast1 (%[[X]], %[[R1]])
// CHECK-NEXT:    attnrt.launch @attnc_kernels::@copies_cast2 (%[[OUT]], %[[R2]])
// CHECK-NEXT:    return
// CHECK-LABEL: module @attnc_kernels {
// CHECK:         func.func @copies_attention0(
// CHECK:         func.func @copies_cast1(%[[IN:[a-z0-9]+]]: memref<?x4x?x16xf32, strided<[?, ?, ?, ?], offset: ?>>, %[[DEST:[a-z0-9]+]]: memref<?x4x?x16xf32, strided<[?, ?, ?, ?], offset: ?>>)
// CHECK-NEXT:      %[[T:.*]] = bufferization.to_tensor %[[IN]]
// CHECK-NEXT:      %[[C:.*]] = attn.cast %[[T]] : tensor<?x4x?x16xf32> to tensor<?x4x?x16xf32>
// CHECK-NEXT:      bufferization.materialize_in_destination %[[C]] in writable %[[DEST]]
// CHECK-NEXT:      return
// CHECK:         func.func @copies_cast2(
// CHECK:           attn.cast %{{.*}} : tensor<?x4x?x16xf32> to tensor<?x4x?x16xf32>
func.func @copies(%x: tensor<?x4x?x16xf32>) -> (tensor<?x4x?x16xf32>, tensor<?x4x?x16xf32>, tensor<?x4x?x16xf32>) {
  %o, %l = attn.attention %x, %x, %x
      : tensor<?x4x?x16xf32>, tensor<?x4x?x16xf32>, tensor<?x4x?x16xf32>
      -> tensor<?x4x?x16xf32>, tensor<?x4x?xf32>
  return %o, %x, %o : tensor<?x4x?x16xf32>, tensor<?x4x?x16xf32>, tensor<?x4x?x16xf32>
}

// -----

// Every public function becomes a program, its kernels named after it and
// numbered within it, all in the one kernel module; private functions are
// removed.

// CHECK-LABEL: func.func @first(
// CHECK-SAME:    attributes {attnrt.num_inputs = 1 : i64}
// CHECK:         attnrt.launch @attnc_kernels::@first_cast0
// CHECK-NOT:     func.func @helper
// CHECK-LABEL: func.func @second(
// CHECK-SAME:    attributes {attnrt.num_inputs = 1 : i64}
// CHECK:         attnrt.launch @attnc_kernels::@second_cast0
// CHECK-NOT:     func.func @helper
// CHECK-LABEL: module @attnc_kernels {
// CHECK-NEXT:    func.func @first_cast0(
// CHECK:         func.func @second_cast0(
// CHECK-NOT:     func.func
func.func @first(%x: tensor<4xf32>) -> tensor<4xbf16> {
  %c = attn.cast %x : tensor<4xf32> to tensor<4xbf16>
  return %c : tensor<4xbf16>
}
func.func private @helper(%x: tensor<4xf32>) -> tensor<4xf32> {
  return %x : tensor<4xf32>
}
func.func @second(%x: tensor<4xf32>) -> tensor<4xf16> {
  %c = attn.cast %x : tensor<4xf32> to tensor<4xf16>
  return %c : tensor<4xf16>
}

// -----

// A dim that is dynamic in one value but fixed by another of its class
// (q's batch is ?, k's is 2) is static: the argument records the extent and
// the intermediate buffer has it in its type, with no dynamic size.

// CHECK-LABEL: func.func @static_class(
// CHECK-SAME:    %{{[a-z0-9]+}}: memref<?x4x8x16xf32, strided<[?, ?, ?, ?], offset: ?>> {attnrt.name = "q", attnrt.shape = [2, 4, 8, 16]}
// CHECK:         %[[T0:.*]] = attnrt.alloc() {name = "t0", shape = [2, 4, 8, 16]} : memref<2x4x8x16xf32>
// CHECK:         attnrt.launch @attnc_kernels::@static_class_attention0 (%{{.*}}, %{{.*}}, %{{.*}}, %[[T0]])
// CHECK:         attnrt.launch @attnc_kernels::@static_class_cast1 (%[[T0]], %{{.*}})
func.func @static_class(%q: tensor<?x4x8x16xf32>, %k: tensor<2x4x8x16xf32>) -> tensor<?x4x8x16xbf16> {
  %o, %l = attn.attention %q, %k, %k
      : tensor<?x4x8x16xf32>, tensor<2x4x8x16xf32>, tensor<2x4x8x16xf32>
      -> tensor<?x4x8x16xf32>, tensor<?x4x8xf32>
  %c = attn.cast %o : tensor<?x4x8x16xf32> to tensor<?x4x8x16xbf16>
  return %c : tensor<?x4x8x16xbf16>
}

// -----

// A result that updates an operand in place (attention_grad_kv's dq
// accumulator) takes that operand's buffer: the kernel is launched with it
// twice, and it is freed after the last reader of the result.

// CHECK-LABEL: func.func @in_place(
// CHECK:         %[[DELTA:.*]] = attnrt.alloc() {name = "t0", shape = [1, 2, 8]} : memref<1x2x8xf32>
// CHECK:         %[[ACC:.*]] = attnrt.alloc() {name = "t1", shape = [1, 2, 8, 16]} : memref<1x2x8x16xf32>
// CHECK:         attnrt.launch @attnc_kernels::@in_place_attention_grad_delta0 ({{.*}}, %[[DELTA]], %[[ACC]])
// CHECK-NEXT:    attnrt.launch @attnc_kernels::@in_place_attention_grad_kv1 ({{.*}}, %[[DELTA]], %{{.*}}, %[[ACC]], %{{.*}}, %{{.*}}, %[[ACC]])
// CHECK-NEXT:    attnrt.dealloc %[[DELTA]]
// CHECK-NEXT:    attnrt.launch @attnc_kernels::@in_place_cast2 (%[[ACC]], %{{.*}})
// CHECK-NEXT:    attnrt.dealloc %[[ACC]]
// CHECK-NEXT:    return
func.func @in_place(%q: tensor<1x2x8x16xf32>, %o: tensor<1x2x8x16xf32>, %l: tensor<1x2x8xf32>)
    -> (tensor<1x2x8x16xbf16>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>) {
  %delta, %acc = attn.attention_grad_delta %o, %o
      : tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32> -> tensor<1x2x8xf32>, tensor<1x2x8x16xf32>
  %dk, %dv, %sum = attn.attention_grad_kv %q, %q, %q, %l, %delta, %o, %acc
      : tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8xf32>, tensor<1x2x8xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>
      -> tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>
  %dq = attn.cast %sum : tensor<1x2x8x16xf32> to tensor<1x2x8x16xbf16>
  return %dq, %dk, %dv : tensor<1x2x8x16xbf16>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>
}

// -----

// An element-wise result takes over the buffer of an operand of its type
// that nothing reads later (the second op's first result takes %a's, its
// second %b's); an operand read later (%a by the first op, %c) and an
// operand of another type keep theirs.

// CHECK-LABEL: func.func @reuse(
// CHECK:         %[[A:.*]] = attnrt.alloc({{.*}}) {name = "t0", {{.*}}} : memref<?x8xbf16>
// CHECK:         %[[B:.*]] = attnrt.alloc({{.*}}) {name = "t1", {{.*}}} : memref<?x8xbf16>
// CHECK:         attnrt.launch @attnc_kernels::@reuse_elementwise1 (%[[A]], %[[B]])
// CHECK:         %[[C:.*]] = attnrt.alloc({{.*}}) {name = "t2", {{.*}}} : memref<?x8xf32>
// CHECK:         attnrt.launch @attnc_kernels::@reuse_cast2 (%[[A]], %[[C]])
// CHECK-NEXT:    attnrt.launch @attnc_kernels::@reuse_elementwise3 (%[[A]], %[[B]], %[[C]], %[[A]], %[[B]])
// CHECK-NEXT:    attnrt.launch @attnc_kernels::@reuse_elementwise4 (%[[A]], %[[B]], %[[C]], %{{.*}})
// CHECK-NEXT:    attnrt.dealloc %[[A]]
// CHECK-NEXT:    attnrt.dealloc %[[B]]
// CHECK-NEXT:    attnrt.dealloc %[[C]]
// CHECK-NEXT:    return
!r = tensor<?x8xbf16>
func.func @reuse(%x: tensor<?x8xf32>) -> tensor<?x8xbf16> {
  %a = attn.cast %x : tensor<?x8xf32> to !r
  %b = attn.elementwise %a : !r -> !r {
  ^bb0(%v: f32):
    %t = math.tanh %v : f32
    attn.yield %t : f32
  }
  %c = attn.cast %a : !r to tensor<?x8xf32>
  %d, %e = attn.elementwise %a, %b, %c : !r, !r, tensor<?x8xf32> -> !r, !r {
  ^bb0(%u: f32, %v: f32, %w: f32):
    %p = arith.mulf %u, %w : f32
    %q = arith.addf %v, %w : f32
    attn.yield %p, %q : f32, f32
  }
  %y = attn.elementwise %d, %e, %c : !r, !r, tensor<?x8xf32> -> !r {
  ^bb0(%u: f32, %v: f32, %w: f32):
    %p = arith.addf %u, %v : f32
    %q = arith.addf %p, %w : f32
    attn.yield %q : f32
  }
  return %y : !r
}

// -----

// Kernel symbols are made of letters, digits and underscores, never
// starting with a digit, whatever the function's name (which the program
// keeps): PTX and ELF accept them. Stems that meet ("a b/c" and "a_b_c")
// still give distinct kernels. No kernel name starts as the C interface
// wrappers of host kernels do.

// CHECK-LABEL: func.func @"a b/c"(
// CHECK:         attnrt.launch @attnc_kernels::@a_b_c_attention0
// CHECK-LABEL: func.func @a_b_c(
// CHECK:         attnrt.launch @attnc_kernels::@[[$SECOND:a_b_c_attention0_.]] (
// CHECK-LABEL: func.func @"1st"(
// CHECK:         attnrt.launch @attnc_kernels::@_1st_attention0
// CHECK-LABEL: func.func @_mlir_ciface_f(
// CHECK:         attnrt.launch @attnc_kernels::@k_mlir_ciface_f_attention0
// CHECK-LABEL: module @attnc_kernels {
// CHECK:         func.func @a_b_c_attention0(
// CHECK:         func.func @[[$SECOND]](
// CHECK:         func.func @_1st_attention0(
// CHECK:         func.func @k_mlir_ciface_f_attention0(
func.func @"a b/c"(%q: tensor<1x2x8x16xf32>) -> tensor<1x2x8x16xf32> {
  %o, %l = attn.attention %q, %q, %q : tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32> -> tensor<1x2x8x16xf32>, tensor<1x2x8xf32>
  return %o : tensor<1x2x8x16xf32>
}
func.func @a_b_c(%q: tensor<1x2x8x16xf32>) -> tensor<1x2x8x16xf32> {
  %o, %l = attn.attention %q, %q, %q : tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32> -> tensor<1x2x8x16xf32>, tensor<1x2x8xf32>
  return %o : tensor<1x2x8x16xf32>
}
func.func @"1st"(%q: tensor<1x2x8x16xf32>) -> tensor<1x2x8x16xf32> {
  %o, %l = attn.attention %q, %q, %q : tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32> -> tensor<1x2x8x16xf32>, tensor<1x2x8xf32>
  return %o : tensor<1x2x8x16xf32>
}
func.func @_mlir_ciface_f(%q: tensor<1x2x8x16xf32>) -> tensor<1x2x8x16xf32> {
  %o, %l = attn.attention %q, %q, %q : tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32> -> tensor<1x2x8x16xf32>, tensor<1x2x8xf32>
  return %o : tensor<1x2x8x16xf32>
}

// -----

// A row slice is a view of its source; a concatenation's inputs written by
// a kernel and read by nothing else go into views of its buffer in place,
// others are copied there.
// CHECK-LABEL: func.func @rows(
// CHECK-SAME:    %[[W:[a-z0-9]+]]: memref<48x64xf32, {{.*}}> {attnrt.name = "arg0", attnrt.shape = [48, 64]},
// CHECK-SAME:    %[[U:[a-z0-9]+]]: memref<16x64xf32, {{.*}}> {attnrt.name = "arg1", attnrt.shape = [16, 64]},
// CHECK-SAME:    %[[OUT:[a-z0-9]+]]: memref<48x64xf32, {{.*}}> {attnrt.name = "result0", attnrt.shape = [48, 64]})
// CHECK:         %[[W0:.*]] = attnrt.view %[[W]][0] {name = "v0", shape = [32, 64]}
// CHECK:         %[[A:.*]] = attnrt.view %[[OUT]][16] {name = "v1", shape = [32, 64]}
// CHECK:         attnrt.launch @attnc_kernels::@rows_cast0 (%[[W0]], %[[A]])
// CHECK:         %[[U_AT:.*]] = attnrt.view %[[OUT]][0] {name = "v2", shape = [16, 64]}
// CHECK:         attnrt.launch @attnc_kernels::@rows_cast1 (%[[U]], %[[U_AT]])
// CHECK-NEXT:    return
func.func @rows(%w: tensor<48x64xf32>, %u: tensor<16x64xf32>) -> tensor<48x64xf32> {
  %w0 = tensor.extract_slice %w[0, 0] [32, 64] [1, 1] : tensor<48x64xf32> to tensor<32x64xf32>
  %a = attn.cast %w0 {scale = 2.0 : f32} : tensor<32x64xf32> to tensor<32x64xf32>
  %c = tensor.concat dim(0) %u, %a : (tensor<16x64xf32>, tensor<32x64xf32>) -> tensor<48x64xf32>
  return %c : tensor<48x64xf32>
}

// -----

// An intermediate value read only through slices lives until the last
// kernel that reads a slice of it.
// CHECK-LABEL: func.func @slices_of_a_buffer(
// CHECK:         %[[T:.*]] = attnrt.alloc() {name = "t0", shape = [48, 64]}
// CHECK:         attnrt.launch @attnc_kernels::@slices_of_a_buffer_cast0 ({{.*}}, %[[T]])
// CHECK:         %[[TOP:.*]] = attnrt.view %[[T]][0] {name = "v0", shape = [16, 64]}
// CHECK:         %[[REST:.*]] = attnrt.view %[[T]][16] {name = "v1", shape = [32, 64]}
// CHECK:         attnrt.launch @attnc_kernels::@slices_of_a_buffer_cast1 (%[[TOP]],
// CHECK-NOT:     attnrt.dealloc
// CHECK:         attnrt.launch @attnc_kernels::@slices_of_a_buffer_cast2 (%[[REST]],
// CHECK-NEXT:    attnrt.dealloc %[[T]]
func.func @slices_of_a_buffer(%w: tensor<48x64xf32>) -> (tensor<16x64xf32>, tensor<32x64xf32>) {
  %t = attn.cast %w {scale = 2.0 : f32} : tensor<48x64xf32> to tensor<48x64xf32>
  %top = tensor.extract_slice %t[0, 0] [16, 64] [1, 1] : tensor<48x64xf32> to tensor<16x64xf32>
  %rest = tensor.extract_slice %t[16, 0] [32, 64] [1, 1] : tensor<48x64xf32> to tensor<32x64xf32>
  %a = attn.cast %top {scale = 3.0 : f32} : tensor<16x64xf32> to tensor<16x64xf32>
  %b = attn.cast %rest {scale = 4.0 : f32} : tensor<32x64xf32> to tensor<32x64xf32>
  return %a, %b : tensor<16x64xf32>, tensor<32x64xf32>
}

// -----

// A flat parameter buffer: a rank-1 value's slice expanded is a view of
// its elements in the parameter's shape, and rows of that view are
// elements of the same buffer. A value collapsed into a concatenation is
// written there in its own shape, in place, or copied where it is an
// argument.
// CHECK-LABEL: func.func @flat(
// CHECK-SAME:    %[[P:[a-z0-9]+]]: memref<20xf32, {{.*}}> {attnrt.name = "arg0", attnrt.shape = [20]},
// CHECK-SAME:    %[[B:[a-z0-9]+]]: memref<8xf32, {{.*}}> {attnrt.name = "arg1", attnrt.shape = [8]},
// CHECK-SAME:    %[[OUT:[a-z0-9]+]]: memref<20xf32, {{.*}}> {attnrt.name = "result0", attnrt.shape = [20]})
// CHECK:         %[[W:.*]] = attnrt.view %[[P]][8] {name = "v1", shape = [3, 4]} : memref<20xf32, {{.*}}> to memref<3x4xf32, {{.*}}>
// CHECK:         %[[ROWS:.*]] = attnrt.view %[[P]][12] {name = "v2", shape = [2, 4]} : memref<20xf32, {{.*}}> to memref<2x4xf32, {{.*}}>
// CHECK:         %[[AT:.*]] = attnrt.view %[[OUT]][0] {name = "v3", shape = [2, 4]}
// CHECK:         attnrt.launch @attnc_kernels::@flat_cast0 (%[[ROWS]], %[[AT]])
// CHECK:         %[[SUM_AT:.*]] = attnrt.view %[[OUT]][16] {name = "v5", shape = [4]}
// CHECK:         attnrt.launch @attnc_kernels::@flat_sum_rows1 (%[[W]], %[[SUM_AT]])
// CHECK:         %[[B_AT:.*]] = attnrt.view %[[OUT]][8] {name = "v6", shape = [8]}
// CHECK:         attnrt.launch @attnc_kernels::@flat_cast2 (%[[B]], %[[B_AT]])
// CHECK-NEXT:    return
func.func @flat(%p: tensor<20xf32>, %b: tensor<8xf32>) -> tensor<20xf32> {
  %s = tensor.extract_slice %p[8] [12] [1] : tensor<20xf32> to tensor<12xf32>
  %w = tensor.expand_shape %s [[0, 1]] output_shape [3, 4] : tensor<12xf32> into tensor<3x4xf32>
  %rows = tensor.extract_slice %w[1, 0] [2, 4] [1, 1] : tensor<3x4xf32> to tensor<2x4xf32>
  %a = attn.cast %rows {scale = 2.0 : f32} : tensor<2x4xf32> to tensor<2x4xf32>
  %fa = tensor.collapse_shape %a [[0, 1]] : tensor<2x4xf32> into tensor<8xf32>
  %sum = attn.sum_rows %w : tensor<3x4xf32> -> tensor<4xf32>
  %c = tensor.concat dim(0) %fa, %b, %sum : (tensor<8xf32>, tensor<8xf32>, tensor<4xf32>) -> tensor<20xf32>
  return %c : tensor<20xf32>
}

// -----

// split_heads and merge_heads without rotary tables move no element: a
// split is a heads view of the projection's buffer, and attention writes
// its output straight into a heads view of the merge's buffer, which then
// lives as long as anything reads the output (here the second cast, after
// the merged value's last reader).
// CHECK-LABEL: func.func @heads_in_place(
// CHECK-SAME:    %[[X:[a-z0-9]+]]: memref<?x?x64xbf16, {{.*}}> {attnrt.name = "x", attnrt.shape = ["B", "N", 64]},
// CHECK:         %[[XH:.*]] = attnrt.view %[[X]][0] {heads = 4 : i64, name = "v0", shape = ["B", 4, "N", 16]} : memref<?x?x64xbf16, {{.*}}> to memref<?x4x?x16xbf16, strided<[?, ?, ?, ?], offset: ?>>
// CHECK:         %[[M:.*]] = attnrt.alloc({{.*}}) {name = "t0", shape = ["B", "N", 64]}
// CHECK:         %[[O:.*]] = attnrt.view %[[M]][0] {heads = 4 : i64, name = "v1", shape = ["B", 4, "N", 16]}
// CHECK:         attnrt.launch @attnc_kernels::@heads_in_place_attention0 (%[[XH]], %[[XH]], %[[XH]], %[[O]])
// CHECK-NOT:     merge_heads
// CHECK:         attnrt.launch @attnc_kernels::@heads_in_place_cast1 (%[[M]],
// CHECK-NOT:     attnrt.dealloc %[[M]]
// CHECK:         attnrt.launch @attnc_kernels::@heads_in_place_cast2 (%[[O]],
// CHECK-NEXT:    attnrt.dealloc %[[M]]
func.func @heads_in_place(%x: tensor<?x?x64xbf16>) -> (tensor<?x?x64xf32>, tensor<?x4x?x16xf32>) {
  %h = attn.split_heads %x : tensor<?x?x64xbf16> -> tensor<?x4x?x16xbf16>
  %o, %lse = attn.attention %h, %h, %h : tensor<?x4x?x16xbf16>, tensor<?x4x?x16xbf16>, tensor<?x4x?x16xbf16> -> tensor<?x4x?x16xbf16>, tensor<?x4x?xf32>
  %m = attn.merge_heads %o : tensor<?x4x?x16xbf16> -> tensor<?x?x64xbf16>
  %a = attn.cast %m : tensor<?x?x64xbf16> to tensor<?x?x64xf32>
  %b = attn.cast %o : tensor<?x4x?x16xbf16> to tensor<?x4x?x16xf32>
  return %a, %b : tensor<?x?x64xf32>, tensor<?x4x?x16xf32>
}

// -----

// A split returned as it is is copied out of its heads view; rotary tables
// and a merge that rounds keep their kernels.
// CHECK-LABEL: func.func @heads_kernels(
// CHECK:         %[[XH:.*]] = attnrt.view %{{.*}}[0] {heads = 4 : i64, name = "v0", shape = ["d0_0", 4, "d0_1", 16]}
// CHECK:         attnrt.launch @attnc_kernels::@heads_kernels_cast0 (%[[XH]], %{{.*}})
// CHECK:         attnrt.launch @attnc_kernels::@heads_kernels_split_heads1
// CHECK:         attnrt.launch @attnc_kernels::@heads_kernels_merge_heads2
// CHECK-NOT:     attnrt.view
// CHECK:         return
func.func @heads_kernels(%x: tensor<?x?x64xbf16>, %cos: tensor<?x8xf32>, %sin: tensor<?x8xf32>) -> (tensor<?x4x?x16xbf16>, tensor<?x?x64xf32>) {
  %h = attn.split_heads %x : tensor<?x?x64xbf16> -> tensor<?x4x?x16xbf16>
  %r = attn.split_heads %x, %cos, %sin : tensor<?x?x64xbf16>, tensor<?x8xf32>, tensor<?x8xf32> -> tensor<?x4x?x16xbf16>
  %m = attn.merge_heads %r : tensor<?x4x?x16xbf16> -> tensor<?x?x64xf32>
  return %h, %m : tensor<?x4x?x16xbf16>, tensor<?x?x64xf32>
}

// -----

// A merge without tables of a value that lives in a heads view of a whole
// buffer (attention's output, written into its first merge's buffer, and
// merged again where a backward recomputes the merge) is that buffer: no
// kernel, and the buffer lives while either merged value is read.
// CHECK-LABEL: func.func @merge_again(
// CHECK:         %[[M:.*]] = attnrt.alloc({{.*}}) {name = "t0", shape = ["B", "N", 64]}
// CHECK:         %[[O:.*]] = attnrt.view %[[M]][0] {heads = 4 : i64
// CHECK:         attnrt.launch @attnc_kernels::@merge_again_attention0 ({{.*}}, %[[O]])
// CHECK:         attnrt.launch @attnc_kernels::@merge_again_cast1 (%[[M]],
// CHECK-NOT:     attnrt.dealloc %[[M]]
// CHECK-NOT:     merge_heads
// CHECK:         attnrt.launch @attnc_kernels::@merge_again_cast2 (%[[M]],
// CHECK-NEXT:    attnrt.dealloc %[[M]]
func.func @merge_again(%x: tensor<?x?x64xbf16>) -> (tensor<?x?x64xf32>, tensor<?x?x64xf32>) {
  %h = attn.split_heads %x : tensor<?x?x64xbf16> -> tensor<?x4x?x16xbf16>
  %o, %lse = attn.attention %h, %h, %h : tensor<?x4x?x16xbf16>, tensor<?x4x?x16xbf16>, tensor<?x4x?x16xbf16> -> tensor<?x4x?x16xbf16>, tensor<?x4x?xf32>
  %m = attn.merge_heads %o : tensor<?x4x?x16xbf16> -> tensor<?x?x64xbf16>
  %a = attn.cast %m : tensor<?x?x64xbf16> to tensor<?x?x64xf32>
  %again = attn.merge_heads %o {attn.recompute} : tensor<?x4x?x16xbf16> -> tensor<?x?x64xbf16>
  %b = attn.cast %again {scale = 2.0 : f32} : tensor<?x?x64xbf16> to tensor<?x?x64xf32>
  return %a, %b : tensor<?x?x64xf32>, tensor<?x?x64xf32>
}

// -----

// A matmul reads and writes rows that must collapse (a library GEMM on a
// GPU), which a heads view's leading dims do not: a split a matmul reads,
// and a matmul's result merged, keep their kernels.
// CHECK-LABEL: func.func @heads_matmul(
// CHECK-NOT:     heads =
// CHECK:         attnrt.launch @attnc_kernels::@heads_matmul_split_heads0
// CHECK:         attnrt.launch @attnc_kernels::@heads_matmul_matmul1
// CHECK:         attnrt.launch @attnc_kernels::@heads_matmul_merge_heads2
// CHECK-NEXT:    attnrt.dealloc
// CHECK-NEXT:    return
func.func @heads_matmul(%x: tensor<?x?x64xbf16>, %w: tensor<16x16xbf16>) -> tensor<?x?x64xbf16> {
  %h = attn.split_heads %x : tensor<?x?x64xbf16> -> tensor<?x4x?x16xbf16>
  %p = attn.matmul %h, %w : tensor<?x4x?x16xbf16>, tensor<16x16xbf16> -> tensor<?x4x?x16xbf16>
  %m = attn.merge_heads %p : tensor<?x4x?x16xbf16> -> tensor<?x?x64xbf16>
  return %m : tensor<?x?x64xbf16>
}
