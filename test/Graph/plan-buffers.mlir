// RUN: attn-opt %s -split-input-file -verify-diagnostics --pass-pipeline='builtin.module(func.func(attn-plan-buffers))' | FileCheck %s

// A buffer allocated after another was freed reuses its slot; buffers live
// at the same time get different slots; a new buffer takes the lowest free
// slot, and a fresh one only when none is free.

// CHECK-LABEL: func.func @slots(
// CHECK:         %[[A:.*]] = attnrt.alloc() {name = "a", shape = [4], slot = 0 : i64}
// CHECK:         %[[B:.*]] = attnrt.alloc() {name = "b", shape = [4], slot = 1 : i64}
// CHECK:         %[[C:.*]] = attnrt.alloc() {name = "c", shape = [4], slot = 2 : i64}
// CHECK:         attnrt.dealloc %[[C]]
// CHECK:         attnrt.dealloc %[[A]]
// CHECK:         %[[D:.*]] = attnrt.alloc() {name = "d", shape = [4], slot = 0 : i64}
// CHECK:         %[[E:.*]] = attnrt.alloc() {name = "e", shape = [4], slot = 2 : i64}
// CHECK:         %[[F:.*]] = attnrt.alloc() {name = "f", shape = [4], slot = 3 : i64}
func.func @slots() {
  %a = attnrt.alloc() {name = "a", shape = [4]} : memref<4xf32>
  %b = attnrt.alloc() {name = "b", shape = [4]} : memref<4xf32>
  %c = attnrt.alloc() {name = "c", shape = [4]} : memref<4xf32>
  attnrt.dealloc %c : memref<4xf32>
  attnrt.dealloc %a : memref<4xf32>
  %d = attnrt.alloc() {name = "d", shape = [4]} : memref<4xf32>
  %e = attnrt.alloc() {name = "e", shape = [4]} : memref<4xf32>
  %f = attnrt.alloc() {name = "f", shape = [4]} : memref<4xf32>
  attnrt.dealloc %b : memref<4xf32>
  attnrt.dealloc %d : memref<4xf32>
  attnrt.dealloc %e : memref<4xf32>
  attnrt.dealloc %f : memref<4xf32>
  return
}

// -----

// Slots are shared by buffers of any shape and element type (the runtime
// sizes a slot as its largest buffer); a slot given before planning is
// replaced.

// CHECK-LABEL: func.func @shapes(
// CHECK:         %[[T0:.*]] = attnrt.alloc(%{{.*}}) {name = "t0", shape = ["B", 8], slot = 0 : i64} : memref<?x8xbf16>
// CHECK:         attnrt.launch @attnc_kernels::@k (%{{.*}}, %[[T0]])
// CHECK:         attnrt.dealloc %[[T0]]
// CHECK:         %[[T1:.*]] = attnrt.alloc() {name = "t1", shape = [16, 16], slot = 0 : i64} : memref<16x16xf32>
// CHECK:         attnrt.launch @attnc_kernels::@k (%{{.*}}, %[[T1]])
func.func @shapes(%x: memref<?x8xf32> {attnrt.name = "x", attnrt.shape = ["B", 8]}) attributes {attnrt.num_inputs = 1 : i64} {
  %c0 = arith.constant 0 : index
  %n = memref.dim %x, %c0 : memref<?x8xf32>
  %t0 = attnrt.alloc(%n) {name = "t0", shape = ["B", 8]} : memref<?x8xbf16>
  attnrt.launch @attnc_kernels::@k(%x, %t0) : memref<?x8xf32>, memref<?x8xbf16>
  attnrt.dealloc %t0 : memref<?x8xbf16>
  %t1 = attnrt.alloc() {name = "t1", shape = [16, 16], slot = 7 : i64} : memref<16x16xf32>
  attnrt.launch @attnc_kernels::@k(%x, %t1) : memref<?x8xf32>, memref<16x16xf32>
  attnrt.dealloc %t1 : memref<16x16xf32>
  return
}
module @attnc_kernels {
  func.func @k(%a: memref<?x8xf32>, %b: memref<?x8xbf16>) attributes {attnrt.kernel} {
    return
  }
}

// -----

// A slot costs its largest buffer: a buffer takes the tightest free slot
// that holds it (%c goes where the large %a was), else the one it grows
// least (%d into %b's, not %g's). A size of other symbols is not compared:
// %f takes the lowest free slot.

