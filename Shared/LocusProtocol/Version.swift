/// Wire protocol v1: message types, topics, codec, validation (see docs/protocol.md).
public enum LocusProtocolVersion { public static let current = 1 }
