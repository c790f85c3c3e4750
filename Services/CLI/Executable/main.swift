import LocusCLI
print("locus")
