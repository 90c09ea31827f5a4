// RUN: attn-opt %s -split-input-file --attn-overlap-steps | FileCheck %s

// Two launches that read the same input and write different buffers run
// side by side; the third reads what the second wrote, so it runs after
// them (and would not join a pair anyway).

// CHECK-LABEL: func.func @siblings(
// CHECK:         attnrt.launch @attnc_kernels::@copy (%{{.*}}, %[[A:.*]]) : memref<8xf32>, memref<8xf32>{{$}}
// CHECK-NEXT:    attnrt.launch @attnc_kernels::@copy (%{{.*}}, %[[B:.*]]) {concurrent} : memref<8xf32>, memref<8xf32>{{$}}
// CHECK-NEXT:    attnrt.launch @attnc_kernels::@copy (%[[B]], %{{.*}}) : memref<8xf32>, memref<8xf32>{{$}}
func.func @siblings(%x: memref<8xf32> {attnrt.name = "x", attnrt.shape = [8]}, %y: memref<8xf32> {attnrt.name = "y", attnrt.shape = [8]}) attributes {attnrt.num_inputs = 1 : i64} {
  %a = attnrt.alloc() {name = "a", shape = [8]} : memref<8xf32>
  %b = attnrt.alloc() {name = "b", shape = [8]} : memref<8xf32>
  attnrt.launch @attnc_kernels::@copy(%x, %a) : memref<8xf32>, memref<8xf32>
  attnrt.launch @attnc_kernels::@copy(%x, %b) : memref<8xf32>, memref<8xf32>
  attnrt.launch @attnc_kernels::@copy(%b, %y) : memref<8xf32>, memref<8xf32>
  attnrt.dealloc %a : memref<8xf32>
  attnrt.dealloc %b : memref<8xf32>
  return
}
module @attnc_kernels {
  func.func @copy(%in: memref<8xf32>, %out: memref<8xf32>) {
    %t = bufferization.to_tensor %in : memref<8xf32> to tensor<8xf32>
    bufferization.materialize_in_destination %t in writable %out : (tensor<8xf32>, memref<8xf32>) -> ()
    return
  }
}

// -----

// What a kernel writes is what it materializes into: a launch that
// overwrites the buffer its neighbour reads (a write after a read) stays in
// order, as does one reading a buffer its neighbour writes.

// CHECK-LABEL: func.func @hazards(
// CHECK-NOT:     concurrent
// CHECK:         return
func.func @hazards(%x: memref<8xf32> {attnrt.name = "x", attnrt.shape = [8]}, %y: memref<8xf32> {attnrt.name = "y", attnrt.shape = [8]}) attributes {attnrt.num_inputs = 1 : i64} {
  %a = attnrt.alloc() {name = "a", shape = [8]} : memref<8xf32>
  attnrt.launch @attnc_kernels::@copy(%x, %a) : memref<8xf32>, memref<8xf32>
  attnrt.launch @attnc_kernels::@copy(%a, %y) : memref<8xf32>, memref<8xf32>
  attnrt.launch @attnc_kernels::@copy(%x, %a) : memref<8xf32>, memref<8xf32>
  attnrt.dealloc %a : memref<8xf32>
  return
}
module @attnc_kernels {
  func.func @copy(%in: memref<8xf32>, %out: memref<8xf32>) {
    %t = bufferization.to_tensor %in : memref<8xf32> to tensor<8xf32>
    bufferization.materialize_in_destination %t in writable %out : (tensor<8xf32>, memref<8xf32>) -> ()
    return
  }
}

// -----

// Views of rows: a kernel writing rows that overlap rows its neighbour
// writes stays in order; one writing rows apart from its neighbour's runs
// beside it.

// CHECK-LABEL: func.func @rows(
// CHECK:         attnrt.launch @attnc_kernels::@copy (%{{.*}}, %{{.*}}) : memref<4xf32>, memref<4xf32, strided<[1]>>{{$}}
// CHECK-NEXT:    attnrt.launch @attnc_kernels::@copy (%{{.*}}, %{{.*}}) : memref<4xf32>, memref<4xf32, strided<[1], offset: 2>>{{$}}
// CHECK-NEXT:    attnrt.launch @attnc_kernels::@copy (%{{.*}}, %{{.*}}) {concurrent} : memref<4xf32>, memref<4xf32, strided<[1], offset: 6>>{{$}}
func.func @rows(%x: memref<4xf32> {attnrt.name = "x", attnrt.shape = [4]}, %y: memref<10xf32> {attnrt.name = "y", attnrt.shape = [10]}) attributes {attnrt.num_inputs = 1 : i64} {
  %low = attnrt.view %y[0] {name = "low", shape = [4]} : memref<10xf32> to memref<4xf32, strided<[1]>>
  %middle = attnrt.view %y[2] {name = "middle", shape = [4]} : memref<10xf32> to memref<4xf32, strided<[1], offset: 2>>
  %high = attnrt.view %y[6] {name = "high", shape = [4]} : memref<10xf32> to memref<4xf32, strided<[1], offset: 6>>
  attnrt.launch @attnc_kernels::@copy(%x, %low) : memref<4xf32>, memref<4xf32, strided<[1]>>
  attnrt.launch @attnc_kernels::@copy(%x, %middle) : memref<4xf32>, memref<4xf32, strided<[1], offset: 2>>
  attnrt.launch @attnc_kernels::@copy(%x, %high) : memref<4xf32>, memref<4xf32, strided<[1], offset: 6>>
  return
}
module @attnc_kernels {
  func.func @copy(%in: memref<4xf32>, %out: memref<4xf32, strided<[?], offset: ?>>) {
    %t = bufferization.to_tensor %in : memref<4xf32> to tensor<4xf32>
    bufferization.materialize_in_destination %t in writable %out : (tensor<4xf32>, memref<4xf32, strided<[?], offset: ?>>) -> ()
    return
  }
}

// -----

// Where a buffer is freed between two independent launches, they stay in
// order: running them together would keep it live beside the second's
// buffers, at a cost in memory. Nor does a launch whose kernel function is
// gone (a library step formed earlier) pair, since what it writes is
// unknown.

// CHECK-LABEL: func.func @freed(
// CHECK-NOT:     concurrent
// CHECK:         return
func.func @freed(%x: memref<8xf32> {attnrt.name = "x", attnrt.shape = [8]}, %y: memref<8xf32> {attnrt.name = "y", attnrt.shape = [8]}, %z: memref<8xf32> {attnrt.name = "z", attnrt.shape = [8]}) attributes {attnrt.num_inputs = 1 : i64} {
  %a = attnrt.alloc() {name = "a", shape = [8]} : memref<8xf32>
  attnrt.launch @attnc_kernels::@copy(%x, %a) : memref<8xf32>, memref<8xf32>
  attnrt.launch @attnc_kernels::@copy(%a, %y) : memref<8xf32>, memref<8xf32>
  attnrt.dealloc %a : memref<8xf32>
  attnrt.launch @attnc_kernels::@copy(%x, %z) : memref<8xf32>, memref<8xf32>
  attnrt.launch @attnc_kernels::@gone(%x, %x) {library = "cublaslt_matmul"} : memref<8xf32>, memref<8xf32>
  return
}
module @attnc_kernels {
  func.func @copy(%in: memref<8xf32>, %out: memref<8xf32>) {
    %t = bufferization.to_tensor %in : memref<8xf32> to tensor<8xf32>
    bufferization.materialize_in_destination %t in writable %out : (tensor<8xf32>, memref<8xf32>) -> ()
    return
  }
}
