// RUN: attn-opt %s -split-input-file -verify-diagnostics

// One chunk per verifier diagnostic of the attnrt dialect
// (dialects/attnrt/AttnRTOps.cpp), plus the ODS constraints that guard the
// same ops.

//===----------------------------------------------------------------------===//
// attnrt.alloc
//===----------------------------------------------------------------------===//

// The runtime allocates dense row-major buffers: a strided layout is
// rejected.
func.func @alloc_strided_layout() {
  // expected-error @below {{'attnrt.alloc' op expected a dense row-major buffer, got 'memref<8x128xf32, strided<[256, 1]>>'}}
  %t = attnrt.alloc() {name = "t", shape = [8, 128]} : memref<8x128xf32, strided<[256, 1]>>
  return
}

// -----

// A permutation map is not row-major either.
func.func @alloc_transposed_layout() {
  // expected-error @below {{'attnrt.alloc' op expected a dense row-major buffer, got 'memref<8x128xf32, affine_map<(d0, d1) -> (d1, d0)>>'}}
  %t = attnrt.alloc() {name = "t", shape = [8, 128]} : memref<8x128xf32, affine_map<(d0, d1) -> (d1, d0)>>
  return
}

// -----

// One dynamic size per dynamic dim: too few.
func.func @alloc_missing_dynamic_size(%n: index) {
  // expected-error @below {{'attnrt.alloc' op expected 2 dynamic sizes, got 1}}
  %t = attnrt.alloc(%n) {name = "t", shape = ["B", "N"]} : memref<?x?xf32>
  return
}

// -----

// Too many: a static buffer takes none.
func.func @alloc_extra_dynamic_size(%n: index) {
  // expected-error @below {{'attnrt.alloc' op expected 0 dynamic sizes, got 1}}
  %t = attnrt.alloc(%n) {name = "t", shape = [8]} : memref<8xf32>
  return
}

// -----

// The symbolic shape has one entry per dim.
func.func @alloc_shape_too_short(%n: index) {
  // expected-error @below {{'attnrt.alloc' op expected shape to give each dim of 'memref<?x16xbf16>': its static extent or a symbol name, got ["B"]}}
  %t = attnrt.alloc(%n) {name = "t", shape = ["B"]} : memref<?x16xbf16>
  return
}

// -----

// A static dim's entry is its extent.
func.func @alloc_shape_static_mismatch() {
  // expected-error @below {{'attnrt.alloc' op expected shape to give each dim of 'memref<8x16xbf16>': its static extent or a symbol name, got [8, 32]}}
  %t = attnrt.alloc() {name = "t", shape = [8, 32]} : memref<8x16xbf16>
  return
}

// -----

// A static dim is not named by a symbol.
func.func @alloc_shape_symbol_for_static_dim() {
  // expected-error @below {{'attnrt.alloc' op expected shape to give each dim of 'memref<8xbf16>': its static extent or a symbol name, got ["N"]}}
  %t = attnrt.alloc() {name = "t", shape = ["N"]} : memref<8xbf16>
  return
}

// -----

// A dynamic dim is named by a symbol, not an extent.
func.func @alloc_shape_extent_for_dynamic_dim(%n: index) {
  // expected-error @below {{'attnrt.alloc' op expected shape to give each dim of 'memref<?xbf16>': its static extent or a symbol name, got [8]}}
  %t = attnrt.alloc(%n) {name = "t", shape = [8]} : memref<?xbf16>
  return
}

// -----

// A symbol name is not empty.
func.func @alloc_shape_empty_symbol(%n: index) {
  // expected-error @below {{'attnrt.alloc' op expected shape to give each dim of 'memref<?xbf16>': its static extent or a symbol name, got [""]}}
  %t = attnrt.alloc(%n) {name = "t", shape = [""]} : memref<?xbf16>
  return
}

// -----

// Shape entries are integers or strings: a float is rejected.
func.func @alloc_shape_float_entry() {
  // expected-error @below {{'attnrt.alloc' op expected shape to give each dim of 'memref<8xbf16>': its static extent or a symbol name, got [8.000000e+00 : f32]}}
  %t = attnrt.alloc() {name = "t", shape = [8.0 : f32]} : memref<8xbf16>
  return
}

// -----

// Shape is an array (ODS constraint).
func.func @alloc_shape_not_array(%n: index) {
  // expected-error @below {{'attnrt.alloc' op attribute 'shape' failed to satisfy constraint: array attribute}}
  %t = attnrt.alloc(%n) {name = "t", shape = "N"} : memref<?xbf16>
  return
}

// -----

