// Public functions named like C library symbols compile for the host and
// run their own kernels: the name is only the manifest's key, so neither the
// kernels nor the entries the runtime looks up may resolve to the library's
// log, memcpy, exit, malloc or free (the host kernels call the last two),
// nor to each other's: names of generated symbols (free_attention0, its
// wrapper _mlir_ciface_free_attention0) are ordinary function names too.
//
// RUN: attnc %s -o %t.attnpkg
// RUN: attn-run %t.attnpkg --list | FileCheck %s --check-prefix=LIST
// RUN: attn-run %t.attnpkg --fn log --shape Nq=37 --shape Nk=37 --check | FileCheck %s
// RUN: attn-run %t.attnpkg --fn memcpy --shape Nq=37 --shape Nk=37 --check | FileCheck %s
// RUN: attn-run %t.attnpkg --fn exit --shape Nq=37 --shape Nk=37 --check | FileCheck %s
// RUN: attn-run %t.attnpkg --fn malloc --shape Nq=37 --shape Nk=37 --check | FileCheck %s
// RUN: attn-run %t.attnpkg --fn free --shape Nq=37 --shape Nk=37 --check | FileCheck %s
// RUN: attn-run %t.attnpkg --fn free_attention0 --shape Nq=37 --shape Nk=37 --check | FileCheck %s
// RUN: attn-run %t.attnpkg --fn _mlir_ciface_free_attention0 --shape Nq=37 --shape Nk=37 --check | FileCheck %s
// RUN: attn-run %t.attnpkg --fn free_attention0_entry --shape Nq=37 --shape Nk=37 --check | FileCheck %s

// LIST:      {{^}}log{{$}}
// LIST-NEXT: {{^}}memcpy{{$}}
// LIST-NEXT: {{^}}exit{{$}}
// LIST-NEXT: {{^}}malloc{{$}}
// LIST-NEXT: {{^}}free{{$}}
// LIST-NEXT: {{^}}free_attention0{{$}}
// LIST-NEXT: {{^}}_mlir_ciface_free_attention0{{$}}
// LIST-NEXT: {{^}}free_attention0_entry{{$}}

// CHECK: seed:
// CHECK: out: rel_err {{.*}} ok
// CHECK-NEXT: lse: rel_err {{.*}} ok

!t = tensor<1x2x?x16xf32>
!lse = tensor<1x2x?xf32>

func.func @log(%q: !t, %k: !t, %v: !t) -> (!t, !lse) {
  %o, %l = attn.attention %q, %k, %v {causal} : !t, !t, !t -> !t, !lse
  return %o, %l : !t, !lse
}

func.func @memcpy(%q: !t, %k: !t, %v: !t) -> (!t, !lse) {
  %o, %l = attn.attention %q, %k, %v : !t, !t, !t -> !t, !lse
  return %o, %l : !t, !lse
}

func.func @exit(%q: !t, %k: !t, %v: !t) -> (!t, !lse) {
  %o, %l = attn.attention %q, %k, %v {causal} : !t, !t, !t -> !t, !lse
  return %o, %l : !t, !lse
}

func.func @malloc(%q: !t, %k: !t, %v: !t) -> (!t, !lse) {
  %o, %l = attn.attention %q, %k, %v : !t, !t, !t -> !t, !lse
  return %o, %l : !t, !lse
}

func.func @free(%q: !t, %k: !t, %v: !t) -> (!t, !lse) {
  %o, %l = attn.attention %q, %k, %v {causal} : !t, !t, !t -> !t, !lse
  return %o, %l : !t, !lse
}

func.func @free_attention0(%q: !t, %k: !t, %v: !t) -> (!t, !lse) {
  %o, %l = attn.attention %q, %k, %v : !t, !t, !t -> !t, !lse
  return %o, %l : !t, !lse
}

func.func @_mlir_ciface_free_attention0(%q: !t, %k: !t, %v: !t) -> (!t, !lse) {
  %o, %l = attn.attention %q, %k, %v : !t, !t, !t -> !t, !lse
  return %o, %l : !t, !lse
}

func.func @free_attention0_entry(%q: !t, %k: !t, %v: !t) -> (!t, !lse) {
  %o, %l = attn.attention %q, %k, %v : !t, !t, !t -> !t, !lse
  return %o, %l : !t, !lse
}
