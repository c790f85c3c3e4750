import LocusProvider
print("locus-provider")