// Every buffer has a name, for the manifest and error messages.
func.func @alloc_empty_name() {
  // expected-error @below {{'attnrt.alloc' op expected a non-empty name}}
  %t = attnrt.alloc() {name = "", shape = [8]} : memref<8xf32>
  return
}

// -----

// The name is required (ODS constraint).
func.func @alloc_missing_name() {
  // expected-error @below {{'attnrt.alloc' op requires attribute 'name'}}
  %t = attnrt.alloc() {shape = [8]} : memref<8xf32>
  return
}

// -----

// Slots are numbered from 0.
func.func @alloc_negative_slot() {
  // expected-error @below {{'attnrt.alloc' op expected a non-negative slot, got -1}}
  %t = attnrt.alloc() {name = "t", shape = [8], slot = -1} : memref<8xf32>
  return
}

// -----

// Dynamic sizes are indices (ODS constraint, generic form).
func.func @alloc_i64_size(%n: i64) {
  // expected-error @below {{'attnrt.alloc' op operand #0 must be variadic of index, but got 'i64'}}
  %t = "attnrt.alloc"(%n) <{name = "t", shape = ["N"]}> : (i64) -> memref<?xf32>
  return
}

//===----------------------------------------------------------------------===//
// attnrt.dealloc
//===----------------------------------------------------------------------===//

// -----

// Only memrefs are freed (ODS constraint, generic form).
func.func @dealloc_tensor(%t: tensor<8xf32>) {
  // expected-error @below {{'attnrt.dealloc' op operand #0 must be memref of any type values, but got 'tensor<8xf32>'}}
  "attnrt.dealloc"(%t) : (tensor<8xf32>) -> ()
  return
}

//===----------------------------------------------------------------------===//
// attnrt.view
//===----------------------------------------------------------------------===//

// A view keeps every dim but the first.
func.func @view_other_columns(%t: memref<6x3xf32>) {
  // expected-error @below {{'attnrt.view' op expected rows of 'memref<6x3xf32>': its element type and dims but the first (or, of a rank-1 source, static dims), got 'memref<2x4xf32, strided<[4, 1], offset: ?>>'}}
  %v = attnrt.view %t[0] {name = "v0", shape = [2, 4]} : memref<6x3xf32> to memref<2x4xf32, strided<[4, 1], offset: ?>>
  return
}

// -----

// A view of a rank-1 source reshapes its elements, in a static shape.
func.func @view_reshaped_dynamic(%t: memref<12xf32>) {
  // expected-error @below {{'attnrt.view' op expected rows of 'memref<12xf32>': its element type and dims but the first (or, of a rank-1 source, static dims), got 'memref<2x?xf32, strided<[?, 1], offset: ?>>'}}
  %v = attnrt.view %t[0] {name = "v0", shape = [2, "C"]} : memref<12xf32> to memref<2x?xf32, strided<[?, 1], offset: ?>>
  return
}

// -----

// ... whose elements lie inside the source.
func.func @view_reshaped_past_the_end(%t: memref<12xf32>) {
  // expected-error @below {{'attnrt.view' op rows [6, 14) are not rows of 'memref<12xf32>'}}
  %v = attnrt.view %t[6] {name = "v0", shape = [2, 4]} : memref<12xf32> to memref<2x4xf32, strided<[4, 1], offset: ?>>
  return
}

// -----

// The row count is static: the package writes it.
func.func @view_dynamic_rows(%t: memref<6x3xf32>) {
  // expected-error @below {{'attnrt.view' op expected a static row count >= 1, got 'memref<?x3xf32, strided<[3, 1], offset: ?>>'}}
  %v = attnrt.view %t[0] {name = "v0", shape = ["N", 3]} : memref<6x3xf32> to memref<?x3xf32, strided<[3, 1], offset: ?>>
  return
}

// -----

// The rows must lie inside a static first dim.
func.func @view_past_the_rows(%t: memref<6x3xf32>) {
  // expected-error @below {{'attnrt.view' op rows [4, 8) are not rows of 'memref<6x3xf32>'}}
  %v = attnrt.view %t[4] {name = "v0", shape = [4, 3]} : memref<6x3xf32> to memref<4x3xf32, strided<[3, 1], offset: ?>>
  return
}

// -----

// A heads view splits the last dim of a rank-3 source into H heads.
func.func @heads_view_uneven(%t: memref<?x?x96xbf16>) {
  // expected-error @below {{'attnrt.view' op expected all of 'memref<?x?x96xbf16>' as 5 heads [B, H, N, D] from row 0, got 'memref<?x5x?x19xbf16, strided<[?, ?, ?, ?], offset: ?>>'}}
  %v = attnrt.view %t[0] {heads = 5 : i64, name = "v0", shape = ["B", 5, "N", 19]} : memref<?x?x96xbf16> to memref<?x5x?x19xbf16, strided<[?, ?, ?, ?], offset: ?>>
  return
}

