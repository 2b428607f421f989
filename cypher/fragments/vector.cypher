// fragment: vector(x)
// params:
// A list of floats stored as a vector property (plain lists on Bolt engines).
x
