// RUN: attn-opt %s --attnc-programs='target=host program-target=sm_90a' | FileCheck %s
// RUN: attn-opt %s --attnc-programs='target=host' | FileCheck %s --check-prefix=HOST

// The programs pipeline with the program shaped for another target, as
// `attnc --target=host,sm_90a` runs it for the host: the decode attention
// splits its keys as on sm_90a (16 ranges), while the tiles are the host's.
// Shaped for the host alone, it stays one kernel.

// CHECK-LABEL: func.func @decode(
// CHECK:         attnrt.alloc{{.*}}shape = [16, "B", 32, 1, 128]
// CHECK:         attnrt.launch @attnc_kernels::@decode_attention_split0
// CHECK:         attnrt.launch @attnc_kernels::@decode_attention_combine1
// CHECK-LABEL: module @attnc_kernels
// CHECK:         attn.attention_split {{.*}}tiles = #attn.tiles<block_m = 1, block_n = 64>

// HOST-LABEL: func.func @decode(
// HOST-NOT:      attention_split
// HOST:          attnrt.launch @attnc_kernels::@decode_attention0
// HOST-NOT:      attention_split

func.func @decode(%q: tensor<?x32x1x128xbf16>, %k: tensor<?x8x?x128xbf16>, %v: tensor<?x8x?x128xbf16>)
    -> tensor<?x32x1x128xbf16> {
  %o, %l = attn.attention %q, %k, %v
      : tensor<?x32x1x128xbf16>, tensor<?x8x?x128xbf16>, tensor<?x8x?x128xbf16>
      -> tensor<?x32x1x128xbf16>, tensor<?x32x1xf32>
  return %o : tensor<?x32x1x128xbf16>
}