// -----

// ... and takes all of it.
func.func @heads_view_rows(%t: memref<?x?x96xbf16>) {
  // expected-error @below {{'attnrt.view' op expected all of 'memref<?x?x96xbf16>' as 2 heads [B, H, N, D] from row 0, got 'memref<?x2x?x48xbf16, strided<[?, ?, ?, ?], offset: ?>>'}}
  %v = attnrt.view %t[1] {heads = 2 : i64, name = "v0", shape = ["B", 2, "N", 48]} : memref<?x?x96xbf16> to memref<?x2x?x48xbf16, strided<[?, ?, ?, ?], offset: ?>>
  return
}

// -----

// ... and start at a row: a negative begin is no row, even of a dynamic dim.
func.func @view_negative_begin(%t: memref<?x3xf32>) {
  // expected-error @below {{'attnrt.view' op rows [-1, 3) are not rows of 'memref<?x3xf32>'}}
  %v = attnrt.view %t[-1] {name = "v0", shape = [4, 3]} : memref<?x3xf32> to memref<4x3xf32, strided<[3, 1], offset: ?>>
  return
}

// -----

// The shape gives each dim of the view.
func.func @view_wrong_shape(%t: memref<6x3xf32>) {
  // expected-error @below {{'attnrt.view' op expected a name and a shape giving each dim of 'memref<4x3xf32, strided<[3, 1], offset: ?>>', got [4, 5]}}
  %v = attnrt.view %t[0] {name = "v0", shape = [4, 5]} : memref<6x3xf32> to memref<4x3xf32, strided<[3, 1], offset: ?>>
  return
}

// -----

//===----------------------------------------------------------------------===//
// attnrt.launch
//===----------------------------------------------------------------------===//

// -----

// A grid has at most three extents (x, y, z).
module @attnc_kernels {
  func.func private @k(memref<8xf32>)
}
func.func @launch_grid_of_four(%a: memref<8xf32>, %n: index) {
  // expected-error @below {{'attnrt.launch' op expected a grid of at most 3 extents (x, y, z), got 4}}
  attnrt.launch @attnc_kernels::@k grid(%n, %n, %n, %n) (%a) : memref<8xf32>
  return
}

// -----

// A library step runs a routine of the runtime over no grid.
func.func @launch_library_grid(%a: memref<8xf32>, %n: index) {
  // expected-error @below {{'attnrt.launch' op expected no grid for library routine "cublaslt_matmul"}}
  attnrt.launch @attnc_kernels::@k grid(%n) (%a) {library = "cublaslt_matmul"} : memref<8xf32>
  return
}

// -----

// A concurrent launch runs beside the launch before it: there must be one.
module @attnc_kernels {
  func.func private @k(memref<8xf32>)
}
func.func @launch_concurrent_first(%a: memref<8xf32>) {
  // expected-error @below {{'attnrt.launch' op is concurrent, but no launch comes before it to run beside}}
  attnrt.launch @attnc_kernels::@k (%a) {concurrent} : memref<8xf32>
  return
}

// -----

// Launches run in pairs at most: a third may not join a concurrent pair.
module @attnc_kernels {
  func.func private @k(memref<8xf32>)
}
func.func @launch_concurrent_three(%a: memref<8xf32>, %b: memref<8xf32>, %c: memref<8xf32>) {
  attnrt.launch @attnc_kernels::@k (%a) : memref<8xf32>
  attnrt.launch @attnc_kernels::@k (%b) {concurrent} : memref<8xf32>
  // expected-error @below {{'attnrt.launch' op is concurrent, but the launch before it already runs beside another: a launch runs beside one other at most}}
  attnrt.launch @attnc_kernels::@k (%c) {concurrent} : memref<8xf32>
  return
}

// -----

// The kernel must exist: a missing function in the kernel module.
module @attnc_kernels {
  func.func private @k(memref<8xf32>)
}
func.func @launch_missing_kernel(%a: memref<8xf32>) {
  // expected-error @below {{'attnrt.launch' op kernel @attnc_kernels::@missing does not exist}}
  attnrt.launch @attnc_kernels::@missing (%a) : memref<8xf32>
  return
}

// -----

// A missing kernel module is reported the same way.
func.func @launch_missing_kernel_module(%a: memref<8xf32>) {
  // expected-error @below {{'attnrt.launch' op kernel @attnc_kernels::@k does not exist}}
  attnrt.launch @attnc_kernels::@k (%a) : memref<8xf32>
  return
}

