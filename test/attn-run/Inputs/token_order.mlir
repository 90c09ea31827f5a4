// attn.token_order's results as outputs, and an embedding whose table's
// gradient goes through them (attn-run's token-order.test).
func.func @order(%ids: tensor<?x?xi32>)
    -> (tensor<?x?xi32>, tensor<5xi32>) {
  %order, %bounds = attn.token_order %ids
      : tensor<?x?xi32> -> tensor<?x?xi32>, tensor<5xi32>
  return %order, %bounds : tensor<?x?xi32>, tensor<5xi32>
}

func.func @embed(%table: tensor<4x80xf32>, %ids: tensor<?x?xi32>)
    -> tensor<?x?x80xf32> attributes {attn.backward} {
  %x = attn.embedding %table, %ids
      : tensor<4x80xf32>, tensor<?x?xi32> -> tensor<?x?x80xf32>
  return %x : tensor<?x?x80xf32>
}