// CHECK-LABEL: func.func @sizes(
// CHECK:         attnrt.alloc(%{{.*}}) {name = "a", shape = ["N", 64], slot = 0 : i64}
// CHECK:         attnrt.alloc(%{{.*}}) {name = "b", shape = ["N", 8], slot = 1 : i64}
// CHECK:         attnrt.alloc(%{{.*}}) {name = "g", shape = ["N", 2], slot = 2 : i64}
// CHECK:         attnrt.alloc(%{{.*}}) {name = "c", shape = ["N", 32], slot = 0 : i64}
// CHECK:         attnrt.alloc(%{{.*}}) {name = "d", shape = ["N", 16], slot = 1 : i64}
// CHECK:         attnrt.alloc() {name = "f", shape = [512], slot = 0 : i64}
func.func @sizes(%x: memref<?xf32> {attnrt.name = "x", attnrt.shape = ["N"]}) attributes {attnrt.num_inputs = 1 : i64} {
  %c0 = arith.constant 0 : index
  %n = memref.dim %x, %c0 : memref<?xf32>
  %a = attnrt.alloc(%n) {name = "a", shape = ["N", 64]} : memref<?x64xf32>
  %b = attnrt.alloc(%n) {name = "b", shape = ["N", 8]} : memref<?x8xf32>
  %g = attnrt.alloc(%n) {name = "g", shape = ["N", 2]} : memref<?x2xf32>
  attnrt.dealloc %a : memref<?x64xf32>
  attnrt.dealloc %b : memref<?x8xf32>
  attnrt.dealloc %g : memref<?x2xf32>
  %c = attnrt.alloc(%n) {name = "c", shape = ["N", 32]} : memref<?x32xf32>
  %d = attnrt.alloc(%n) {name = "d", shape = ["N", 16]} : memref<?x16xf32>
  attnrt.dealloc %c : memref<?x32xf32>
  %f = attnrt.alloc() {name = "f", shape = [512]} : memref<512xf32>
  attnrt.dealloc %d : memref<?x16xf32>
  attnrt.dealloc %f : memref<512xf32>
  return
}

// -----

// Every function is planned on its own: both start at slot 0.

// CHECK-LABEL: func.func @first(
// CHECK:         attnrt.alloc() {name = "a", shape = [4], slot = 0 : i64}
// CHECK:         attnrt.alloc() {name = "b", shape = [4], slot = 1 : i64}
// CHECK-LABEL: func.func @second(
// CHECK:         attnrt.alloc() {name = "c", shape = [4], slot = 0 : i64}
func.func @first() {
  %a = attnrt.alloc() {name = "a", shape = [4]} : memref<4xf32>
  %b = attnrt.alloc() {name = "b", shape = [4]} : memref<4xf32>
  attnrt.dealloc %a : memref<4xf32>
  attnrt.dealloc %b : memref<4xf32>
  return
}
func.func @second() {
  %c = attnrt.alloc() {name = "c", shape = [4]} : memref<4xf32>
  attnrt.dealloc %c : memref<4xf32>
  return
}

// -----

// A second dealloc of one buffer would free its slot while a later buffer
// holds it.
func.func @freed_twice() {
  %a = attnrt.alloc() {name = "a", shape = [4]} : memref<4xf32>
  attnrt.dealloc %a : memref<4xf32>
  %b = attnrt.alloc() {name = "b", shape = [4]} : memref<4xf32>
  // expected-error @below {{frees buffer 'a' a second time}}
  attnrt.dealloc %a : memref<4xf32>
  attnrt.dealloc %b : memref<4xf32>
  return
}

// -----

// Nor may it read the buffer's rows through a view.
func.func @view_used_after_free() {
  %a = attnrt.alloc() {name = "a", shape = [4]} : memref<4xf32>
  %v = attnrt.view %a[1] {name = "v", shape = [2]} : memref<4xf32> to memref<2xf32, strided<[1], offset: 1>>
  attnrt.dealloc %a : memref<4xf32>
  %b = attnrt.alloc() {name = "b", shape = [2]} : memref<2xf32>
  // expected-error @below {{uses buffer 'a' after its attnrt.dealloc}}
  attnrt.launch @attnc_kernels::@k(%v, %b) : memref<2xf32, strided<[1], offset: 1>>, memref<2xf32>
  attnrt.dealloc %b : memref<2xf32>
  return
}
module @attnc_kernels {
  func.func @k(%x: memref<2xf32, strided<[1], offset: 1>>, %y: memref<2xf32>) attributes {attnrt.kernel} {
    return
  }
}

// -----

// After its dealloc a buffer's slot belongs to the next buffer: a launch
// may not read it any more.
func.func @used_after_free() {
  %a = attnrt.alloc() {name = "a", shape = [4]} : memref<4xf32>
  attnrt.dealloc %a : memref<4xf32>
  %b = attnrt.alloc() {name = "b", shape = [4]} : memref<4xf32>
  // expected-error @below {{uses buffer 'a' after its attnrt.dealloc}}
  attnrt.launch @attnc_kernels::@k(%a, %b) : memref<4xf32>, memref<4xf32>
  attnrt.dealloc %b : memref<4xf32>
  return
}
module @attnc_kernels {
  func.func @k(%x: memref<4xf32>, %y: memref<4xf32>) attributes {attnrt.kernel} {
    return
  }
}

// -----

// Only buffers the function allocated can be freed.

func.func @foreign(%x: memref<4xf32>) {
  // expected-error @below {{frees a buffer that no attnrt.alloc of this function allocated}}
  attnrt.dealloc %x : memref<4xf32>
  return
}