// -----

// The kernel must be a function: here the symbol is the kernel module
// itself.
module @attnc_kernels {
  func.func private @k(memref<8xf32>)
}
func.func @launch_module(%a: memref<8xf32>) {
  // expected-error @below {{'attnrt.launch' op kernel @attnc_kernels is not a function}}
  attnrt.launch @attnc_kernels (%a) : memref<8xf32>
  return
}

// -----

// A global is not a function either.
module @attnc_kernels {
  memref.global "private" @table : memref<8xf32>
}
func.func @launch_global(%a: memref<8xf32>) {
  // expected-error @below {{'attnrt.launch' op kernel @attnc_kernels::@table is not a function}}
  attnrt.launch @attnc_kernels::@table (%a) : memref<8xf32>
  return
}

// -----

// The buffers are the kernel's first arguments: more buffers than
// arguments is rejected.
module @attnc_kernels {
  func.func private @k(memref<8xf32>)
}
func.func @launch_too_many_buffers(%a: memref<8xf32>, %b: memref<8xf32>) {
  // expected-error @below {{'attnrt.launch' op passes 2 buffers to kernel @attnc_kernels::@k, which takes 1 arguments}}
  attnrt.launch @attnc_kernels::@k (%a, %b) : memref<8xf32>, memref<8xf32>
  return
}

// -----

// Grid extents are indices (ODS constraint, generic form).
module @attnc_kernels {
  func.func private @k(memref<8xf32>)
}
func.func @launch_i32_grid(%a: memref<8xf32>, %n: i32) {
  // expected-error @below {{'attnrt.launch' op operand #0 must be variadic of index, but got 'i32'}}
  "attnrt.launch"(%n, %a) <{kernel = @attnc_kernels::@k, operandSegmentSizes = array<i32: 1, 1>}> : (i32, memref<8xf32>) -> ()
  return
}

// -----

// Launches pass buffers only (ODS constraint, generic form).
module @attnc_kernels {
  func.func private @k(index)
}
func.func @launch_index_argument(%n: index) {
  // expected-error @below {{'attnrt.launch' op operand #0 must be variadic of memref of any type values, but got 'index'}}
  "attnrt.launch"(%n) <{kernel = @attnc_kernels::@k, operandSegmentSizes = array<i32: 0, 1>}> : (index) -> ()
  return
}

//===----------------------------------------------------------------------===//
// Program attributes
//===----------------------------------------------------------------------===//

// -----

// Buffers hold a dtype a package carries: no i8.
func.func @alloc_i8() {
  // expected-error @below {{'attnrt.alloc' op expected an element type a package carries, got 'i8'}}
  %t = attnrt.alloc() {name = "t", shape = [8]} : memref<8xi8>
  return
}

// -----

// attnrt.num_inputs counts arguments: not more than there are.
// expected-error @below {{expected attnrt.num_inputs on a function, an integer from 0 to its argument count, got 2 : i64}}
func.func @too_many_inputs(%x: memref<4xf32> {attnrt.name = "x", attnrt.shape = [4]}) attributes {attnrt.num_inputs = 2 : i64} {
  return
}

// -----

// Every argument of a program has a name and a shape.
// expected-error @below {{expected every argument of a program to carry attnrt.name and attnrt.shape; argument #1 does not}}
func.func @unnamed_argument(%x: memref<4xf32> {attnrt.name = "x", attnrt.shape = [4]}, %y: memref<4xf32>) attributes {attnrt.num_inputs = 1 : i64} {
  return
}

// -----

// A name is a non-empty string.
// expected-error @below {{expected attnrt.name to be a non-empty string, got ""}}
func.func @empty_name(%x: memref<4xf32> {attnrt.name = "", attnrt.shape = [4]}) {
  return
}

// -----

// A shape gives each dim of the argument, of a package element type; a
// dynamic dim may be fixed by another value of its class.
// expected-error @below {{expected attnrt.shape of argument #0 to give each dim of 'memref<?x4xf32>' (of a package element type): its static extent or a symbol name, got [2]}}
func.func @short_shape(%x: memref<?x4xf32> {attnrt.name = "x", attnrt.shape = [2]}) {
  return
}

// -----

// attnrt.kernel is a marker.
// expected-error @below {{expected attnrt.kernel to be a unit attribute}}
func.func @kernel_with_value() attributes {attnrt.kernel = 1 : i64} {
  return
}

// -----

// Other attnrt attributes do not exist.
// expected-error @below {{unknown argument attribute "attnrt.size"}}
func.func @unknown_argument_attribute(%x: memref<4xf32> {attnrt.size = 4 : i64}) {
  return
}
