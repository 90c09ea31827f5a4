func.func @yield_outside_attention(%x: f32) {
  attn.yield %x : f32
}
