// Placeholder until the command-line tool lands.
print("strata")
