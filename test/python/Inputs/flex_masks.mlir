// The masks and scores of flex_check.py, written by hand in the attn
// dialect: flex must trace its Python functions into regions that compute
// the same.

!q = tensor<?x4x?x16xf32>
!kv = tensor<?x2x?x16xf32>
!lse = tensor<?x4x?xf32>

// Documents of 8 tokens, causal within each.
func.func @documents(%q: !q, %k: !kv, %v: !kv) -> (!q, !lse) {
  %o, %l = attn.attention %q, %k, %v : !q, !kv, !kv -> !q, !lse
    mask {
    ^bb0(%b: index, %h: index, %qi: index, %ki: index):
      %c8 = arith.constant 8 : index
      %qd = arith.divui %qi, %c8 : index
      %kd = arith.divui %ki, %c8 : index
      %same = arith.cmpi eq, %qd, %kd : index
      %past = arith.cmpi ule, %ki, %qi : index
      %m = arith.andi %same, %past : i1
      attn.yield %m : i1
    }
  return %o, %l : !q, !lse
}

// Python's floor modulo of a difference that may be negative.
func.func @periodic(%q: !q, %k: !kv, %v: !kv) -> (!q, !lse) {
  %o, %l = attn.attention %q, %k, %v : !q, !kv, !kv -> !q, !lse
    mask {
    ^bb0(%b: index, %h: index, %qi: index, %ki: index):
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c5 = arith.constant 5 : index
      %d = arith.subi %qi, %ki : index
      %r = arith.remsi %d, %c5 : index
      %neg = arith.cmpi slt, %r, %c0 : index
      %up = arith.addi %r, %c5 : index
      %mod = arith.select %neg, %up, %r : index
      %m = arith.cmpi ne, %mod, %c1 : index
      attn.yield %m : i1
    }
  return %o, %l : !q, !lse
}

func.func @softcap(%q: !q, %k: !kv, %v: !kv) -> (!q, !lse) {
  %o, %l = attn.attention %q, %k, %v {scale = 0.25 : f32} : !q, !kv, !kv -> !q, !lse
    score {
    ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index):
      %cap = arith.constant 20.0 : f32
      %x = arith.divf %s, %cap : f32
      %t = math.tanh %x : f32
      %r = arith.mulf %cap, %t : f32
      attn.yield %r : f32
    }
  return %o, %l : !q, !lse
}

// ALiBi with slope 2^-(h + 1), causal.
func.func @alibi(%q: !q, %k: !kv, %v: !kv) -> (!q, !lse) {
  %o, %l = attn.attention %q, %k, %v {causal} : !q, !kv, !kv -> !q, !lse
    score {
    ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index):
      %one = arith.constant 1 : index
      %h1 = arith.addi %h, %one : index
      %h1i = arith.index_cast %h1 : index to i64
      %h1f = arith.sitofp %h1i : i64 to f32
      %neg = arith.negf %h1f : f32
      %slope = math.exp2 %neg : f32
      %dist = arith.subi %qi, %ki : index
      %disti = arith.index_cast %dist : index to i64
      %distf = arith.sitofp %disti : i64 to f32
      %bias = arith.mulf %slope, %distf : f32
      %r = arith.subf %s, %bias : f32
      attn.yield %r : f32
    }
  return %o, %l : !q, !lse
}

// Documents from a captured id per (batch, position), causal within each
// (flex_check.py's IDS).
func.func @documents_ids(%q: !q, %k: !kv, %v: !kv, %ids: tensor<?x?xi32>)
    -> (!q, !lse) {
  %o, %l = attn.attention %q, %k, %v captures(%ids : tensor<?x?xi32>) {causal}
      : !q, !kv, !kv -> !q, !lse
    mask {
    ^bb0(%b: index, %h: index, %qi: index, %ki: index, %d: tensor<?x?xi32>):
      %dq = tensor.extract %d[%b, %qi] : tensor<?x?xi32>
      %dk = tensor.extract %d[%b, %ki] : tensor<?x?xi32>
      %same = arith.cmpi eq, %dq, %dk : i32
      attn.yield %same : i1
    }
  return %o, %l : !q, !lse
}

// A captured f32 bias per (head, query, key) added to the score; the table
// (BIAS) has fewer rows than there are queries, and the reads past its end
// give 0.
func.func @bias_table(%q: !q, %k: !kv, %v: !kv, %bias: tensor<?x?x?xf32>)
    -> (!q, !lse) {
  %o, %l = attn.attention %q, %k, %v captures(%bias : tensor<?x?x?xf32>)
      : !q, !kv, !kv -> !q, !lse
    score {
    ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index,
         %t: tensor<?x?x?xf32>):
      %x = tensor.extract %t[%h, %qi, %ki] : tensor<?x?x?xf32>
      %r = arith.addf %s, %x : f32
      attn.yield %r : f32
    }
  return %o, %l : !q, !lse
}

// Both: the ids mask, and a score that reads the bias and the ids.
func.func @documents_bias(%q: !q, %k: !kv, %v: !kv, %ids: tensor<?x?xi32>,
                          %bias: tensor<?x?x?xf32>) -> (!q, !lse) {
  %o, %l = attn.attention %q, %k, %v
      captures(%ids, %bias : tensor<?x?xi32>, tensor<?x?x?xf32>) {causal}
      : !q, !kv, !kv -> !q, !lse
    mask {
    ^bb0(%b: index, %h: index, %qi: index, %ki: index, %d: tensor<?x?xi32>,
         %t: tensor<?x?x?xf32>):
      %dq = tensor.extract %d[%b, %qi] : tensor<?x?xi32>
      %dk = tensor.extract %d[%b, %ki] : tensor<?x?xi32>
      %same = arith.cmpi eq, %dq, %dk : i32
      attn.yield %same : i1
    }
    score {
    ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index,
         %d: tensor<?x?xi32>, %t: tensor<?x?x?xf32>):
      %x = tensor.extract %t[%h, %qi, %ki] : tensor<?x?x?xf32>
      %added = arith.addf %s, %x : f32
      %dk = tensor.extract %d[%b, %ki] : tensor<?x?xi32>
      %dkf = arith.sitofp %dk : i32 to f32
      %half = arith.constant 0.5 : f32
      %y = arith.mulf %half, %dkf : f32
      %r = arith.subf %added, %y : f32
      attn.yield %r : f32
    }
  return %o, %l : !q, !lse
}
