public import CProj
/// Geodesy on WGS-84.
public enum LocusGeoModule {}
