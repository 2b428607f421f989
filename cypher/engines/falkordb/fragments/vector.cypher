// fragment: vector(x)
// params:
// FalkorDB indexes only vecf32 values: a plain list is stored but never indexed.
vecf32(x)
