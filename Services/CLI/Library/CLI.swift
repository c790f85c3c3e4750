import LocusBus
