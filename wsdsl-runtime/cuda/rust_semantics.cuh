// placeholder until the lowering's header lands
