import LocusBroker
print("locus-bus")
